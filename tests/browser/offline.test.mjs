// Issue 33 in Debian chromium: the production build as an app. dist/ is copied to a temporary folder
// and served by the tests' plain static server under a sub-path (/texscope/, as a project page is),
// so a test can change the copy as a new deployment would and can take it away entirely.
//
// - Offline: one visit, then the browser context's offline switch AND the files gone from the server
//   (every request would fail or 404), a reload, every demo, dropped files of each engine (the full
//   wasm module included) and an export. Expected values, and where they come from:
//   * each demo's texels offline equal the same page's texels online in the same run (the demos'
//     own correctness is demos.test.mjs's), and the UE5 VT demo's hole tile is magenta
//     (src/fixtures/demo.rs VT_HOLES, as static-host.test.mjs checks);
//   * an ASTC 4x4 .dds (full module): every texel equals ARM astcenc's own decode
//     (tests/vectors/astc_4x4.bin, tests/vectors/gen_astc.py), as lazy.test.mjs checks online;
//   * Unity: UISprite of a player Data folder (sharedassets0.assets + .resS): the SHA-256 of its
//     RGBA equals UnityPy 1.25.4's (shared/samples/unity/unitypy_census.json rgba_sha256);
//   * Unreal: T_BC1 read from an IoStore container (.utoc + .ucas, full module) equals, texel for
//     texel, the loose copy of the same package (the set's _extracted/ folder) opened online;
//   * the DDS export of a demo offline is byte for byte the one made online.
// - A cached copy cut short (a wasm file whose cache entry is truncated) is dropped and fetched anew.
// - launchQueue: files handed over as the File Handling API does open together (siblings pair up);
//   one that cannot be read is named in the error bar.
// - A new deployment (the test's redeploy: every hashed script, style and wasm module renamed, each
//   wasm module with other bytes): the page says an update is ready, a plain reload (page.reload,
//   as F5; then location.reload) in the only tab starts it, and the page, its scripts and every
//   wasm module loaded after are the new build's (names, and the wasm bytes Playwright reads back);
//   a demo decodes to the same texels as in build 1; the cache of the build before last is deleted;
//   a new tab opened while the update waits (a visit, not a reload) gets the old build.
// - Two tabs: a reload in either leaves the update waiting; one tab's button starts it there; the
//   other, left on build 1 under build 2's worker with build 1's files gone from the server, decodes
//   ASTC with build 1's full module (astcenc's texels) and its button then reloads into build 2.
// - A failed install: a precached file missing on the first visit (no worker, no cache, the page
//   works from the network; installs once the file is back), and an update whose transfer of one
//   file breaks off half-way (build 1 stays, no notice, no build 2 cache; installs once whole);
//   a sw.js-only change (same cache name) failing to install leaves build 2's cache as it was.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve, cuts } from './server.mjs';
import { header, fourcc } from './dds-fixtures.mjs';
import { writeServiceWorker } from '../../scripts/precache.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const WASM = {
  core: join(ROOT, 'www/pkg/texscope_bg.wasm'),
  full: join(ROOT, 'www/pkg-full/texscope_bg.wasm'),
  relaxed: join(ROOT, 'www/pkg-full/texscope_bg_relaxed.wasm'),
};
const TIMEOUT = 120000;
// As tests/browser/harness.mjs has them; that module is not imported, as it would start a second
// browser and server for pages this file does not open.
const OUT = join(ROOT, 'test-output');
const SAMPLES = [join(ROOT, '../shared/samples'), '/work/shared/samples'].find((d) => existsSync(d));
mkdirSync(OUT, { recursive: true });

