// The page's tools (issue 7, continued) in Debian chromium: exports (PNG, EXR, DDS, ZIP with
// progress and cancel), the virtualised and filterable texture list, folder drops and sibling
// pairing across drops. Every exported file is parsed here from its specification (PNG: W3C PNG;
// OpenEXR: "OpenEXR File Layout"; DDS: Microsoft's DDS_HEADER/DDS_HEADER_DXT10 docs; ZIP: PKWARE
// APPNOTE), and expected texel values come from the demo definitions in src/fixtures/demo.rs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OUT, openPage, scrollSteps, route, stateWaiter, select, wasmFetched } from './harness.mjs';
import { parsePng } from './png.mjs';
import { parseZip } from './zip.mjs';
import { header, fourcc, bc1Dds, rgba8Dds, rgba8Texel } from './dds-fixtures.mjs';

const waitState = stateWaiter(30000);
const shown = (page, x, y) => page.evaluate(([x, y]) => window.texscope.shown(x, y), [x, y]);
const shot = (page, name) => page.screenshot({ path: join(OUT, name) });

async function openDemo(page, id) {
  await page.click(`[data-testid=demo-gallery] [data-testid=demo-${id}]`);
  await waitState(page, 'ready');
}

// Clicks an export entry and returns the downloaded file's name and bytes.
async function exportAs(page, kind) {
  await page.click('[data-testid=export-button]');
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), page.click(`[data-testid=export-${kind}]`)]);
  return { name: dl.suggestedFilename(), bytes: await readFile(await dl.path()) };
}

// Where the browser has showSaveFilePicker (Chromium), a ZIP export asks for a file and streams
// into it (www/lib/encoders.js openZipSink). A test cannot click a native dialog, so the picker is
// replaced by one handing out a file of the page's origin-private file system: the export then
// writes through the real FileSystemWritableFileStream. `cancelPicker`: the person closes the
// dialog instead.
async function stubPicker(page, { cancelPicker = false } = {}) {
  await page.evaluate((cancelPicker) => {
    window.picked = [];
    window.showSaveFilePicker = async (options) => {
      window.picked.push(options.suggestedName);
      if (cancelPicker) throw new DOMException('The user aborted a request.', 'AbortError');
      const root = await navigator.storage.getDirectory();
      return root.getFileHandle('picked.zip', { create: true });
    };
  }, cancelPicker);
}

/** The bytes of the stub picker's file, or null if it has none. */
async function pickedFile(page) {
  const bytes = await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const h = await root.getFileHandle('picked.zip').catch(() => null);
    return h ? [...new Uint8Array(await (await h.getFile()).arrayBuffer())] : null;
  });
  return bytes && Buffer.from(bytes);
}

/** Without showSaveFilePicker (Firefox, Safari): the ZIP is downloaded at the end. */
const withoutPicker = (page) => page.evaluate(() => { delete window.showSaveFilePicker; });

