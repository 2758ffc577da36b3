// The GPU path (issue 8): stored blocks uploaded to WebGL2 and drawn by the display shader give the
// same picture as the CPU path (wasm decode + www/lib/display.js displayBytes), within 1 per channel.
//
// Where the expected values come from: the CPU path is the reference, and the GPU side decodes
// with the browser's own block decoders (here SwiftShader's, an implementation independent of
// ours); the two agreeing within 1 is the claim. Inputs are real encoded files: the 512x512
// KTX2 set made with PVRTexTool (shared/samples/unity/UniversalGameExtraction_texture2ddecoder,
// see its MANIFEST), the page's generated demos (HDR half floats, a BC1 mip chain, a cubemap), and
// seeded random BC1/BC7 blocks for the 2048x2048 timings (any bytes are valid blocks).
//
// Chromium flags: this Debian chromium gives WebGL2 on SwiftShader (ANGLE over Vulkan) even with
// --disable-gpu, offering s3tc(+srgb), rgtc, bptc, etc, etc1 and astc; the flags below ask for
// SwiftShader explicitly so the test does not depend on a host GPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUT, openPage, launchArgs, stateWaiter, select, SAMPLES } from './harness.mjs';
import { header } from './dds-fixtures.mjs';

launchArgs(['--use-angle=swiftshader', '--enable-unsafe-swiftshader']);

const KTX = 'unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures';

const waitState = stateWaiter(60000);
const gpuState = (page) => page.evaluate(() => window.texscope.gpu());

async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
}

/** Opens `files` and waits until `texture` is shown. */
async function open(page, files, texture) {
  await drop(page, files);
  await page.waitForFunction((n) => window.texscope.textures().some((t) => t.name === n), texture, { timeout: 60000 });
  await select(page, { texture });
  await waitState(page, 'ready');
}

/** Both paths' bytes of the current view; {max, over1, texels} over `channels` of every texel. */
async function compare(page, settings, channels = [0, 1, 2, 3]) {
  if (settings) await page.evaluate((s) => window.texscope.setDisplay(s), settings);
  const r = await page.evaluate(() => window.texscope.gpuCompare());
  assert.ok(r, 'the GPU path is not drawing this view');
  const g = Buffer.from(r.gpu, 'base64');
  const c = Buffer.from(r.cpu, 'base64');
  assert.equal(g.length, r.width * r.height * 4);
  assert.equal(c.length, g.length);
  let max = 0;
  let over1 = 0;
  let at = -1;
  for (let i = 0; i < g.length; i++) {
    if (!channels.includes(i & 3)) continue;
    const d = Math.abs(g[i] - c[i]);
    if (d > max) { max = d; at = i; }
    if (d > 1) over1++;
  }
  const where = at >= 0 ? { x: (at >> 2) % r.width, y: Math.floor((at >> 2) / r.width), channel: at & 3, gpu: g[at], cpu: c[at] } : null;
  // The decoded texel there (rows as displayed; a Y flip mirrors them), for the message.
  if (where && max > 1) where.texel = await page.evaluate(([x, y]) => window.texscope.pixel(x, y), [where.x, where.y]);
  return { max, over1, texels: r.width * r.height, where };
}

const ALL = { channels: { r: true, g: true, b: true, a: true }, exposure: 0, tonemap: 'clamp', normal: 'off', flipY: false, flipGreen: false, badOverlay: false };

// Every block format of the KTX2 set the page reads (PVRTC and ATC have no WebGL2 extension here).
const KTX_FILES = ['BC1', 'BC1A', 'BC2', 'BC3', 'BC4', 'BC5', 'BC6H', 'BC7', 'ETC1_RGB', 'ETC2_RGB', 'ETC2_RGBA', 'ETC2_RGB_A1',
  'EAC_R11', 'EAC_RG11', 'ASTC_4x4', 'ASTC_5x4', 'ASTC_5x5', 'ASTC_6x5', 'ASTC_6x6', 'ASTC_8x5', 'ASTC_8x6', 'ASTC_8x8',
  'ASTC_10x5', 'ASTC_10x6', 'ASTC_10x8', 'ASTC_10x10', 'ASTC_12x10', 'ASTC_12x12'];

