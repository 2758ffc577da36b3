// The decode worker: owns the wasm Session (the catalog of every file opened so far). Runs in a
// dedicated worker because the core reads files synchronously (FileReaderSync for dropped files,
// synchronous HTTP range requests for ?src= files: lib/remote.js), and so that
// parsing and decoding never freeze the page.
//
// Two wasm modules (scripts/build-wasm.sh, issue 8 size budget): the core one (www/pkg) loads at
// once; the full one (www/pkg-full: ASTC, crunch, PVRTC, ZStandard) is loaded only when the core
// reports a texture or file needs a decoder it lacks (a `NotInBuild` error, or `needsFull()` after
// opening), then every file is reopened in it, in the same order, and the request retried.
import * as core from './pkg/texscope.js';
import { thumbnail } from './lib/thumbs.js';
import { fullModuleInit } from './wasm-build.js';
import { RemoteFile } from './lib/remote.js';

/** @typedef {import('./types').WorkerMessage} WorkerMessage */
/**
 * A reply: a value posted as it is, or a result whose buffers are transferred.
 * @typedef {{ value: unknown } | { result: import('./types').DecodedImage | import('./types').Thumb | import('./types').CompareResult | Uint8Array, transfer: Transferable[] }} Out
 */

// This file runs in a dedicated worker; the type check reads it with the DOM's types, so the
// worker scope's two members it uses are named here with their worker signatures.
const scope = /** @type {{ postMessage(message: unknown, transfer?: Transferable[]): void, onmessage: ((ev: MessageEvent<WorkerMessage>) => void) | null }} */ (
  /** @type {unknown} */ (self));

/** @type {typeof core} */
let wasm = core;
let full = false;
/** @typedef {typeof import('./pkg-full/texscope.js')} FullModule */
/** The full module once loaded (the compare view's glue is only in it). @type {FullModule | null} */
let fullModule = null;
// The instance's exports (its memory is reported to tests/browser/ranges.test.mjs).
/** @type {WebAssembly.Memory | null} */
let memory = null;
const ready = core.default().then((inst) => { memory = inst.memory; });
/** @type {import('./pkg/texscope.js').Session | null} */
let session = null;
// Two builds opened side by side for the compare view (src/web/compare.rs Builds), or null.
/** @type {import('./pkg-full/texscope.js').Builds | null} */
let builds = null;
// What the session was built from, to rebuild it in the full module.
/** @type {{ files: (File | RemoteFile)[], paths?: string[] }[]} */
const opened = [];

// Bytes and requests of remote files since the last post, by URL; posted to the page (the
// progress bar and the Info panel count them) at most every 100 ms and when a request ends.
/** @type {Map<string, [number, number]>} */
const fetched = new Map();
let fetchedPosted = 0;
/** @param {boolean} [now] post even when the last post is recent */
function postFetched(now) {
  if (!fetched.size || (!now && performance.now() - fetchedPosted < 100)) return;
  fetchedPosted = performance.now();
  scope.postMessage({ fetched: [...fetched] });
  fetched.clear();
}
/** @param {string} url @param {number} bytes */
function onFetch(url, bytes) {
  const f = fetched.get(url) ?? [0, 0];
  fetched.set(url, [f[0] + bytes, f[1] + 1]);
  postFetched();
}

/**
 * The files of an `add` as the core takes them: Files as they are, a remote file's descriptor
 * (services/sources.js) as a RemoteFile reading it by range.
 * @param {(File | import('./types').RemoteDescriptor)[]} files
 */
const sources = (files) => files.map((f) => (f instanceof File ? f : new RemoteFile(f, onFetch)));
/** @type {string | undefined} */
let profile;
/** @type {string | undefined} */
let unityVersion;
/** @type {string | undefined} */
let platform;
// The container package a share link names (src/lib.rs OpenOptions::only): only the full module
// reads containers, so the core module's session never hears it.
/** @type {string | undefined} */
let only;
// After a panic the wasm instance is unusable; the page starts a fresh worker.
let broken = false;

/** The message of error `e` (a panic's, when the core panicked). @param {unknown} e */
function message(e) {
  const panic = takePanicSafe();
  if (panic) return `Texscope hit an internal error: ${panic}. Please report it with the file.`;
  if (e instanceof Error) return e.message;
  return String(e);
}