test('export: PNG as shown and as stored, DDS with every mip and face', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'cubemap');
  await select(page, { slice: 1 });
  // Face -X is (60, 200, 200, 255) everywhere at its centre (src/fixtures/demo.rs FACES).
  const raw = await exportAs(page, 'png-raw');
  assert.equal(raw.name, 'sky_cube__mip0__s1.png');
  const p = parsePng(raw.bytes);
  // Every alpha of the face is 255: RGB, as `texscope export` writes it.
  assert.deepEqual([p.width, p.height, p.depth, p.colour], [64, 64, 8, 2]);
  const row = 1 + 64 * 3;
  assert.equal(p.raw.length, row * 64);
  const at = (x, y) => [...p.raw.subarray(y * row + 1 + x * 3, y * row + 1 + x * 3 + 3)];
  assert.equal(p.raw[32 * row], 0, 'filter byte');
  assert.deepEqual(at(32, 32), [60, 200, 200]);

  // "What you see": red channel off -> the PNG holds (0, 200, 200) there.
  await page.click('[data-testid=channel-r]');
  const view = await exportAs(page, 'png-view');
  assert.equal(view.name, 'sky_cube__mip0__s1__view.png');
  const v = parsePng(view.bytes);
  assert.deepEqual([v.width, v.height], [64, 64]);
  const vi = (32 * 64 + 32) * 4;
  assert.deepEqual([...v.pixels.subarray(vi, vi + 4)], [0, 200, 200, 255], 'red off in the exported view');
  assert.deepEqual(await shown(page, 32, 32), [0, 200, 200, 255]);
  await page.click('[data-testid=channel-r]');

  // DDS: 'DDS ' + 124-byte header (+ 20-byte DX10 header when FourCC is DX10), 7 mips (64 -> 1),
  // cube flags in caps2, faces one after another each with its full chain (DDS cube layout).
  const dds = (await exportAs(page, 'dds')).bytes;
  assert.equal(dds.toString('latin1', 0, 4), 'DDS ');
  assert.equal(dds.readUInt32LE(4), 124);
  assert.deepEqual([dds.readUInt32LE(12), dds.readUInt32LE(16), dds.readUInt32LE(28)], [64, 64, 7]);
  assert.equal(dds.readUInt32LE(112) & 0xfe00, 0xfe00, 'all six faces (caps2)');
  const dx10 = dds.toString('latin1', 84, 88) === 'DX10';
  const start = dx10 ? 148 : 128;
  const face = 4 * (64 * 64 + 32 * 32 + 16 * 16 + 8 * 8 + 4 * 4 + 2 * 2 + 1);
  assert.equal(dds.length, start + 6 * face, 'every mip of every face');
  const bgra = !dx10 && dds.readUInt32LE(92) === 0xff0000; // legacy masks: red in the third byte
  const t1 = (32 * 64 + 32) * 4 + start + face;
  const px = [...dds.subarray(t1, t1 + 4)];
  assert.deepEqual(bgra ? [px[2], px[1], px[0], px[3]] : px, [60, 200, 200, 255], 'face -X centre in the DDS');
  await page.click('[data-testid=export-button]');
  await shot(page, 'tools-export-menu.png');
  await page.click('[data-testid=export-button]');
  assert.deepEqual(problems, []);
});

test('export: EXR keeps HDR floats', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'hdr');
  const { name, bytes } = await exportAs(page, 'exr');
  assert.equal(name, 'sky_hdr__mip0__s0.exr');
  assert.equal(bytes.readInt32LE(0), 20000630, 'EXR magic');
  assert.equal(bytes.readInt32LE(4) & 0xff, 2, 'version 2');
  // Header: (name\0 type\0 size value)* then \0.
  let o = 8;
  const attrs = {};
  const cstr = () => { const e = bytes.indexOf(0, o); const s = bytes.toString('latin1', o, e); o = e + 1; return s; };
  for (;;) {
    const n = cstr();
    if (!n) break;
    const type = cstr();
    const size = bytes.readInt32LE(o);
    attrs[n] = { type, value: bytes.subarray(o + 4, o + 4 + size) };
    o += 4 + size;
  }
  assert.equal(attrs.compression.value[0], 0, 'no compression');
  const dw = attrs.dataWindow.value;
  assert.deepEqual([0, 4, 8, 12].map((k) => dw.readInt32LE(k)), [0, 0, 255, 127], 'sky_hdr is 256x128');
  const chans = [];
  for (let c = 0; attrs.channels.value[c]; ) {
    const e = attrs.channels.value.indexOf(0, c);
    chans.push([attrs.channels.value.toString('latin1', c, e), attrs.channels.value.readInt32LE(e + 1)]);
    c = e + 17;
  }
  assert.deepEqual(chans, [['A', 2], ['B', 2], ['G', 2], ['R', 2]], 'FLOAT channels in name order');
  // The sun's centre (192, 40) is (16, 14, 10) (src/fixtures/demo.rs SUN).
  const line = Number(bytes.readBigUInt64LE(o + 40 * 8));
  assert.equal(bytes.readInt32LE(line), 40);
  const size = bytes.readInt32LE(line + 4);
  assert.equal(size, 256 * 4 * 4);
  const f = (ch, x) => bytes.readFloatLE(line + 8 + ch * 256 * 4 + x * 4);
  assert.deepEqual([f(3, 192), f(2, 192), f(1, 192), f(0, 192)], [16, 14, 10, 1]);
  assert.deepEqual(problems, []);
});

