// The decode worker: owns the wasm Session (the catalog of every file opened so far). Runs in a
// dedicated worker because the core reads files synchronously (FileReaderSync), and so that
// parsing and decoding never freeze the page.
//
// Two wasm modules (scripts/build-wasm.sh, issue 8 size budget): the core one (www/pkg) loads at
// once; the full one (www/pkg-full: ASTC, crunch, PVRTC, ZStandard) is loaded only when the core
// reports a texture or file needs a decoder it lacks (a `NotInBuild` error, or `needsFull()` after
// opening), then every file is reopened in it, in the same order, and the request retried.
import * as core from './pkg/texscope.js';
import { thumbnail } from './lib/thumbs.js';

let wasm = core;
let full = false;
// The instance's exports (its memory is reported to tests/browser/ranges.test.mjs).
let memory = null;
const ready = core.default().then((inst) => { memory = inst.memory; });
let session = null;
// Two builds opened side by side for the compare view (src/web/compare.rs Builds), or null.
let builds = null;
// What the session was built from, to rebuild it in the full module.
const opened = [];
let profile;
let unityVersion;
// After a panic the wasm instance is unusable; the page starts a fresh worker.
let broken = false;

function message(e) {
  const panic = takePanicSafe();
  if (panic) return `Texscope hit an internal error: ${panic}. Please report it with the file.`;
  if (e instanceof Error) return e.message;
  return String(e);
}

function takePanicSafe() {
  try { return wasm.takePanic(); } catch { return null; }
}

async function switchToFull() {
  const mod = await import('./pkg-full/texscope.js');
  memory = (await mod.default()).memory;
  const next = new mod.Session();
  if (profile !== undefined) next.setFrostbiteProfile(profile);
  if (unityVersion !== undefined) next.setUnityVersion(unityVersion);
  for (const { files, paths } of opened) next.add(files, paths?.join('\0'));
  session?.free();
  session = next;
  wasm = mod;
  full = true;
}

// The demo files, written at build time by scripts/demos.mjs with the full module's builders and
// served with the page (public/demos): `<id>.json` lists the names, `<id>/<n>` holds file n.
async function demoFiles(id) {
  if (!/^[a-z0-9-]+$/.test(id)) throw new Error(`there is no demo "${id}"`);
  const base = new URL('../demos/', self.location.href);
  const get = async (path) => {
    const res = await fetch(new URL(path, base));
    if (!res.ok) throw new Error(`demo ${id}: ${path} could not be fetched (${res.status}); run npm run build`);
    return res;
  };
  const names = await (await get(`${id}.json`)).json();
  return Promise.all(names.map(async (name, i) => ({ name, data: new Uint8Array(await (await get(`${id}/${i}`)).arrayBuffer()) })));
}

// The compare view's glue lives in the full module.
async function needFull() {
  if (!full) await switchToFull();
}

function requireBuilds() {
  if (!builds) throw new Error('no builds are open: open an OLD and a NEW set first');
  return builds;
}

// `needsKey`: the encrypted containers no key given so far opens (only the full module reads
// containers; the core one reports them NotInBuild, which switches to the full one above).
async function catalog() {
  if (!full && session.needsFull()) await switchToFull();
  return { textures: session.textures(), problems: session.problems(), needsKey: full ? session.needsKey() : [] };
}

// AES keys (issue 17) live in the Session's options, in this worker's memory only: never posted
// back, logged or put in an error (the core's key errors never repeat the text given). `keys` is
// the list a restarted or pool worker is given before its files (www/services/keys.js).
async function addKeys(keys) {
  if (!keys?.length) return;
  await needFull();
  for (const k of keys) session.addAesKey(k);
}