test('GPU and CPU paths draw the same picture within 1 per channel, for every format offered', { timeout: 600000 }, async (t) => {
  const { page, problems } = await openPage(t);
  const caps = await gpuState(page);
  console.log(`# WebGL2: ${caps.webgl2} (${caps.renderer}); extensions: ${caps.extensions.join(', ')}`);
  assert.ok(caps.webgl2, `no WebGL2 in this chromium: ${caps.reason}`);
  await page.evaluate(() => window.texscope.setGpu(true)); // on even on a software renderer
  const compared = [];
  const skipped = [];
  for (const name of KTX_FILES) {
    await open(page, [[`${name}.ktx2`, readFileSync(join(SAMPLES, KTX, `${name}.ktx2`))]], name);
    const g = await gpuState(page);
    const format = (await page.evaluate(() => window.texscope.view())).format;
    if (g.path !== 'gpu') {
      // Only a format this GPU does not offer may fall back, and the page says why.
      assert.match(g.info, /^CPU decode: this GPU (does not offer|offers only|has no)/, `${name} (${format}) fell back: ${g.info}`);
      skipped.push(`${format} (${g.info})`);
      continue;
    }
    assert.match(g.info, new RegExp(`^GPU: ${format} blocks uploaded`));
    const plain = await compare(page, ALL);
    assert.ok(plain.max <= 1, `${name} (${format}): GPU and CPU differ by ${plain.max} at ${JSON.stringify(plain.where)} (${plain.over1} channel values over 1)`);
    compared.push(`${format} max ${plain.max}`);
    if (name === 'BC7' || name === 'ETC2_RGBA' || name === 'ASTC_6x6') {
      await page.screenshot({ path: join(OUT, `gpu-${name}.png`) });
    }
  }
  console.log(`# compared (GPU vs CPU, 512x512 each): ${compared.join('; ')}`);
  if (skipped.length) console.log(`# not offered by this GPU (CPU path): ${skipped.join('; ')}`);
  assert.ok(compared.length >= 1, 'no format was compared');

  // The view settings through the shader: solo channel, channels off with alpha ignored, the
  // sRGB curve on linear data, exposure and tonemaps, the normal view and the Y flip. On BC7,
  // whose decode is bit-exact on both sides above: where the decoders differ by 1 (BC1-BC5
  // endpoint interpolation rounding, which the BC spec leaves open), a steep curve such as
  // the sRGB encode near black turns 1 into up to 6 (measured on BC3), so those are compared
  // in the plain view only.
  await select(page, { texture: 'BC7' });
  await waitState(page, 'ready');
  const views = [
    { channels: { r: false, g: true, b: false, a: false } },
    { channels: { r: true, g: false, b: true, a: false } },
    { colour: 'gamma' },
    { colour: 'linear', exposure: 1.5, tonemap: 'reinhard' },
    { colour: 'srgb', exposure: -2, tonemap: 'aces' },
    { normal: 'rg', flipGreen: true },
    { normal: 'ag' },
    { flipY: true },
  ];
  for (const v of views) {
    const r = await compare(page, { ...ALL, colour: 'srgb', ...v });
    assert.ok(r.max <= 1, `BC7 with ${JSON.stringify(v)}: differ by ${r.max} at ${JSON.stringify(r.where)}`);
  }
  await select(page, { texture: 'BC5' });
  await waitState(page, 'ready');
  // x and y only: the rebuilt z = sqrt(1 - x² - y²) is steep near the rim, where BC5's 1-step
  // decoder difference became 17 (measured); BC7's normal views above check z.
  const n = await compare(page, { ...ALL, normal: 'rg' }, [0, 1, 3]);
  assert.ok(n.max <= 1, `BC5 normal view: differ by ${n.max} at ${JSON.stringify(n.where)}`);
  await page.screenshot({ path: join(OUT, 'gpu-bc5-normal.png') });
  await page.evaluate((s) => window.texscope.setDisplay(s), ALL);
  assert.deepEqual(problems, []);
});