const root = mkdtempSync(join(tmpdir(), 'texscope-offline-'));
const host = await serve(root);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-sync', '--disable-quic'],
});
after(async () => {
  await browser.close();
  await host.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh copy of dist/ served at /<name>/; returns its folder and the page's URL. @param {string} name */
function deploy(name) {
  const dir = join(root, name);
  cpSync(DIST, dir, { recursive: true });
  return { dir, url: `${host.url}${name}/index.html` };
}

/** A new browser context and page on `url`; `problems` collects page errors and console errors. */
async function open(t, url, init) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  t.after(() => context.close());
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  // Which file a console's "Failed to load resource" was.
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`); });
  await page.goto(url);
  return { context, page, problems };
}

const waitState = (page, state) => page.waitForFunction((s) => document.body.dataset.state === s, state, { timeout: TIMEOUT });
const view = (page) => page.evaluate(() => window.texscope.view());
const select = (page, v) => page.evaluate((v) => window.texscope.select(v), v);

/** Calls `fn(arg)` in the page every 250 ms until it returns something truthy, which it returns. */
async function poll(page, fn, arg) {
  for (const end = Date.now() + TIMEOUT; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const v = await page.evaluate(fn, arg);
    if (v) return v;
  }
  throw new Error(`timed out: ${fn}`);
}

/** Waits until the page is controlled by its worker and the worker's cache holds every file but
 * the full wasm build this browser does not load; returns the cache's name. */
async function cached(page) {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: TIMEOUT });
  return poll(page, async () => {
    const names = (await caches.keys()).filter((k) => k.startsWith('texscope-'));
    const name = names[names.length - 1];
    if (!name) return false;
    const urls = (await (await caches.open(name)).keys()).map((r) => r.url);
    // The idle-time warm-up stored the relaxed-SIMD full module (Chromium validates relaxed SIMD).
    return urls.some((u) => /texscope_bg_relaxed-[\w-]+\.wasm$/.test(u)) && urls.some((u) => u.endsWith('/index.html')) ? name : false;
  });
}

/** Every texel of what is shown, rows top first, as one hex string (with the size). */
async function texels(page) {
  const bytes = await page.evaluate(() => {
    const v = window.texscope.view();
    const out = [];
    for (let y = 0; y < v.height; y++) for (let x = 0; x < v.width; x++) out.push(...window.texscope.pixel(x, y));
    return out;
  });
  const v = await view(page);
  return { texture: v.texture, width: v.width, height: v.height, sha256: createHash('sha256').update(Buffer.from(bytes)).digest('hex') };
}

const DEMOS = ['ue5-vt', 'ue-classic', 'frostbite-cas', 'hdr', 'cubemap'];
/** Opens demo `id` from the header's menu. */
async function openDemo(page, id) {
  await page.click('[data-testid=demo-button]');
  await page.click(`#demo-menu [data-testid=demo-${id}]`);
  // The click set the state to loading (services/demos.js open), so 'ready' is this demo's.
  await waitState(page, 'ready');
}

/** Loads the page at `url` with ?demo=`id` (an address with a query, which the worker must serve too). */
async function gotoDemo(page, url, id) {
  await page.goto(`${url}?demo=${id}`);
  await waitState(page, 'ready');
}

async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
}

/** The DDS export of what is shown, as bytes. */
async function exportDds(page) {
  await page.click('[data-testid=export-button]');
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: TIMEOUT }), page.click('[data-testid=export-dds]')]);
  return readFileSync(await dl.path());
}

/** The ASTC 4x4 vector as a DX10 .dds and astcenc's RGBA8 of it (lazy.test.mjs builds the same). */
function astcDds() {
  const all = readFileSync(join(ROOT, 'tests/vectors/astc_4x4.bin'));
  const [w, h] = [all.readUInt32LE(0), all.readUInt32LE(4)];
  const nb = Math.ceil(w / 4) * Math.ceil(h / 4) * 16;
  const blocks = all.subarray(8, 8 + nb);
  // DXGI 134 = ASTC_4X4_UNORM in the D3D12 numbering ASTC-in-DDS writers use (src/dds.rs).
  const dds = Buffer.concat([header({ width: w, height: h, mips: 1, pitchOrLinearSize: nb, linear: true,
    pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format: 134, arraySize: 1 } }), blocks]);
  return { dds, w, h, want: createHash('sha256').update(all.subarray(8 + nb, 8 + nb + w * h * 4)).digest('hex') };
}

/** Drops the ASTC 4x4 .dds (the full module decodes it) on `page`; checks its texels against astcenc's. */
async function astcMatches(page, message) {
  const astc = astcDds();
  await drop(page, [['astc4x4.dds', astc.dds]]);
  await waitState(page, 'ready');
  await select(page, { texture: 'astc4x4', mip: 0, slice: 0 });
  const got = await texels(page);
  assert.deepEqual([got.width, got.height, got.sha256], [astc.w, astc.h, astc.want], message);
}

const UNITY = SAMPLES && join(SAMPLES, 'unity/liuruihhh_unityrenderer/Build/UnityRenderer_Data');
const UE58 = SAMPLES && join(SAMPLES, 'unreal/cue4parse-fixtures/UE5_8');
const UTOC = 'CUE4ParseFixtures-Minimal-Oodle-Windows';
const samplesSkip = !SAMPLES || !existsSync(UNITY) || !existsSync(UE58) ? 'the Unity and UE 5.8 samples are not here' : false;