function takePanicSafe() {
  try { return wasm.takePanic(); } catch { return null; }
}

/**
 * How far an open is, as Session.add tells it (src/lib.rs OpenStage): stage 0 = files whose first
 * bytes were read, 1 = engine passes, 2-5 = inside the Unreal pass: containers' indexes read,
 * their packages looked at, their texture packages read, then the loose files gone through; done
 * of total.
 * @typedef {(stage: number, done: number, total: number) => void} Step
 */

/**
 * The step function of request `req` (an open or a reopen): posts each step to the page, at most
 * every 50 ms within a stage (a file's probe and a container's package are a call each:
 * thousands), but always a stage's first and last step. `req.slow` (test hook, probe.openDelay)
 * holds each engine pass.
 * @param {{ id: number, slow?: number }} req
 * @returns {Step}
 */
function stepper(req) {
  let last = { stage: -1, time: 0 };
  return (stage, done, total) => {
    const now = performance.now();
    if (stage === last.stage && done < total && now - last.time < 50) return;
    last = { stage, time: now };
    scope.postMessage({ id: req.id, progress: [done, total, stage] });
    if (req.slow && stage === 1) holdFor(req.slow);
  };
}

/**
 * Rebuilds the session in the full module. `step`, when given, hears each file set's reopening.
 * @param {Step} [step]
 */
async function switchToFull(step) {
  const mod = await import('./pkg-full/texscope.js');
  // The relaxed-SIMD build where the engine has it (www/wasm-build.js).
  memory = (await mod.default(fullModuleInit())).memory;
  const next = new mod.Session();
  if (profile !== undefined) next.setFrostbiteProfile(profile);
  if (unityVersion !== undefined) next.setUnityVersion(unityVersion);
  if (platform !== undefined) next.setPlatform(platform);
  if (only !== undefined) next.setOnly(only);
  for (const { files, paths } of opened) next.add(files, paths?.join('\0'), step);
  session?.free();
  session = next;
  wasm = mod;
  fullModule = mod;
  full = true;
}

// The demo files, written at build time by scripts/demos.mjs with the full module's builders and
// served with the page (public/demos): `<id>.json` lists the names, `<id>/<n>` holds file n.
/** @param {string} id @returns {Promise<import('./types').DemoFile[]>} */
async function demoFiles(id) {
  if (!/^[a-z0-9-]+$/.test(id)) throw new Error(`there is no demo "${id}"`);
  const base = new URL('../demos/', self.location.href);
  const get = async (/** @type {string} */ path) => {
    const res = await fetch(new URL(path, base));
    if (!res.ok) throw new Error(`demo ${id}: ${path} could not be fetched (${res.status}); run npm run build`);
    return res;
  };
  /** @type {string[]} */
  const names = await (await get(`${id}.json`)).json();
  return Promise.all(names.map(async (name, i) => ({ name, data: new Uint8Array(await (await get(`${id}/${i}`)).arrayBuffer()) })));
}

/**
 * The full module and its session, loaded first when need be (the compare view's glue is only
 * there: src/web/mod.rs, for the core module's size).
 */
async function needFull() {
  if (!full) await switchToFull();
  // switchToFull made both the full module's.
  return { mod: /** @type {FullModule} */ (fullModule), session: /** @type {import('./pkg-full/texscope.js').Session} */ (session) };
}

/**
 * A comparison as the glue returns it (src/web/compare.rs: an untyped JsValue to the bindings).
 * @param {unknown} r @returns {import('./types').CompareResult}
 */
const compared = (r) => /** @type {import('./types').CompareResult} */ (r);

/** The builds open for the compare view; throws when none are. */
function requireBuilds() {
  if (!builds) throw new Error('no builds are open: open an OLD and a NEW set first');
  return builds;
}


/**
 * Every texture and problem of the files open so far, and `needsKey`: the encrypted containers
 * no key given so far opens (only the full module reads containers; the core one reports them
 * NotInBuild, which switches to the full one here). `step` hears the reopening's progress.
 * @param {Step} [step]
 * @returns {Promise<Out>}
 */
async function catalog(step) {
  if (!full && live().needsFull()) await switchToFull(step);
  const s = live();
  const needsKey = full ? (await needFull()).session.needsKey() : [];
  const narrowed = full ? (await needFull()).session.narrowed() : false;
  return { value: { textures: s.textures(), problems: s.problems(), needsKey, narrowed } };
}