test('GPU path: half floats with exposure, tonemaps and the NaN marks; mips of a chain; cube faces', { timeout: 300000 }, async (t) => {
  const { page, problems } = await openPage(t);
  await page.evaluate(() => window.texscope.setGpu(true));
  // The HDR demo: RGBA16F, uploaded as half floats (texImage2D HALF_FLOAT).
  await page.evaluate(() => window.texscope.openDemo('hdr'));
  await waitState(page, 'ready');
  let g = await gpuState(page);
  assert.equal(g.path, 'gpu', g.info);
  assert.match(g.info, /^GPU: RGBA16F texels uploaded/);
  for (const v of [{}, { exposure: -4, tonemap: 'clamp' }, { exposure: -2, tonemap: 'reinhard' }, { exposure: -3, tonemap: 'aces' },
    { colour: 'srgb', exposure: -4 }, { badOverlay: true }, { flipY: true, exposure: -4 }]) {
    const r = await compare(page, { ...ALL, colour: 'linear', ...v });
    assert.ok(r.max <= 1, `HDR demo with ${JSON.stringify(v)}: differ by ${r.max} at ${JSON.stringify(r.where)}`);
  }
  await compare(page, { ...ALL, colour: 'linear', exposure: -3, tonemap: 'aces' });
  await page.screenshot({ path: join(OUT, 'gpu-hdr-aces.png') });

  // A BC1 chain (mips 0-1 in the .ubulk, 2-9 inline): each mip is a level of one GL texture.
  await page.evaluate(() => window.texscope.openDemo('ue-classic'));
  await page.waitForFunction(() => window.texscope.textures().some((x) => x.name === 'T_Bricks_D'), null, { timeout: 60000 });
  for (const mip of [0, 3, 9]) {
    await select(page, { texture: 'T_Bricks_D', mip });
    await waitState(page, 'ready');
    g = await gpuState(page);
    assert.equal(g.path, 'gpu', `mip ${mip}: ${g.info}`);
    const r = await compare(page, ALL);
    assert.ok(r.max <= 1, `T_Bricks_D mip ${mip}: differ by ${r.max} at ${JSON.stringify(r.where)}`);
  }

  // Cube faces (RGBA8 texels) are slices; the cross view is composed on the CPU and says so.
  await page.evaluate(() => window.texscope.openDemo('cubemap'));
  await page.waitForFunction(() => window.texscope.textures().some((x) => x.name === 'sky_cube'), null, { timeout: 60000 });
  for (const slice of [0, 3]) {
    await select(page, { texture: 'sky_cube', mip: 1, slice });
    await waitState(page, 'ready');
    const r = await compare(page, ALL);
    assert.ok(r.max <= 1, `sky_cube slice ${slice}: differ by ${r.max} at ${JSON.stringify(r.where)}`);
  }
  // Unity stores rows bottom first (the CPU decode flips them; the shader reads them flipped):
  // the same 256x256 atlas as BC1 (OSX build) and ETC1 (Android build), mips 0 and 2, both flips.
  for (const platform of ['OSX', 'Android']) {
    const rel = `unity/lite3_unitytest/Assets/StreamingAssets/${platform}/cubeatlas`;
    await page.evaluate(() => window.texscope.setDisplay({ cross: false }));
    await drop(page, [[`cubeatlas_${platform}`, readFileSync(join(SAMPLES, rel))]]);
    await page.waitForFunction((f) => window.texscope.textures().some((x) => x.file === f), `cubeatlas_${platform}`, { timeout: 60000 });
    const index = await page.evaluate((f) => window.texscope.textures().findIndex((x) => x.file === f), `cubeatlas_${platform}`);
    const sums = [];
    for (const [mip, flipY] of [[0, false], [0, true], [2, false]]) {
      await select(page, { texture: index, mip });
      await waitState(page, 'ready');
      g = await gpuState(page);
      assert.equal(g.path, 'gpu', `${platform} cubeatlas: ${g.info}`);
      const r = await compare(page, { ...ALL, flipY });
      assert.ok(r.max <= 1, `${platform} cubeatlas mip ${mip} flipY ${flipY}: differ by ${r.max} at ${JSON.stringify(r.where)}`);
      assert.equal((await page.evaluate(() => window.texscope.infoJson())).bottom_first, true);
      if (mip === 0) sums.push((await page.evaluate(() => window.texscope.gpuCompare())).cpu);
    }
    // The atlas is not symmetric top to bottom, so a missing or double flip would show.
    assert.notEqual(sums[0], sums[1], `${platform} cubeatlas looks the same flipped`);
  }
  await select(page, { texture: 'sky_cube', mip: 1, slice: 0 });
  await waitState(page, 'ready');
  await page.evaluate((s) => window.texscope.setDisplay(s), { cross: true });
  await waitState(page, 'ready');
  g = await gpuState(page);
  assert.equal(g.path, 'cpu');
  assert.equal(g.info, 'CPU decode: the cube cross is put together on the CPU');
  assert.deepEqual(problems, []);
});