test('after one visit the page reloads offline, opens every demo and dropped files of each engine, and exports', { skip: samplesSkip }, async (t) => {
  const { dir, url } = deploy('app');
  const { context, page, problems } = await open(t, url);
  const cache = await cached(page);

  // Online: each demo's texels, the DDS export of one, and T_BC1's loose copy (the reference for the
  // container read offline).
  // The same steps run online, then offline: each demo in a page of its own (later demos join the
  // open files and keep the view), the DDS export of one.
  const demosAndExport = async () => {
    const seen = {};
    for (const id of DEMOS) {
      await gotoDemo(page, url, id);
      seen[id] = await texels(page);
      // The UE5 VT demo's hole at tile (1, 2) of mip 0 shows its magenta fallback.
      if (id === 'ue5-vt') assert.deepEqual(await page.evaluate(() => window.texscope.pixel(100, 150)), [255, 0, 255, 255]);
    }
    await gotoDemo(page, url, 'ue-classic');
    return { seen, dds: await exportDds(page) };
  };
  const online = await demosAndExport();
  assert.deepEqual(Object.values(online.seen).map((v) => v.texture), ['T_Landscape_VT', 'T_Bricks_D', 'crate_d', 'sky_hdr', 'sky_cube']);
  await page.goto(url);
  await drop(page, [['T_BC1.uasset', readFileSync(join(UE58, '_extracted/IoStore/Unversioned/T_BC1.uasset'))]]);
  await page.waitForFunction(() => window.texscope.textures().some((x) => x.name === 'T_BC1'), null, { timeout: TIMEOUT });
  await select(page, { texture: 'T_BC1', mip: 0, slice: 0 });
  const looseBc1 = await texels(page);

  // The network goes away: the browser's offline switch, and the files gone from the server.
  await context.setOffline(true);
  renameSync(dir, `${dir}-gone`);
  t.after(() => renameSync(`${dir}-gone`, dir));
  await page.reload();
  await page.waitForFunction(() => window.texscope !== undefined, null, { timeout: TIMEOUT });
  assert.equal(await page.title(), 'Texscope');
  // A demo from the header's menu.
  await openDemo(page, 'cubemap');
  assert.deepEqual(await texels(page), online.seen.cubemap);

  const offline = await demosAndExport();
  assert.deepEqual(offline.seen, online.seen, 'every demo offline shows the texels it showed online');
  assert.ok(offline.dds.equals(online.dds), 'the DDS export offline equals the one made online');

  // Dropped files of each engine, the full module's among them.
  await astcMatches(page, 'ASTC offline equals astcenc');

  await drop(page, [['sharedassets0.assets', readFileSync(join(UNITY, 'sharedassets0.assets'))],
    ['sharedassets0.assets.resS', readFileSync(join(UNITY, 'sharedassets0.assets.resS'))]]);
  await page.waitForFunction(() => window.texscope.textures().some((x) => x.name === 'UISprite'), null, { timeout: TIMEOUT });
  await select(page, { texture: 'UISprite', mip: 0, slice: 0 });
  const census = JSON.parse(readFileSync(join(SAMPLES, 'unity/unitypy_census.json'), 'utf8'));
  const ui = census.find((e) => e.file === 'liuruihhh_unityrenderer/Build/UnityRenderer_Data/sharedassets0.assets')
    .textures.find((x) => x.name === 'UISprite');
  assert.equal((await texels(page)).sha256, ui.rgba_sha256, 'UISprite offline equals UnityPy');

  const io = join(UE58, 'IoStore/Unversioned/Oodle');
  await drop(page, [[`${UTOC}.utoc`, readFileSync(join(io, `${UTOC}.utoc`))], [`${UTOC}.ucas`, readFileSync(join(io, `${UTOC}.ucas`))]]);
  await page.waitForFunction((f) => window.texscope.textures().some((x) => x.name === 'T_BC1' && x.file === f), `${UTOC}.utoc`, { timeout: TIMEOUT });
  const index = await page.evaluate((f) => window.texscope.textures().findIndex((x) => x.name === 'T_BC1' && x.file === f), `${UTOC}.utoc`);
  await select(page, { texture: index, mip: 0, slice: 0 });
  assert.deepEqual(await texels(page), looseBc1, 'T_BC1 from the IoStore container offline equals its loose copy');

  assert.equal(await page.locator('[data-testid=error]').isVisible(), false);
  // Nothing was asked of the network that the cache did not answer.
  assert.deepEqual(problems.filter((p) => !p.includes('favicon')), []);
  assert.match(cache, /^texscope-[0-9a-f]{16}$/);
});