// AES keys (issue 17) live in the Session's options, in this worker's memory only: never posted
// back, logged or put in an error (the core's key errors never repeat the text given). `keys` is
// the list a restarted or pool worker is given before its files (www/services/keys.js).
/** @param {string[] | undefined} keys @param {Step} [step] hears the reopenings */
async function addKeys(keys, step) {
  if (!keys?.length) return;
  if (!full) await switchToFull(step);
  const { session: s } = await needFull();
  for (const k of keys) s.addAesKey(k, step);
}

/**
 * Test hook (probe.openDelay): holds this thread for `ms`, as a slow open would, so a test sees
 * the progress bar mid-open and cancels it (the page's Cancel ends this worker).
 * @param {number} ms
 */
function holdFor(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* busy: the wasm call this stands for blocks the same way */ }
}

/** The session (made before any request runs). */
const live = () => /** @type {import('./pkg/texscope.js').Session} */ (session);

/**
 * @param {WorkerMessage} req
 * @param {Step} step the steps of an open or a reopen (add, profile, unityVersion, platform,
 *   aesKey): each posts them while its wasm call runs; a container the core module cannot read is
 *   read again by the full module (catalog), which posts its own.
 * @returns {Promise<Out>}
 */
async function run(req, step) {
  const session = live();
  switch (req.op) {
    case 'add':
      // A worker started after a crash is told the profile the files were open with.
      if (req.profile !== undefined) session.setFrostbiteProfile(profile = req.profile);
      if (req.unityVersion !== undefined) session.setUnityVersion(unityVersion = req.unityVersion);
      if (req.platform !== undefined) session.setPlatform(platform = req.platform);
      await addKeys(req.keys);
      if (req.only !== undefined && (req.only || undefined) !== only) {
        only = req.only || undefined;
        if (full) (await needFull()).session.setOnly(only);
      }
      // (live(): the keys may have moved the session to the full module.)
      {
        const files = sources(req.files);
        live().add(files, req.paths?.join('\0'), step); // NUL-joined: see Session.add
        opened.push({ files, paths: req.paths });
      }
      return catalog(step);
    case 'profile':
      session.setFrostbiteProfile(req.profile, step);
      profile = req.profile;
      return catalog(step);
    case 'unityVersion':
      session.setUnityVersion(req.version, step);
      unityVersion = req.version;
      return catalog(step);
    case 'platform':
      session.setPlatform(req.platform, step);
      platform = req.platform;
      return catalog(step);
    case 'only':
      // A link's narrowed open widened to every package ("" = all), or narrowed again.
      only = req.only || undefined;
      (await needFull()).session.setOnly(only, step);
      return catalog(step);
    case 'aesKey':
      // Reopens every file with the key (in the full module: loading it reopens them there first);
      // the page tells which containers it opened from needsKey.
      await addKeys([req.key], step);
      return catalog(step);
    case 'profiles':
      return { value: wasm.frostbiteProfiles() };
    case 'remoteKept': {
      // What this worker fetched of each remote file (the same file version: every answer was
      // checked against its first request's validators), for the pool's workers to start from.
      /** @type {Map<string, import('./types').KeptRange[]>} */
      const byUrl = new Map();
      for (const o of opened) {
        for (const f of o.files) if (f instanceof RemoteFile) byUrl.set(f.url, [...(byUrl.get(f.url) ?? []), ...f.kept]);
      }
      return { value: [...byUrl] };
    }
    case 'readStats': // [bytes, reads, wasm memory bytes] (tests/browser/ranges.test.mjs)
      return { value: [...wasm.readStats(), /** @type {WebAssembly.Memory} */ (memory).buffer.byteLength] };
    case 'panic':
      session.debugPanic();
      return { value: null };
    case 'decode': {
      // With `stored`, the stored bytes come from the same read (inspector block mode, GPU path).
      const img = session.decode(req.texture, req.mip, req.slice, !!req.stored);
      return { result: img, transfer: img.stored ? [img.data.buffer, img.stored.buffer] : [img.data.buffer] };
    }
    case 'thumb': {
      // The grid's thumbnail: the editor's own thumbnail of the asset when its package has one
      // (decoded by the core's Catalog::decode_thumbnail; PNG/JPEG decoders missing from this
      // module are NotInBuild and `handle` retries in the full one), else one small mip (the page
      // picks it); reduced here to a few KiB.
      const img = typeof req.thumbnail === 'number' ? session.thumbnail(req.thumbnail) : session.decode(req.texture, req.mip, 0, false);
      const t = req.max ? thumbnail(img, req.max) : thumbnail(img);
      return { result: t, transfer: [t.data.buffer] };
    }
    case 'exportDds': {
      const bytes = session.exportDds(req.texture);
      return { result: bytes, transfer: [bytes.buffer] };
    }
    case 'surfaceBytes': {
      const bytes = session.surfaceBytes(req.texture, req.mip, req.slice);
      return { result: bytes, transfer: [bytes.buffer] };
    }
    case 'vtLayout':
      return { value: session.vtLayout(req.texture) };
    case 'tiles': {
      // A rectangle of VT tiles (www/lib/pool.js runs these on every worker of the pool).
      const img = session.decodeTiles(req.texture, req.mip, req.layer, req.x, req.y, req.w, req.h);
      return { result: img, transfer: [img.data.buffer] };
    }
    case 'vtGrid':
      return { value: session.vtGrid(req.texture, req.mip, req.layer) };
    case 'demo':
      return { value: await demoFiles(req.demo) };
    // The compare view (issue 21): its glue is in the full module only (its size, src/web/mod.rs).
    case 'compare': {
      const r = compared((await needFull()).session.compare(req.a, req.aMip, req.aSlice, req.b, req.bMip ?? undefined, req.bSlice));
      return { result: r, transfer: [r.a.data.buffer, r.b.data.buffer] };
    }
    case 'builds': {
      const { mod } = await needFull();
      builds?.free();
      builds = null;
      builds = new mod.Builds(req.old, req.oldNames, req.new, req.newNames, req.keys);
      return { value: { pairs: builds.pairs(), problems: builds.problems(), needsKey: builds.needsKey() } };
    }
    case 'classify': {
      // Pairs from..from+count, each from its stored bytes (no decode).
      const open = requireBuilds();
      const out = [];
      const end = Math.min(open.pairCount(), req.from + req.count);
      for (let i = req.from; i < end; i++) out.push(open.classify(i));
      return { value: out };
    }
    case 'comparePair': {
      const r = compared(requireBuilds().compare(req.pair, req.mip, req.slice));
      return { result: r, transfer: [r.a.data.buffer, r.b.data.buffer] };
    }
    case 'diffRamp':
      return { value: (await needFull()).mod.diffRamp() };
    default:
      throw new Error(`unknown request ${/** @type {{ op: string }} */ (req).op}`);
  }
}