test('GPU toggle forces the CPU path; formats without a GPU upload say why; both paint the canvas alike', { timeout: 300000 }, async (t) => {
  const { page, problems } = await openPage(t);
  await open(page, [['BC7.ktx2', readFileSync(join(SAMPLES, KTX, 'BC7.ktx2'))]], 'BC7');
  // The first view decides: a software WebGL (SwiftShader here) starts on the CPU path.
  let g = await gpuState(page);
  if (g.software) {
    assert.equal(g.path, 'cpu');
    assert.match(g.info, /^CPU decode: WebGL here is a software renderer/);
    assert.equal(await page.getAttribute('[data-testid=gpu-toggle]', 'aria-pressed'), 'false');
  } else {
    assert.equal(g.path, 'gpu', g.info);
  }
  g = await page.evaluate(() => window.texscope.setGpu(true));
  assert.equal(g.path, 'gpu', g.info);
  assert.equal(await page.getAttribute('[data-testid=gpu-toggle]', 'aria-pressed'), 'true');
  // What the view canvas shows on either path (BC7.ktx2 is opaque, so the 2D canvas keeps bytes).
  const canvasBytes = () => page.evaluate(() => {
    const c = document.querySelector('[data-testid=canvas]');
    return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data.filter((_, i) => i % 97 === 0));
  });
  const onGpu = await canvasBytes();
  g = await page.evaluate(() => window.texscope.setGpu(false));
  assert.equal(g.path, 'cpu');
  assert.equal(g.info, 'CPU decode: the GPU path is switched off');
  assert.equal(await page.getAttribute('[data-testid=gpu-toggle]', 'aria-pressed'), 'false');
  const onCpu = await canvasBytes();
  assert.equal(onGpu.length, onCpu.length);
  const worst = onGpu.reduce((m, v, i) => Math.max(m, Math.abs(v - onCpu[i])), 0);
  assert.ok(worst <= 1, `the view canvas differs by ${worst} between the paths`);
  g = await page.evaluate(() => window.texscope.setGpu(true));
  assert.equal(g.path, 'gpu');
  await page.screenshot({ path: join(OUT, 'gpu-toggle.png') });

  // PVRTC has no extension in this browser: the CPU decodes it, and the info line says why.
  await open(page, [['PVRTCI_4bpp_RGBA.ktx2', readFileSync(join(SAMPLES, KTX, 'PVRTCI_4bpp_RGBA.ktx2'))]], 'PVRTCI_4bpp_RGBA');
  g = await gpuState(page);
  assert.equal(g.path, 'cpu');
  assert.match(g.info, /^CPU decode: the GPU path has no upload for PVRTC4RGBA/);
  assert.match(await page.textContent('[data-testid=gpu-info]'), /^CPU decode: /);

  // A lost context (driver reset): the view is painted by the CPU path, and the line says so.
  await select(page, { texture: 'BC7' });
  await waitState(page, 'ready');
  assert.equal((await gpuState(page)).path, 'gpu');
  const before = await canvasBytes();
  g = await page.evaluate(() => window.texscope.debugLoseGpu());
  assert.equal(g.path, 'cpu');
  assert.equal(g.info, 'CPU decode: the WebGL context was lost');
  const after = await canvasBytes();
  assert.ok(after.every((v, i) => Math.abs(v - before[i]) <= 1), 'the CPU repaint after the loss differs');
  await select(page, { texture: 'PVRTCI_4bpp_RGBA' });
  await waitState(page, 'ready');
  assert.equal((await gpuState(page)).info, 'CPU decode: the WebGL context was lost');

  assert.deepEqual(problems, []);
});

// Seeded random blocks (xorshift32): every 8- or 16-byte pattern is a valid BC1/BC7 block.
function randomBlocks(bytes, seed) {
  const out = Buffer.alloc(bytes);
  let s = seed >>> 0;
  for (let i = 0; i < bytes; i += 4) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    out.writeUInt32LE(s, i);
  }
  return out;
}

// Formats no real sample holds (signed BC4/BC5, BC6H signed, plain 8-bit, half and float
// layouts): 64x64 DDS files of seeded random blocks or texels, DXGI_FORMAT numbers from
// dxgiformat.h (Microsoft docs). Random float bits include NaN, Inf, negatives and huge values,
// which exercises the tonemaps' NaN handling and the NaN/Inf/negative marks on both paths.
const RANDOM_FORMATS = [
  ['BC4S', 81, 8, true], ['BC5S', 84, 16, true], ['BC6HU', 95, 16, true], ['BC6HS', 96, 16, true],
  ['RGBA32F', 2, 16], ['RGB32F', 6, 12], ['RG32F', 16, 8], ['R32F', 41, 4], ['RGBA16F', 10, 8], ['RG16F', 34, 4],
  ['R16F', 54, 2], ['R8', 61, 1], ['RG8', 49, 2], ['RGBA8', 28, 4], ['BGRA8', 87, 4], ['BGRX8', 88, 4],
];