test('a cached wasm cut short is dropped and fetched again', async (t) => {
  const { url } = deploy('cut');
  const { page, problems } = await open(t, url);
  const cache = await cached(page);
  // Cut the core module's cached copy to half, as a write broken off would leave it.
  const core = await page.evaluate(async (name) => {
    const c = await caches.open(name);
    const req = (await c.keys()).find((r) => /\/texscope_bg-[\w-]+\.wasm$/.test(r.url) && !r.url.includes('relaxed'));
    const body = await (await c.match(req)).arrayBuffer();
    await c.put(req, new Response(body.slice(0, body.byteLength >> 1), { headers: { 'content-type': 'application/wasm' } }));
    return { url: req.url, size: body.byteLength };
  }, cache);
  await page.reload();
  await openDemo(page, 'ue-classic');
  assert.equal((await view(page)).texture, 'T_Bricks_D');
  const size = await page.evaluate(async ([name, u]) => (await (await (await caches.open(name)).match(u)).arrayBuffer()).byteLength, [cache, core.url]);
  assert.equal(size, core.size, 'the whole module is cached again');
  assert.deepEqual(problems, []);
});

/**
 * A stand-in for the File Handling API's window.launchQueue, which keeps the page's consumer.
 * Chromium has the real one (a read-only attribute, whose consumer is called only in an installed
 * app launched with files), so it is shadowed on the window.
 */
const LAUNCH_QUEUE = () => {
  Object.defineProperty(window, 'launchQueue', { configurable: true, value: { setConsumer(fn) { window.launchConsumer = fn; } } });
};

test('files launched from the operating system open together; an unreadable one is named', async (t) => {
  const { url } = deploy('launch');
  const { page, problems } = await open(t, url, LAUNCH_QUEUE);
  await page.waitForFunction(() => typeof window.launchConsumer === 'function', null, { timeout: TIMEOUT });
  // The UE mip-chain demo's three files (.uasset, .uexp, .ubulk) handed over as one launch: mips 0-1
  // live in the .ubulk, so mip 0 shows only when the siblings were opened together.
  await page.evaluate(async () => {
    const files = await window.texscope.demoFiles('ue-classic');
    const handles = files.map((f) => ({ kind: 'file', name: f.name, getFile: async () => new File([new Uint8Array(f.data)], f.name) }));
    await window.launchConsumer({ files: handles });
  });
  await waitState(page, 'ready');
  await select(page, { texture: 'T_Bricks_D', mip: 0, slice: 0 });
  const launched = await texels(page);
  assert.deepEqual([launched.texture, launched.width, launched.height], ['T_Bricks_D', 512, 512]);
  // The same files opened as the demo: the same texels.
  await openDemo(page, 'ue-classic');
  await select(page, { texture: 'T_Bricks_D', mip: 0, slice: 0 });
  assert.deepEqual(await texels(page), launched);

  // A launch with a file that is gone (getFile rejects as Chromium does: NotFoundError) and a
  // readable one: the readable one opens, the other is named.
  await page.evaluate(async () => {
    const [dds] = await window.texscope.demoFiles('hdr');
    const gone = { kind: 'file', name: 'Moved_Away.uasset', getFile: async () => { throw new DOMException('A requested file or directory could not be found.', 'NotFoundError'); } };
    const ok = { kind: 'file', name: dds.name, getFile: async () => new File([new Uint8Array(dds.data)], dds.name) };
    await window.launchConsumer({ files: [gone, ok] });
  });
  const error = await page.textContent('[data-testid=error]');
  assert.match(error, /Moved_Away\.uasset/);
  assert.ok(await page.evaluate(() => window.texscope.textures().some((x) => x.name === 'sky_hdr')));
  // Only a file that cannot be read: the error bar, no blank page.
  const { page: p2 } = await open(t, url, LAUNCH_QUEUE);
  await p2.waitForFunction(() => typeof window.launchConsumer === 'function', null, { timeout: TIMEOUT });
  await p2.evaluate(() => window.launchConsumer({ files: [{ kind: 'file', name: 'Locked.pak', getFile: async () => { throw new DOMException('denied', 'NotAllowedError'); } }] }));
  assert.match(await p2.textContent('[data-testid=error]'), /Could not read this file: Locked\.pak/);
  assert.equal(await p2.isVisible('[data-testid=demo-button]'), true);
  assert.deepEqual(problems, []);
});