async function run(req) {
  switch (req.op) {
    case 'add':
      // A worker started after a crash is told the profile the files were open with.
      if (req.profile !== undefined) session.setFrostbiteProfile(profile = req.profile);
      if (req.unityVersion !== undefined) session.setUnityVersion(unityVersion = req.unityVersion);
      await addKeys(req.keys);
      session.add(req.files, req.paths?.join('\0')); // NUL-joined: see Session.add
      opened.push({ files: req.files, paths: req.paths });
      return catalog();
    case 'profile':
      session.setFrostbiteProfile(req.profile);
      profile = req.profile;
      return catalog();
    case 'unityVersion':
      session.setUnityVersion(req.version);
      unityVersion = req.version;
      return catalog();
    case 'aesKey':
      // Reopens every file with the key; the page tells which containers it opened from needsKey.
      await addKeys([req.key]);
      return catalog();
    case 'profiles':
      return { value: wasm.frostbiteProfiles() };
    case 'readStats': // [bytes, reads, wasm memory bytes] (tests/browser/ranges.test.mjs)
      return { value: [...wasm.readStats(), memory.buffer.byteLength] };
    case 'panic':
      session.debugPanic();
      return { value: null };
    case 'decode': {
      // With `stored`, the stored bytes come from the same read (inspector block mode, GPU path).
      const img = session.decode(req.texture, req.mip, req.slice, !!req.stored);
      return { result: img, transfer: img.stored ? [img.data.buffer, img.stored.buffer] : [img.data.buffer] };
    }
    case 'thumb': {
      // The grid's thumbnail: one small mip (the page picks it) reduced here to a few KiB.
      const t = thumbnail(session.decode(req.texture, req.mip, 0, false));
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
      await needFull();
      const r = session.compare(req.a, req.aMip, req.aSlice, req.b, req.bMip ?? undefined, req.bSlice);
      return { result: r, transfer: [r.a.data.buffer, r.b.data.buffer] };
    }
    case 'builds': {
      await needFull();
      builds?.free();
      builds = null;
      builds = new wasm.Builds(req.old, req.oldNames, req.new, req.newNames);
      return { value: { pairs: builds.pairs(), problems: builds.problems() } };
    }
    case 'classify': {
      // Pairs from..from+count, each from its stored bytes (no decode).
      const out = [];
      const end = Math.min(requireBuilds().pairCount(), req.from + req.count);
      for (let i = req.from; i < end; i++) out.push(builds.classify(i));
      return { value: out };
    }
    case 'comparePair': {
      const r = requireBuilds().compare(req.pair, req.mip, req.slice);
      return { result: r, transfer: [r.a.data.buffer, r.b.data.buffer] };
    }
    case 'diffRamp':
      await needFull();
      return { value: wasm.diffRamp() };
    default:
      throw new Error(`unknown request ${req.op}`);
  }
}

async function handle(req) {
  await ready;
  session ??= new wasm.Session();
  try {
    return await run(req);
  } catch (e) {
    // A decoder the core module leaves out: retry once in the full module.
    if (full || e?.name !== 'NotInBuild') throw e;
    await switchToFull();
    return run(req);
  }
}

self.onmessage = async (ev) => {
  const req = ev.data;
  if (broken) {
    self.postMessage({ id: req.id, ok: false, fatal: true, error: 'the decoder stopped after an internal error' });
    return;
  }
  try {
    const out = await handle(req);
    // When the reply left, on the clock both threads share (the page's open-path stages).
    if (out.result?.stages) out.result.posted = performance.timeOrigin + performance.now();
    if (out.transfer) self.postMessage({ id: req.id, ok: true, value: out.result }, out.transfer);
    else self.postMessage({ id: req.id, ok: true, value: 'value' in out ? out.value : out });
  } catch (e) {
    // A wasm trap (panic) is a WebAssembly.RuntimeError; a JsError from the core is a plain Error.
    const fatal = e instanceof WebAssembly.RuntimeError;
    if (fatal) broken = true;
    self.postMessage({ id: req.id, ok: false, fatal, error: message(e) });
  }
};