test('export all listed as a ZIP, with a progress bar and cancel', async (t) => {
  const { page, problems } = await openPage(t);
  const wasm = wasmFetched(page);
  await openDemo(page, 'cubemap');
  await page.click('[data-testid=demo-button]');
  await page.click('#demo-menu [data-testid=demo-hdr]');
  await page.waitForFunction(() => window.texscope.textures().length === 2, null, { timeout: 30000 });
  await waitState(page, 'ready');
  // Streamed into the picked file: no download, the file holds the whole archive.
  await stubPicker(page);
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.click('[data-testid=export-button]');
  await page.click('[data-testid=export-zip]');
  await page.waitForFunction(() => /^Exported 2 of 2 textures as DDS in a ZIP$/.test(document.querySelector('[data-testid=status]').textContent), null, { timeout: 30000 });
  assert.deepEqual(await page.evaluate(() => window.picked), ['texscope-export.zip']);
  const entries = parseZip(await pickedFile(page));
  assert.deepEqual(entries.map((e) => e.name).sort(), ['sky_cube.dds', 'sky_hdr.dds']);
  for (const e of entries) assert.equal(e.data.toString('latin1', 0, 4), 'DDS ', e.name);
  const hdr = entries.find((e) => e.name === 'sky_hdr.dds').data;
  assert.deepEqual([hdr.readUInt32LE(12), hdr.readUInt32LE(16)], [128, 256], 'sky_hdr header height, width');
  // The ZIP's naming loads the full module on the page's thread: the build the worker would load
  // (relaxed SIMD in Chromium, www/wasm-build.js), so a page fetches one full module, not two.
  assert.equal(wasm.size, 2, `fetched ${[...wasm].join(', ')}`);
  assert.ok([...wasm].some((u) => u.includes('texscope_bg_relaxed')), `fetched ${[...wasm].join(', ')}`);

  // Cancel: slow each texture down, see the bar, cancel; the picked file is left as it was (a
  // FileSystemWritableFileStream aborted writes nothing) and no download follows.
  await page.evaluate(async () => (await navigator.storage.getDirectory()).removeEntry('picked.zip'));
  await page.evaluate(() => window.texscope.setExportDelay(1500));
  await page.click('[data-testid=export-button]');
  await page.click('[data-testid=export-zip]');
  await page.waitForSelector('[data-testid=progress]:not([hidden])');
  assert.match(await page.textContent('[data-testid=progress-label]'), /Exporting 1 of 2/);
  await shot(page, 'tools-export-progress.png');
  await page.click('[data-testid=progress-cancel]');
  await page.waitForFunction(() => document.querySelector('[data-testid=status]').textContent === 'Export cancelled', null, { timeout: 10000 });
  assert.equal(await page.isHidden('[data-testid=progress]'), true);
  assert.equal((await pickedFile(page))?.length ?? 0, 0, 'the cancelled export wrote nothing into the picked file');
  // Closing the save dialog cancels before anything starts.
  await stubPicker(page, { cancelPicker: true });
  await page.evaluate(() => window.texscope.setExportDelay(0));
  await page.click('[data-testid=export-button]');
  await page.click('[data-testid=export-zip]');
  await page.waitForFunction(() => window.picked.length === 1, null, { timeout: 10000 });
  await page.waitForTimeout(300);
  assert.equal(await page.textContent('[data-testid=status]'), 'Export cancelled');
  assert.equal(await page.isHidden('[data-testid=progress]'), true, 'no export started');
  assert.equal(downloads, 0);
  assert.deepEqual(problems, []);
});