/**
 * A wasm module with a custom section `texscope-test-build` holding `build` appended: the same code,
 * other bytes (a new deployment's module, as a rebuild of changed sources would give).
 * @param {Buffer} wasm @param {string} build
 */
function tagWasm(wasm, build) {
  const payload = Buffer.concat([Buffer.from([19]), Buffer.from('texscope-test-build'), Buffer.from(build)]);
  // Section id 0 (custom) and its size, one LEB128 byte each while the payload is under 128 bytes.
  return Buffer.concat([wasm, Buffer.from([0, payload.length]), payload]);
}

/** The wasm sources (www/pkg*) each deployment folder's sw.js was written against. */
const sources = new Map();

/**
 * Makes a new deployment of `dir` as a rebuild would: index.html marked `build`; every hashed
 * script, style and wasm module under a new name (`-b<build>` before the extension; each wasm
 * with other bytes, tagWasm), every reference to them changed, the old names gone from the
 * server; sw.js written with the new list. Returns the new cache's name.
 */
function redeploy(dir, build) {
  const assets = join(dir, 'assets');
  const renamed = new Map();
  for (const name of readdirSync(assets)) {
    if (/\.(js|css|wasm)$/.test(name)) renamed.set(name, name.replace(/(-b\d+)?\.(js|css|wasm)$/, `-b${build}.$2`));
  }
  // The wasm sources of this deployment, tagged as their copies in dist/ are (precache.mjs tells
  // which module is which by comparing their bytes).
  const before = sources.get(dir) ?? WASM;
  const kinds = new Map(Object.entries(before).map(([kind, path]) => [createHash('sha256').update(readFileSync(path)).digest('hex'), kind]));
  const after = {};
  for (const [old, name] of renamed) {
    let body = readFileSync(join(assets, old));
    if (old.endsWith('.wasm')) {
      const kind = kinds.get(createHash('sha256').update(body).digest('hex'));
      body = tagWasm(body, build);
      after[kind] = join(root, `${name}.${kind}.source`);
      writeFileSync(after[kind], body);
    } else {
      let text = body.toString('utf8');
      for (const [a, b] of renamed) text = text.replaceAll(a, b);
      body = Buffer.from(text);
    }
    rmSync(join(assets, old));
    writeFileSync(join(assets, name), body);
  }
  sources.set(dir, after);
  for (const html of ['index.html', 'bench.html']) {
    let text = readFileSync(join(dir, html), 'utf8');
    for (const [a, b] of renamed) text = text.replaceAll(a, b);
    if (html === 'index.html') text = text.replace(/<meta name="texscope-test-build"[^>]*>|(?=<\/head>)/, `<meta name="texscope-test-build" content="${build}">`);
    writeFileSync(join(dir, html), text);
  }
  return `texscope-${writeServiceWorker(dir, join(ROOT, 'www/sw.js'), after).version}`;
}
const buildOf = (page) => page.evaluate(() => document.querySelector('meta[name=texscope-test-build]')?.getAttribute('content') ?? '1');
const ourCaches = (page) => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('texscope-')));
/** The build a hashed file belongs to, by its name ('1' for the first deployment's). */
const buildOfFile = (url) => /-b(\d+)\.\w+$/.exec(new URL(url).pathname)?.[1] ?? '1';

/**
 * Waits until `page` has loaded build `build` (a reload that starts an update passes through the
 * worker's "Updating" page, which reloads itself, so the page may change under an evaluate).
 */
async function loaded(page, build) {
  for (const end = Date.now() + TIMEOUT; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const at = await page.evaluate(() => window.texscope !== undefined && document.readyState === 'complete'
      && (document.querySelector('meta[name=texscope-test-build]')?.getAttribute('content') ?? '1')).catch(() => false);
    if (at === build) return;
  }
  throw new Error(`timed out waiting for build ${build}`);
}

/** The scripts, styles and wasm modules `page` and its workers get from now on (url and bytes). */
function fetched(page) {
  const got = [];
  page.on('response', (r) => {
    if (/\/assets\/[^/]+\.(js|css|wasm)$/.test(new URL(r.url()).pathname)) got.push({ url: r.url(), body: r.body().catch(() => null) });
  });
  return got;
}

/**
 * Checks that everything in `got` is build `build`'s: the file names, and each wasm module's bytes
 * end with that build's tag (the first build's are the bytes of www/pkg*). Returns the wasm URLs.
 */