/** @param {WorkerMessage} req */
async function handle(req) {
  await ready;
  session ??= new wasm.Session();
  const step = stepper(req);
  try {
    return await run(req, step);
  } catch (e) {
    // A decoder the core module leaves out: retry once in the full module (a console platform
    // chosen in the core one comes here; the reopening's steps go on).
    if (full || /** @type {Error} */ (e)?.name !== 'NotInBuild') throw e;
    await switchToFull(step);
    return run(req, step);
  }
}

scope.onmessage = async (ev) => {
  const req = ev.data;
  if (broken) {
    scope.postMessage({ id: req.id, ok: false, fatal: true, error: 'the decoder stopped after an internal error' });
    return;
  }
  try {
    const out = await handle(req);
    postFetched(true); // before the reply: the page counts a read before it shows what it read
    // When the reply left, on the clock both threads share (the page's open-path stages).
    if ('result' in out) {
      if ('stages' in out.result && out.result.stages) out.result.posted = performance.timeOrigin + performance.now();
      scope.postMessage({ id: req.id, ok: true, value: out.result }, out.transfer);
    } else scope.postMessage({ id: req.id, ok: true, value: out.value });
  } catch (e) {
    // A wasm trap (panic) is a WebAssembly.RuntimeError; a JsError from the core is a plain Error.
    const fatal = e instanceof WebAssembly.RuntimeError;
    if (fatal) broken = true;
    postFetched(true);
    scope.postMessage({ id: req.id, ok: false, fatal, error: message(e) });
  }
};