// Issue 19: a folder drop exported as a ZIP of PNGs has the CLI's paths (src/export.rs, the
// README's rule): each file's path inside the dropped folder, the file a folder unless it holds
// one texture named after it (so `a/tex.dds` gives `a/tex.png`), names compared ignoring case
// with ~2 for a taken one, in census order (folders, then files by name: `TEX.dds` before
// `tex.dds`). Texels come from tests/browser/dds-fixtures.mjs (rgba8Texel: known values).
test('a folder drop exports as a ZIP of PNGs with the command line\'s paths', async (t) => {
  const { page, problems } = await openPage(t);
  const small = [...rgba8Dds(4, 4, 1)];
  const wide = [...rgba8Dds(8, 2, 1)];
  await page.evaluate(async ([small, wide]) => {
    const file = (name, d) => ({ isFile: true, isDirectory: false, name, file: (ok) => ok(new File([new Uint8Array(d)], name)) });
    const dir = (name, children) => ({
      isFile: false, isDirectory: true, name,
      createReader() { let k = 0; return { readEntries: (ok) => ok(k < children.length ? children.slice(k, (k += 1)) : []) }; },
    });
    const tree = dir('game', [
      dir('a', [file('tex.dds', small), file('TEX.dds', wide)]),
      dir('b', [file('tex.dds', wide), dir('sub', [file('other.dds', small)])]),
      file('notes.txt', [104, 105]),
    ]);
    return window.texscope.openEntries([tree]);
  }, [small, wide]);
  await page.waitForFunction(() => window.texscope.textures().length === 4, null, { timeout: 30000 });
  await waitState(page, 'ready');
  // The files go by their paths inside the dropped folder (same-named files stay apart).
  assert.deepEqual((await page.evaluate(() => window.texscope.textures().map((c) => c.file))).sort(), ['a/TEX.dds', 'a/tex.dds', 'b/sub/other.dds', 'b/tex.dds']);
  await page.click('[data-testid=export-button]');
  await shot(page, 'tools-export-menu.png');
  await page.click('[data-testid=export-button]');
  await withoutPicker(page);
  const { name, bytes } = await exportAs(page, 'zip-png');
  assert.equal(name, 'texscope-export.zip');
  const entries = parseZip(bytes);
  assert.deepEqual(entries.map((e) => e.name), ['a/TEX.png', 'a/tex~2.png', 'b/tex.png', 'b/sub/other.png', 'errors.txt']);
  const log = entries[4].data.toString('utf8');
  assert.match(log, /^a\/tex\.dds: tex: name taken: a\/tex\.png is taken by a\/TEX\.dds: TEX; written as a\/tex~2\.png\n$/);
  const png = (n) => parsePng(entries.find((e) => e.name === n).data);
  assert.deepEqual([png('a/TEX.png').width, png('a/TEX.png').height], [8, 2]);
  for (const n of ['a/tex~2.png', 'b/sub/other.png']) {
    const p = png(n);
    assert.deepEqual([p.width, p.height], [4, 4], n);
    for (const [x, y] of [[0, 0], [1, 2], [3, 3]]) assert.deepEqual([...p.pixels.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4)], [...rgba8Texel(x, y, 0)], `${n} (${x},${y})`);
  }
  assert.match(await page.textContent('[data-testid=status]'), /^Exported 4 of 4 textures as PNG in a ZIP$/);
  assert.deepEqual(problems, []);
});