async function allOfBuild(got, build) {
  const wasm = [];
  const read = [];
  for (const { url, body } of got) {
    assert.equal(buildOfFile(url), build, `${url} is build ${build}'s`);
    if (!url.endsWith('.wasm')) continue;
    wasm.push(new URL(url).pathname.split('/').pop());
    const bytes = await body;
    // A response Playwright could not read back (served from the worker's cache) is named only.
    if (!bytes) continue;
    const tail = bytes.subarray(-40).toString('latin1');
    assert.ok(build === '1' ? !tail.includes('texscope-test-build') : tail.endsWith(`texscope-test-build${build}`), `${url} holds build ${build}'s module`);
    read.push(wasm[wasm.length - 1]);
  }
  return { wasm, read };
}

test('a new deployment: the page says so, a plain reload starts it (its scripts and wasm), old caches go', async (t) => {
  const { dir, url } = deploy('update');
  const { context, page, problems } = await open(t, url);
  const v1 = await cached(page);
  assert.equal(await buildOf(page), '1');
  await gotoDemo(page, url, 'hdr');
  const hdr1 = await texels(page);

  const v2 = redeploy(dir, '2');
  assert.notEqual(v2, v1);
  // The next load still runs build 1 (its worker answers before the browser has seen build 2) and
  // finds build 2 waiting.
  await page.reload();
  await page.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  assert.equal(await buildOf(page), '1');
  assert.match(await page.textContent('[data-testid=update-notice]'), /A new version of Texscope is ready/);
  await page.screenshot({ path: join(OUT, 'offline-update-notice.png') });
  // Build 1 still opens a demo: its own scripts and wasm, whose names the server no longer has.
  let got = fetched(page);
  await openDemo(page, 'hdr');
  assert.deepEqual(await texels(page), hdr1);
  await allOfBuild(got, '1');

  // A new tab opened meanwhile (a visit, not a reload) does not start it: tab A runs build 1.
  const other = await context.newPage();
  await other.goto(url);
  await other.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  assert.deepEqual([await buildOf(other), await buildOf(page)], ['1', '1']);
  await other.close();

  // A plain reload (as F5) in the only tab starts build 2: its page, its scripts, its wasm.
  got = fetched(page);
  await page.reload();
  await loaded(page, '2');
  assert.equal(await page.isVisible('[data-testid=update-notice]'), false);
  assert.deepEqual(await ourCaches(page), [v1, v2], 'build 2 and the one before it');
  await openDemo(page, 'hdr');
  assert.deepEqual(await texels(page), hdr1, 'build 2 decodes the demo as build 1 did');
  const scripts = await page.evaluate(() => [...document.querySelectorAll('script[src], link[rel=stylesheet], link[rel=modulepreload]')].map((e) => e.src || e.href));
  assert.ok(scripts.length >= 2);
  for (const s of scripts) assert.equal(buildOfFile(s), '2', `${s} is build 2's`);
  const two = await allOfBuild(got, '2');
  t.diagnostic(`wasm loaded after the reload: ${two.wasm.join(', ')}; bytes checked: ${two.read.join(', ')}`);
  assert.ok(two.wasm.some((n) => /^texscope_bg-/.test(n)), `the core module was loaded (${two.wasm})`);

  // Build 2 from its own cache with the network gone.
  await context.setOffline(true);
  await page.reload();
  assert.equal(await buildOf(page), '2');
  await openDemo(page, 'hdr');
  await context.setOffline(false);

  // Build 3, found waiting by a later load: the notice again (also on the load after), then the
  // page's own location.reload() starts it; build 1's cache is deleted.
  const v3 = redeploy(dir, '3');
  await page.reload();
  await page.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  assert.equal(await buildOf(page), '2');
  got = fetched(page);
  await page.evaluate(() => location.reload());
  await loaded(page, '3');
  await openDemo(page, 'hdr');
  assert.deepEqual(await texels(page), hdr1);
  await allOfBuild(got, '3');
  await poll(page, async (want) => JSON.stringify((await caches.keys()).filter((k) => k.startsWith('texscope-'))) === want,
    JSON.stringify([v2, v3]));
  assert.deepEqual(problems, []);
});

