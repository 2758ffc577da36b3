// Issue 8 (size): the page loads the core wasm module first and the full one (ASTC, crunch, PVRTC,
// ZStandard) only when a texture needs it. Counted from the .wasm responses the page (and its
// worker) fetch: one for a BC1 demo, two once an ASTC / crunch / PVRTC file is opened.
//
// Expected ASTC texels: tests/vectors/astc_4x4.bin, ARM astcenc's own RGBA8 decode of the blocks
// it compressed (tests/vectors/gen_astc.py). The crunch and PVRTC files are samples read in place;
// their texels are checked against texture2ddecoder by crunch.test.mjs (which now goes through the
// same lazy path) and wasm == native by wasm-native.test.mjs; here they must open and decode with
// no problem reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openPage, stateWaiter, wasmFetched } from './harness.mjs';
import { header, fourcc } from './dds-fixtures.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const TAIL = 'unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures';
const DIR = [resolve(ROOT, '../shared/samples', TAIL), join('/work/shared/samples', TAIL)].find(existsSync);
const waitState = stateWaiter(120000);

async function page(t, query = '') {
  const p = await openPage(t, query);
  return { ...p, wasm: wasmFetched(p.page) };
}

async function drop(page, name, buffer) {
  await page.setInputFiles('[data-testid=file-input]', [{ name, mimeType: 'application/octet-stream', buffer }]);
  await waitState(page, 'ready');
}

test('a BC1 demo is shown with the core module only', async (t) => {
  const { page: p, problems, wasm } = await page(t);
  await p.click('[data-testid=demo-gallery] [data-testid=demo-ue-classic]');
  await waitState(p, 'ready');
  assert.equal((await p.evaluate(() => window.texscope.view())).format, 'BC1');
  assert.equal(wasm.size, 1, `fetched ${[...wasm].join(', ')}`);
  assert.deepEqual(problems, []);
});

test('a BC1 demo exports as DDS with the core module only', async (t) => {
  // The DDS writer is in the core module: the export must not restart the worker with the full
  // one (which re-opens every dropped file). Expected header: Microsoft's DDS_HEADER ('DDS ', size
  // 124) and the demo's own size and BC1 FourCC as the viewer reports them.
  const { page: p, problems, wasm } = await page(t);
  await p.click('[data-testid=demo-gallery] [data-testid=demo-ue-classic]');
  await waitState(p, 'ready');
  const view = await p.evaluate(() => window.texscope.view());
  await p.click('[data-testid=export-button]');
  const [dl] = await Promise.all([p.waitForEvent('download', { timeout: 30000 }), p.click('[data-testid=export-dds]')]);
  const dds = readFileSync(await dl.path());
  assert.equal(dds.toString('latin1', 0, 4), 'DDS ');
  assert.equal(dds.readUInt32LE(4), 124);
  assert.deepEqual([dds.readUInt32LE(16), dds.readUInt32LE(12)], [view.width, view.height]);
  assert.equal(dds.toString('latin1', 84, 88), 'DXT1');
  assert.equal(wasm.size, 1, `fetched ${[...wasm].join(', ')}`);
  assert.deepEqual(problems, []);
});

test('an ASTC 4x4 .dds loads the full module once and equals astcenc', async (t) => {
  // tests/vectors/astc_4x4.bin, first record: u32 width, u32 height, blocks, astcenc RGBA8.
  const all = readFileSync(join(ROOT, 'tests/vectors/astc_4x4.bin'));
  const [w, h] = [all.readUInt32LE(0), all.readUInt32LE(4)];
  const nb = Math.ceil(w / 4) * Math.ceil(h / 4) * 16;
  const blocks = all.subarray(8, 8 + nb);
  const want = all.subarray(8 + nb, 8 + nb + w * h * 4);
  // DXGI 134 = ASTC_4X4_UNORM in the D3D12 numbering ASTC-in-DDS writers use (src/dds.rs).
  const dds = Buffer.concat([header({ width: w, height: h, mips: 1, pitchOrLinearSize: nb, linear: true,
    pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format: 134, arraySize: 1 } }), blocks]);
  const { page: p, problems, wasm } = await page(t);
  await drop(p, 'astc4x4.dds', dds);
  assert.equal(wasm.size, 2, `fetched ${[...wasm].join(', ')}`);
  // Chromium compiles relaxed SIMD, so the worker loads the full module's relaxed build
  // (www/wasm-build.js); the texels below are then that build's.
  assert.ok([...wasm].some((u) => u.includes('texscope_bg_relaxed')), `the relaxed build: fetched ${[...wasm].join(', ')}`);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const got = await p.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]);
      assert.deepEqual(got, [...want.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)], `(${x}, ${y})`);
    }
  }
  // A second texture needing the full module does not load it again.
  await drop(p, 'astc4x4-again.dds', dds);
  assert.equal(wasm.size, 2);
  assert.deepEqual(problems, []);
});