// The Folder… button (an <input webkitdirectory>): files go by their path inside the picked folder
// (webkitRelativePath less the folder's own name), as with a folder drop.
test('a folder picked with the Folder button keeps the paths inside it', async (t) => {
  const { page, problems } = await openPage(t);
  const dir = await mkdtemp(join(tmpdir(), 'texscope-pick-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const sub of ['x', 'y']) {
    await mkdir(join(dir, 'picked', sub), { recursive: true });
    await writeFile(join(dir, 'picked', sub, 'tex.dds'), rgba8Dds(4, 4, 1));
  }
  await page.setInputFiles('[data-testid=folder-input]', join(dir, 'picked'));
  await page.waitForFunction(() => window.texscope.textures().length === 2, null, { timeout: 30000 });
  assert.deepEqual((await page.evaluate(() => window.texscope.textures().map((c) => c.file))).sort(), ['x/tex.dds', 'y/tex.dds']);
  assert.deepEqual(problems, []);
});

// The synthetic list: entry i is named T_Synth_<i padded to 5>, engine and format cycle through
// the lists below, and its size is 2^(4 + i % 9) square (16 .. 4096).
const ENGINES = ['unreal', 'unity', 'frostbite'];
const FORMATS = ['BC1', 'BC3', 'BC5', 'BC7'];
const synth = (n) => Array.from({ length: n }, (_, i) => {
  const s = 2 ** (4 + (i % 9));
  return { file: `pack${i % 10}.pak`, name: `T_Synth_${String(i).padStart(5, '0')}`, engine: ENGINES[i % 3], format: FORMATS[i % 4], width: s, height: s, depth: 1, slices: 1, kind: '2d', gpu_bytes: s * s * (i % 4 === 0 ? 0.5 : 1) };
});

test('texture list: 10,000 entries virtualised, filter and sort', async (t) => {
  const { page, problems } = await openPage(t);
  const entries = synth(10000);
  assert.equal(await page.evaluate((e) => window.texscope.injectList(e), entries), 10000);
  const list = () => page.evaluate(() => window.texscope.list());
  const l = await list();
  assert.equal(l.listed.length, 10000);
  assert.ok(l.rows < 60, `only visible rows are in the DOM (${l.rows})`);
  // Scroll from top to bottom in 40 steps; each step must paint within a frame budget.
  await scrollSteps(t, page, '[data-testid=texture-list]');
  const last = await page.$$eval('[data-testid=texture-list] .tex .tex-label', (els) => els.map((e) => e.textContent));
  assert.ok(last.includes('T_Synth_09999'), 'the last entry is reachable');
  assert.ok((await list()).rows < 60);
  await shot(page, 'tools-list-10000.png');

  const expectNames = (f) => entries.filter(f).map((e) => e.name);
  await page.fill('[data-testid=filter-name]', 'synth_0012');
  assert.deepEqual((await list()).listed, expectNames((e) => e.name.toLowerCase().includes('synth_0012')));
  await page.fill('[data-testid=filter-name]', '/_0*7$/');
  assert.deepEqual((await list()).listed, expectNames((e) => /_0*7$/.test(e.name)));
  await page.fill('[data-testid=filter-name]', '/[/');
  assert.equal((await list()).listed.length, 0);
  assert.match(await page.textContent('[data-testid=filter-error]'), /not a regular expression/);
  await page.fill('[data-testid=filter-name]', '');
  await page.selectOption('[data-testid=filter-engine]', 'unity');
  await page.selectOption('[data-testid=filter-format]', 'BC7');
  await page.selectOption('[data-testid=filter-size]', '1024');
  const want = expectNames((e) => e.engine === 'unity' && e.format === 'BC7' && e.width >= 1024);
  assert.deepEqual((await list()).listed, want);
  assert.equal(await page.textContent('[data-testid=count]'), `${want.length} of 10000`);
  await page.selectOption('[data-testid=sort]', 'size');
  const bySize = entries.filter((e) => e.engine === 'unity' && e.format === 'BC7' && e.width >= 1024)
    .sort((a, b) => b.width * b.height - a.width * a.height || (a.name < b.name ? -1 : 1)).map((e) => e.name);
  assert.deepEqual((await list()).listed, bySize);
  await page.selectOption('[data-testid=filter-engine]', '');
  await page.selectOption('[data-testid=filter-format]', '');
  await page.selectOption('[data-testid=filter-size]', '0');
  await page.selectOption('[data-testid=sort]', 'memory');
  const byMem = [...entries].sort((a, b) => b.gpu_bytes - a.gpu_bytes || (a.name < b.name ? -1 : 1)).map((e) => e.name);
  assert.deepEqual((await list()).listed, byMem);
  await page.selectOption('[data-testid=sort]', 'name');
  assert.deepEqual((await list()).listed.slice(0, 3), ['T_Synth_00000', 'T_Synth_00001', 'T_Synth_00002']);
  await shot(page, 'tools-list-filtered.png');
  assert.deepEqual(problems, []);
});

test('list states, sibling pairing across two drops, folder walk', async (t) => {
  const { page, problems } = await openPage(t);
  const files = await page.evaluate(() => window.texscope.demoFiles('ue-classic'));
  const asInput = (f) => ({ name: f.name, mimeType: 'application/octet-stream', buffer: Buffer.from(f.data) });
  const ubulk = files.find((f) => f.name.endsWith('.ubulk'));
  assert.ok(ubulk, 'the UE classic demo has a .ubulk (src/fixtures/demo.rs)');
  // Drop 1: everything but the .ubulk -> the texture waits for it (mips 0-1 live there).
  await page.setInputFiles('[data-testid=file-input]', files.filter((f) => f !== ubulk).map(asInput));
  await waitState(page, 'ready');
  const stateText = () => page.textContent('[data-testid=texture-list] .tex [data-testid=tex-state]');
  assert.equal(await stateText(), `waiting for ${ubulk.name}`);
  assert.match(await page.textContent('[data-testid=texture-list] .badge'), /^8\/10 mips$/);
  await shot(page, 'tools-list-waiting.png');
  // Drop 2: the .ubulk alone completes it.
  await page.setInputFiles('[data-testid=file-input]', [asInput(ubulk)]);
  await page.waitForFunction(() => document.querySelector('[data-testid=texture-list] .badge')?.textContent === 'ready', null, { timeout: 30000 });
  const v = await select(page, { mip: 0 });
  assert.deepEqual([v.texture, v.width], ['T_Bricks_D', 512]);
  // (1, 1) is mortar: RGB565 (20, 40, 20) expands to (165, 162, 165) (src/fixtures/demo.rs MORTAR).
  assert.deepEqual(await page.evaluate(() => window.texscope.pixel(1, 1)), [165, 162, 165, 255]);

  // A folder drop: entries shaped like FileSystemDirectoryEntry (readEntries hands out batches,
  // then an empty one), nested two deep; every file is found and opened together.
  const names = await page.evaluate(async () => {
    const made = await window.texscope.demoFiles('hdr');
    const file = (n, d) => ({ isFile: true, isDirectory: false, file: (ok) => ok(new File([new Uint8Array(d)], n)) });
    const dir = (children) => ({
      isFile: false, isDirectory: true,
      createReader() { let k = 0; return { readEntries: (ok) => ok(k < children.length ? children.slice(k, (k += 1)) : []) }; },
    });
    const tree = dir([dir(made.map((f) => file(f.name, f.data))), file('notes.txt', [104, 105])]);
    return window.texscope.openEntries([tree]);
  });
  assert.deepEqual(names, ['sky_hdr.dds', 'notes.txt']);
  await page.waitForFunction(() => window.texscope.textures().some((c) => c.name === 'sky_hdr'), null, { timeout: 30000 });

  // An entry with an error shows the message in the list.
  await page.evaluate(() => window.texscope.injectList([{ file: 'a.uasset', name: 'T_Broken', engine: 'unreal', format: 'BC1', width: 4, height: 4, depth: 1, slices: 1, error: 'a.uasset: export 3: serial size 0 is too small' }]));
  assert.equal(await stateText(), 'a.uasset: export 3: serial size 0 is too small');
  assert.equal(await page.textContent('[data-testid=texture-list] .badge'), 'error');
  assert.deepEqual(problems, []);
});

// A DX10 DDS of `blocks` (16-byte BCn blocks in one row), DXGI format `format` (Microsoft DXGI_FORMAT:
// 95 BC6H_UF16, 98 BC7_UNORM).
function bc16Dds(format, blocks) {
  return Buffer.concat([
    header({ width: 4 * blocks.length, height: 4, mips: 1, pitchOrLinearSize: 16 * blocks.length, linear: true, pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format, arraySize: 1 } }),
    ...blocks.map((b0) => { const b = Buffer.alloc(16); b[0] = b0; return b; }),
  ]);
}