test('two tabs: a reload does not start the update; the tab left on the old build keeps working from its cache', async (t) => {
  const { dir, url } = deploy('tabs');
  const { context, page: a, problems } = await open(t, url);
  const v1 = await cached(a);
  const b = await context.newPage();
  b.on('pageerror', (e) => problems.push(`pageerror (b): ${e.message}`));
  b.on('console', (m) => { if (m.type() === 'error') problems.push(`console (b): ${m.text()}`); });
  await b.goto(url);
  await b.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: TIMEOUT });

  const v2 = redeploy(dir, '2');
  // Both tabs learn of build 2; reloading either leaves it waiting while the other is open.
  await a.reload();
  await a.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  await b.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  await a.reload();
  await a.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  await b.reload();
  await b.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  assert.deepEqual([await buildOf(a), await buildOf(b)], ['1', '1']);

  // Tab A's button starts build 2 there; tab B keeps build 1 under build 2's worker.
  await a.click('[data-testid=update-reload]');
  await loaded(a, '2');
  assert.deepEqual(await ourCaches(a), [v1, v2]);
  await b.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated', null, { timeout: TIMEOUT });
  assert.equal(await buildOf(b), '1');
  assert.equal(await b.isVisible('[data-testid=update-notice]'), true, 'tab B says a reload brings the new build');
  // With build 1's files gone from the server, B still decodes what needs its full wasm module
  // (ASTC 4x4: every texel equals ARM astcenc's decode, tests/vectors/gen_astc.py) from build 1's
  // cache, and only build 1's files.
  const got = fetched(b);
  await astcMatches(b, 'ASTC in the old tab equals astcenc');
  const { wasm } = await allOfBuild(got, '1');
  assert.ok(wasm.some((n) => /^texscope_bg_relaxed-/.test(n)), `build 1's full module was loaded (${wasm})`);
  // B's notice button now simply reloads, into build 2.
  await b.click('[data-testid=update-reload]');
  await loaded(b, '2');
  assert.deepEqual(problems, []);
});

/**
 * The outcome of the worker's install now running, else of a fresh one (an update check, or a new
 * registration where the first install failed and the browser dropped it): its final state,
 * 'redundant' when it failed, 'installed' when it did not (or 'none': no install to be had).
 */
function installOutcome(page) {
  return page.evaluate(async () => {
    const c = navigator.serviceWorker;
    const settle = (w) => new Promise((r) => {
      const f = () => { if (w.state !== 'installing') r(w.state === 'redundant' ? w.state : 'installed'); };
      w.addEventListener('statechange', f);
      f();
    });
    let reg = await c.getRegistration();
    if (reg?.installing) return settle(reg.installing);
    if (reg?.waiting) return 'installed';
    if (!reg?.active) {
      reg = await c.register(new URL('sw.js', document.baseURI), { updateViaCache: 'none' });
      const w = reg.installing ?? reg.waiting ?? reg.active;
      return w ? settle(w) : 'none';
    }
    const found = new Promise((r) => reg.addEventListener('updatefound', () => r(reg.installing), { once: true }));
    await reg.update().catch(() => {});
    const w = reg.installing ?? reg.waiting ?? await Promise.race([found, new Promise((r) => setTimeout(() => r(null), 10000))]);
    return w ? settle(w) : 'none';
  });
}