for (const name of ['CRUNCH_DXT1.crn', 'PVRTCI_4bpp_RGBA.ktx2']) {
  test(`${name} loads the full module and decodes`, { skip: !DIR && 'samples not found' }, async (t) => {
    const { page: p, problems, wasm } = await page(t);
    await drop(p, name, readFileSync(join(DIR, name)));
    const v = await p.evaluate(() => window.texscope.view());
    assert.ok(v.width > 0 && v.height > 0, JSON.stringify(v));
    assert.equal(wasm.size, 2, `fetched ${[...wasm].join(', ')}`);
    assert.equal(await p.locator('[data-testid=error]').isVisible(), false);
    assert.deepEqual(problems, []);
  });
}

// A .usmap (unversioned UE properties) is read only by the full module: the core lists the package
// alone, and a dropped .usmap switches modules. Expected values: `texscope info` (native, every
// feature) on the same files says SRGB false and CompressionSettings TC_Normalmap, which is what UE
// cooks a BC5 normal map with (tests/unreal_properties.rs checks that rule on all 84 Clay packages).
const CLAY = [resolve(ROOT, '../shared/samples/unreal/uassetapi-testassets/Clay'),
  '/work/shared/samples/unreal/uassetapi-testassets/Clay'].find(existsSync);
const JOSH = 'Clay/Content/FirstPerson/Blueprints/Characters/Jumbo_Josh/Jumbo_Josh_Teethes_Normal';
test('a .usmap loads the full module and its properties reach the info panel', { skip: !CLAY && 'samples not found' }, async (t) => {
  const files = (exts) => exts.map((e) => ({ name: `Jumbo_Josh_Teethes_Normal${e}`, mimeType: 'application/octet-stream',
    buffer: readFileSync(join(CLAY, `${JOSH}${e}`)) }));
  const { page: p, wasm } = await page(t);
  await p.setInputFiles('[data-testid=file-input]', files(['.uasset', '.uexp']));
  await p.waitForFunction(() => window.texscope.infoJson()?.census?.name === 'Jumbo_Josh_Teethes_Normal', null, { timeout: 120000 });
  let info = await p.evaluate(() => window.texscope.infoJson());
  assert.equal(info.metadata.SRGB, undefined, 'no .usmap: the property is unknown');
  assert.equal(wasm.size, 1, `fetched ${[...wasm].join(', ')}`);
  await p.setInputFiles('[data-testid=file-input]', [{ name: 'Clay.usmap', mimeType: 'application/octet-stream',
    buffer: readFileSync(join(CLAY, 'Clay.usmap')) }]);
  await p.waitForFunction(() => window.texscope.infoJson()?.metadata?.SRGB !== undefined, null, { timeout: 120000 });
  info = await p.evaluate(() => window.texscope.infoJson());
  assert.equal(info.metadata.SRGB, 'false');
  assert.equal(info.metadata.CompressionSettings, 'TC_Normalmap');
  assert.match(info.metadata.Properties, /Clay\.usmap/);
  assert.equal(wasm.size, 2, `fetched ${[...wasm].join(', ')}`);
});

// Issue 22: Basis Universal (ETC1S with alpha in KTX 2, an ETC1S .basis cube, UASTC with
// Zstandard) and PVRTC2 are full-module formats: the page loads it and shows them. Expected texels:
// the native decode of the same file (`texscope export --format rgba`), itself equal to the
// reference transcoder (tests/codec_basis.rs) and basisu's PVRTC2 unpacker (tests/codec_pvrtc.rs).
for (const [file, format] of [['tests/basis/etc1s_rgba_mips.ktx2', 'BasisETC1SA'], ['tests/basis/etc1s_cube.basis', 'BasisETC1S'],
  ['tests/basis/uastc_rgba_mips.ktx2', 'BasisUASTC'], ['tests/vectors/pvrtc2_basisu_rgba.ktx', 'PVRTCII4']]) {
  test(`${file.split('/').pop()} loads the full module and decodes as natively`, async (t) => {
    const path = join(ROOT, file);
    const out = mkdtempSync(join(tmpdir(), 'basis-'));
    execFileSync('cargo', ['run', '--quiet', '--bin', 'texscope', '--', 'export', path, '--out', out, '--format', 'rgba'],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    // The default export is mip 0 slice 0 alone: one .rgba file, wherever export's naming puts it.
    const written = readdirSync(out, { recursive: true }).filter((n) => String(n).endsWith('.rgba'));
    assert.equal(written.length, 1, `export wrote ${written.join(', ')}`);
    const native = readFileSync(join(out, String(written[0])));
    const { page: p, problems, wasm } = await page(t);
    await drop(p, file.split('/').pop(), readFileSync(path));
    const v = await p.evaluate(() => window.texscope.view());
    assert.equal(v.format, format, JSON.stringify(v));
    assert.equal(wasm.size, 2, `fetched ${[...wasm].join(', ')}`);
    for (const [x, y] of [[0, 0], [Math.floor(v.width / 2), Math.floor(v.height / 2)], [v.width - 1, v.height - 1]]) {
      const got = await p.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]);
      const i = (y * v.width + x) * 4;
      assert.deepEqual(got, [...native.subarray(i, i + 4)], `(${x}, ${y})`);
    }
    assert.deepEqual(problems, []);
  });
}