test('inspector: BCn block mode from the stored bytes (BC1, BC7, BC6H)', async (t) => {
  const { page, problems } = await openPage(t);
  // BC7: mode m is m zero bits then a one in byte 0 (Microsoft "BC7 Format Mode Reference").
  // BC6H: low 2 bits 00 -> mode 1, 01 -> mode 2; else 5 bits: 00011 -> mode 11, 10011 reserved
  // (Microsoft "BC6H Format", mode table).
  await page.setInputFiles('[data-testid=file-input]', [
    { name: 'bc1.dds', mimeType: 'application/octet-stream', buffer: bc1Dds() },
    { name: 'bc7.dds', mimeType: 'application/octet-stream', buffer: bc16Dds(98, [0x01, 0x20, 0x40, 0x00]) },
    { name: 'bc6h.dds', mimeType: 'application/octet-stream', buffer: bc16Dds(95, [0x00, 0x01, 0x03, 0x13]) },
  ]);
  await waitState(page, 'ready');
  const pinText = async (x, y) => {
    await page.evaluate((p) => window.texscope.setDisplay({ pin: p }), [x, y]);
    return page.textContent('[data-testid=insp-pin]');
  };
  await select(page, { texture: 'bc1' });
  // bc1Dds: block 0 red 0xF800 > blue 0x001F (4-colour), block 1 0x0000 < 0x8410 (3-colour).
  assert.match(await pinText(1, 1), /block \(0, 0\) · BC1 4-colour/);
  assert.match(await pinText(6, 2), /block \(1, 0\) · BC1 3-colour \+ transparent/);
  await select(page, { texture: 'bc7' });
  assert.match(await pinText(0, 0), /BC7 mode 0/);
  assert.match(await pinText(5, 0), /BC7 mode 5/);
  assert.match(await pinText(9, 3), /BC7 mode 6/);
  assert.match(await pinText(13, 0), /BC7 reserved/);
  await select(page, { texture: 'bc6h' });
  assert.match(await pinText(0, 0), /BC6H mode 1\b/);
  assert.match(await pinText(4, 0), /BC6H mode 2\b/);
  assert.match(await pinText(8, 0), /BC6H mode 11\b/);
  assert.match(await pinText(12, 0), /BC6H reserved/);
  await shot(page, 'tools-block-mode.png');
  assert.deepEqual(problems, []);
});