test('a failed install (a file missing, the network gone mid-install) leaves the page on the network or its build, and no cache', async (t) => {
  // First visit with one precached file missing (404): no worker, no cache; the page works.
  const { dir, url } = deploy('failed');
  const icon = join(dir, 'icons/maskable-512.png');
  renameSync(icon, `${icon}.away`);
  const { page, problems } = await open(t, url);
  assert.equal(await installOutcome(page), 'redundant');
  assert.deepEqual(await ourCaches(page), [], 'the half-filled cache is gone');
  assert.equal(await page.evaluate(() => navigator.serviceWorker.controller), null);
  await openDemo(page, 'hdr');
  assert.equal((await view(page)).texture, 'sky_hdr');
  // The file back: the next visit installs.
  renameSync(`${icon}.away`, icon);
  await page.reload();
  const v1 = await cached(page);

  // Build 2 whose transfer of one file breaks off half-way (each try): build 1 stays in charge,
  // no notice, build 2's cache is gone; the page keeps running build 1.
  const v2 = redeploy(dir, '2');
  const cut = `/failed/assets/${readdirSync(join(dir, 'assets')).find((n) => /^index-.*\.js$/.test(n))}`;
  cuts.add(cut);
  t.after(() => cuts.delete(cut));
  await page.reload();
  assert.equal(await installOutcome(page), 'redundant');
  assert.deepEqual(await ourCaches(page), [v1]);
  assert.equal(await buildOf(page), '1');
  assert.equal(await page.isVisible('[data-testid=update-notice]'), false);
  await page.reload();
  assert.equal(await buildOf(page), '1');
  await openDemo(page, 'ue-classic');
  assert.equal((await view(page)).texture, 'T_Bricks_D');
  // The network back: the next check installs build 2, the notice shows, a reload starts it.
  cuts.delete(cut);
  assert.equal(await installOutcome(page), 'installed');
  await page.waitForSelector('[data-testid=update-notice]', { state: 'visible', timeout: TIMEOUT });
  await page.reload();
  await loaded(page, '2');
  assert.deepEqual(await ourCaches(page), [v1, v2]);

  // A deployment that changes sw.js alone (same files, so the same cache name) and whose install
  // fails on a file build 2's cache had lost: build 2's cache keeps everything else it held.
  const held = (name) => page.evaluate(async (n) => (await (await caches.open(n)).keys()).map((r) => r.url).sort(), name);
  await page.evaluate(async (n) => (await caches.open(n)).delete(new URL('demos/hdr.json', document.baseURI).href), v2);
  const before = await held(v2);
  const swSource = join(root, 'sw-changed.js');
  writeFileSync(swSource, `${readFileSync(join(ROOT, 'www/sw.js'), 'utf8')}\n// changed alone\n`);
  assert.equal(`texscope-${writeServiceWorker(dir, swSource, sources.get(dir)).version}`, v2);
  const hdr = join(dir, 'demos/hdr.json');
  renameSync(hdr, `${hdr}.away`);
  t.after(() => { if (existsSync(`${hdr}.away`)) renameSync(`${hdr}.away`, hdr); });
  await page.reload();
  assert.equal(await installOutcome(page), 'redundant');
  assert.deepEqual(await ourCaches(page), [v1, v2]);
  assert.deepEqual(await held(v2), before, 'build 2 keeps its cache');
  assert.equal(await buildOf(page), '2');
  assert.deepEqual(problems, []);
});

// The file types issue 33 names (Frostbite's: src/frostbite/mod.rs, a header is .res or .texture, a
// chunk .chunk or .cas), each of which the installed app must be offered for.
const OPENS = ['.uasset', '.uexp', '.ubulk', '.umap', '.pak', '.utoc', '.ucas', '.assets', '.resS', '.bundle', '.unity3d',
  '.dds', '.ktx', '.ktx2', '.basis', '.crn', '.gnf', '.res', '.texture', '.chunk', '.cas'];

test('served at the root, the page is installable and its manifest declares the files it opens', async (t) => {
  // dist/ itself at the host's root (the other tests serve copies under a sub-path).
  const rootHost = await serve(DIST);
  t.after(() => rootHost.close());
  const { context, page, problems } = await open(t, `${rootHost.url}index.html`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: TIMEOUT });
  // Chromium's own verdict (DevTools protocol): nothing stops installing but that a test
  // context is an incognito-like profile, where no app can be installed.
  const cdp = await context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  assert.deepEqual(installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito'), []);
  const { url, errors } = await cdp.send('Page.getAppManifest');
  assert.equal(url, `${rootHost.url}manifest.webmanifest`);
  assert.deepEqual(errors, []);
  const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.webmanifest'), 'utf8'));
  assert.equal(manifest.display, 'standalone');
  // The icon sizes Chrome and Edge ask for, served as PNGs of those sizes.
  for (const size of [192, 512]) {
    const icon = manifest.icons.find((i) => i.sizes === `${size}x${size}` && i.purpose === 'any');
    const png = readFileSync(join(DIST, icon.src));
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [size, size], icon.src);
  }
  // The theme colours are the page's header bar (www/style.css --panel) in its dark and light themes.
  const css = readFileSync(join(ROOT, 'www/style.css'), 'utf8');
  const panel = [...css.matchAll(/--panel: (#[0-9a-f]{6})/g)].map((m) => m[1]);
  assert.equal(manifest.theme_color, panel[0]);
  const metas = await page.$$eval('meta[name=theme-color]', (l) => l.map((m) => [m.media, m.content]));
  assert.deepEqual(metas, [['(prefers-color-scheme: dark)', panel[0]], ['(prefers-color-scheme: light)', panel[1]]]);
  const declared = manifest.file_handlers.flatMap((h) => Object.values(h.accept).flat());
  for (const ext of OPENS) assert.ok(declared.includes(ext), `file_handlers declare ${ext}`);
  assert.deepEqual(problems, []);
});