test('GPU path on formats without a real sample: seeded random blocks and texels', { timeout: 300000 }, async (t) => {
  const { page, problems } = await openPage(t);
  await page.evaluate(() => window.texscope.setGpu(true));
  const side = 64;
  const compared = [];
  // All opened together, so one catalog holds them and the GL textures pile up in the cache.
  const files = RANDOM_FORMATS.map(([format, dxgi, unit, block]) => {
    const size = block ? (side / 4) * (side / 4) * unit : side * side * unit;
    const pitch = block ? size : side * unit;
    return [`rnd_${format}.dds`, Buffer.concat([
      header({ width: side, height: side, mips: 1, pitchOrLinearSize: pitch, linear: block, pf: { flags: 0x4, fourcc: 0x30315844 }, dx10: { format: dxgi, arraySize: 1 } }),
      randomBlocks(size, dxgi * 104729 + 1),
    ])];
  });
  await open(page, files, 'rnd_BC4S');
  for (const [format] of RANDOM_FORMATS) {
    await select(page, { texture: `rnd_${format}` });
    await waitState(page, 'ready');
    const g = await gpuState(page);
    assert.equal((await page.evaluate(() => window.texscope.view())).format, format);
    assert.equal(g.path, 'gpu', `${format}: ${g.info}`);
    let worst = 0;
    // Signed BC4/BC5: GL interpolates the endpoints in float, our decoder (bcdec) in integers, a
    // difference of up to half a step of 1/127 that the sRGB curve near black magnifies (19 levels
    // measured), so these are compared where the display is linear in the value: the normal
    // view's x and y, (v * 0.5 + 0.5) * 255.
    const views = /^BC[45]S$/.test(format) ? [[{ normal: 'rg' }, [0, 1, 3]]]
      : [{ colour: 'linear' }, { colour: 'srgb' }, { colour: 'linear', exposure: -12, tonemap: 'reinhard' },
        { colour: 'linear', exposure: -6, tonemap: 'aces', badOverlay: true }, { colour: 'linear', channels: { r: false, g: true, b: false, a: false } }].map((v) => [v]);
    for (const [v, channels] of views) {
      const r = await compare(page, { ...ALL, ...v }, channels);
      assert.ok(r.max <= 1, `${format} with ${JSON.stringify(v)}: differ by ${r.max} at ${JSON.stringify(r.where)} (${r.over1} values over 1)`);
      worst = Math.max(worst, r.max);
    }
    compared.push(`${format} max ${worst}`);
  }
  // 16 textures viewed: the page keeps at most 6 GL textures (www/lib/gpu.js TEXTURE_CACHE).
  assert.equal((await gpuState(page)).cached, 6);
  console.log(`# compared on random data (GPU vs CPU, 64x64, 5 views each; BC4S/BC5S the normal view): ${compared.join('; ')}`);
  assert.deepEqual(problems, []);
});

const stats = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return `${s[0].toFixed(1)}/${s[Math.floor(s.length / 2)].toFixed(1)}/${s[s.length - 1].toFixed(1)}`;
};

test('2048x2048 BC1 and BC7: upload + draw against CPU decode (timings), and the same picture', { timeout: 600000 }, async (t) => {
  const { page, problems } = await openPage(t);
  await page.evaluate(() => window.texscope.setGpu(true));
  const side = 2048;
  // DXGI_FORMAT_BC1_UNORM = 71, DXGI_FORMAT_BC7_UNORM = 98 (Microsoft docs, DXGI_FORMAT).
  for (const [name, dxgi, blockBytes] of [['rand_bc1', 71, 8], ['rand_bc7', 98, 16]]) {
    const size = (side / 4) * (side / 4) * blockBytes;
    const dds = Buffer.concat([
      header({ width: side, height: side, mips: 1, pitchOrLinearSize: size, linear: true, pf: { flags: 0x4, fourcc: 0x30315844 }, dx10: { format: dxgi, arraySize: 1 } }),
      randomBlocks(size, dxgi * 7919),
    ]);
    await open(page, [[`${name}.dds`, dds]], name);
    const g = await gpuState(page);
    assert.equal(g.path, 'gpu', g.info);
    const r = await compare(page, ALL);
    assert.ok(r.max <= 1, `${name}: differ by ${r.max} at ${JSON.stringify(r.where)}`);
    const b = await page.evaluate(() => window.texscope.gpuBench(5));
    console.log(`# ${name} ${side}x${side} (ms, min/median/max of 5; renderer ${g.renderer}): CPU read+decode+transfer ${stats(b.decode)}`
      + `; GPU path: read ${stats(b.read)}, upload call ${stats(b.upload)}, first draw ${stats(b.firstDraw)}`
      + `; repaint after an EV change: GPU ${stats(b.redrawGpu)}, CPU displayBytes ${stats(b.redrawCpu)}; max diff ${r.max}`);
    for (const k of Object.keys(b)) assert.equal(b[k].length, 5);
  }
  assert.deepEqual(problems, []);
});