test('histogram and range autofit on HDR', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'hdr');
  const h = await page.evaluate(() => window.texscope.histogram());
  assert.equal(h.kind, 'log2');
  // The sun disc (src/fixtures/demo.rs sky: r <= 10 around (192, 40)) is (16, 14, 10): the integer points
  // within radius 10 number 317 (Gauss circle problem, N(10) = 317); nothing else reaches 8
  // (sky <= 1.1 plus a glow of at most 3).
  assert.equal(h.bins[4 - h.lo], 317, 'texels in [16, 32)');
  assert.equal(h.bins[3 - h.lo], 0, 'no texel in [8, 16)');
  assert.equal(h.max, 16);
  assert.equal(h.bins.reduce((a, b) => a + b, 0) + h.zero + h.bad, 256 * 128);
  // Autofit: the exposure (quarter stops, rounded down) that brings 16 to 1 is -4 EV.
  await page.click('[data-testid=hist-fit]');
  assert.equal((await page.evaluate(() => window.texscope.display())).exposure, -4);
  assert.match(await page.textContent('[data-testid=histogram-label]'), /white at 16\b/);
  await shot(page, 'tools-histogram.png');
  assert.deepEqual(problems, []);
});

test('open by URL: ?src= fetches the named file with progress; other schemes are refused', async (t) => {
  const body = rgba8Dds(4, 4, 2);
  const url = route('/remote/rgba8.dds', body);
  const { page, problems } = await openPage(t, `?src=${encodeURIComponent(url)}&src=${encodeURIComponent('javascript:alert(1)')}&src=${encodeURIComponent('file:///etc/passwd')}`);
  await waitState(page, 'ready');
  const note = await page.textContent('[data-testid=src-note]');
  assert.match(note, /Nothing else leaves this page/);
  assert.match(note, /Ignored \(only http and https URLs\): javascript:alert\(1\), file:\/\/\/etc\/passwd/);
  const v = await page.evaluate(() => window.texscope.view());
  assert.deepEqual([v.texture, v.width, v.height], ['rgba8', 4, 4]);
  // rgba8Texel is the fixture's own rule (tests/browser/dds-fixtures.mjs).
  assert.deepEqual(await page.evaluate(() => window.texscope.pixel(3, 2)), rgba8Texel(3, 2, 0));
  const link = await page.evaluate(() => window.texscope.shareLink());
  assert.ok(link.includes(`?src=${encodeURIComponent(url)}`), 'the link carries the URL');
  await shot(page, 'tools-open-by-url.png');
  // A URL that fails says so, naming it.
  const bad = route('/remote/none', Buffer.alloc(0));
  const { page: p2 } = await openPage(t, `?src=${encodeURIComponent(bad.replace('none', 'missing.dds'))}`);
  await waitState(p2, 'error');
  assert.match(await p2.textContent('[data-testid=error]'), /missing\.dds could not be fetched: the server answered 404/);
  assert.deepEqual(problems, []);
});
