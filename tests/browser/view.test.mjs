// The view (issue 7) in Debian chromium: zoom, pan, texel grid, HDR display, overlays, inspector,
// mip strip, VT tile grid, cube cross, help, themes, the 1280x720 layout and share links. Expected
// values come from the fixtures' own definitions (src/fixtures/demo.rs, src/fixtures/frostbite.rs,
// tests/browser/dds-fixtures.mjs), the published formulas named next to them, and the DDS, BCn and
// UE virtual-texture layouts (seed 000); never from running the page's code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { OUT, openPage, stateWaiter, select, inMenu } from './harness.mjs';
import { header, fourcc, rgba8Dds, rgba8Texel } from './dds-fixtures.mjs';

const waitState = stateWaiter(30000);
const pixel = (page, x, y) => page.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]);
const shown = (page, x, y) => page.evaluate(([x, y]) => window.texscope.shown(x, y), [x, y]);
const display = (page) => page.evaluate(() => window.texscope.display());
const setDisplay = (page, s) => page.evaluate((s) => window.texscope.setDisplay(s), s);
const shot = (page, name) => page.screenshot({ path: join(OUT, name) });

async function openDemo(page, id) {
  await page.click(`[data-testid=demo-gallery] [data-testid=demo-${id}]`);
  await waitState(page, 'ready');
}
async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
  await waitState(page, 'ready');
}

// The Frostbite demo's RGBA8 rule at mip 0 (src/fixtures/frostbite.rs): (x*37, y*59, x^y, 255).
const fb = (x, y) => [(x * 37) & 255, (y * 59) & 255, x ^ y, 255];

// Screen position of the centre of texel (x, y) from the canvas box.
async function texelCentre(page, x, y) {
  const d = await display(page);
  const b = d.canvasBox;
  const v = await page.evaluate(() => window.texscope.view());
  return [b.x + ((x + 0.5) * b.width) / v.width, b.y + ((y + 0.5) * b.height) / v.height];
}

// sRGB transfer function, IEC 61966-2-1 (linear light -> encoded), as a byte.
const srgb8 = (v) => Math.round((v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055) * 255);
const near = (a, b, tol, msg) => assert.ok(a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= tol), `${msg}: ${a} vs ${b}`);

test('zoom, pan, fit, 1:1, nearest neighbour and the texel grid', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'frostbite-cas');
  let d = await display(page);
  assert.equal(d.fit, true);
  const vp = await page.locator('[data-testid=viewport]').boundingBox();
  // Fit: the largest whole zoom that leaves 16 px each side.
  assert.equal(d.zoom, Math.floor(Math.min((vp.width - 32) / 128, (vp.height - 32) / 128)));
  assert.deepEqual(d.center, [64, 64]);
  await page.keyboard.press('1');
  d = await display(page);
  assert.deepEqual([d.zoom, d.fit, d.rendering], [1, false, 'pixelated']);
  await page.keyboard.press('+');
  assert.equal((await display(page)).zoom, 2);
  await page.keyboard.press('-');
  await page.keyboard.press('-');
  d = await display(page);
  assert.deepEqual([d.zoom, d.rendering], [0.5, 'smooth'], 'below 1:1 the image is filtered');
  await page.keyboard.press('0');
  assert.equal((await display(page)).fit, true);

  // Wheel zoom keeps the texel under the mouse.
  await page.keyboard.press('1');
  const [mx, my] = await texelCentre(page, 40, 20);
  await page.mouse.move(mx, my);
  assert.equal(await page.textContent('[data-testid=pixel-label]'), `(40, 20)  ${fb(40, 20).join(', ')}`);
  await page.mouse.wheel(0, -600); // 100 px of delta per factor sqrt(2): 2^3
  await page.waitForFunction(() => window.texscope.display().zoom > 7.9);
  d = await display(page);
  assert.ok(Math.abs(d.zoom - 8) < 1e-9, `zoom ${d.zoom}`);
  assert.deepEqual((await display(page)).hover, [40, 20]);
  // The mouse (events carry whole pixels) is still inside texel (40, 20), now 8 px wide.
  const [mx2, my2] = await texelCentre(page, 40, 20);
  assert.ok(Math.abs(mx2 - mx) <= 4 && Math.abs(my2 - my) <= 4, `the texel stayed under the mouse: ${[mx, my]} ${[mx2, my2]}`);
  assert.equal(d.texelGrid, true, 'grid at 8x');

  // Drag pans by the mouse distance (in texels: distance / zoom).
  const before = d.center;
  await page.mouse.down();
  await page.mouse.move(mx - 80, my - 40, { steps: 4 });
  await page.mouse.up();
  d = await display(page);
  near(d.center, [before[0] + 10, before[1] + 5], 1e-9, 'pan');
  assert.equal(d.pin, null, 'a drag does not pin');

  // Nearest neighbour at 16x: the centre of every on-screen texel has exactly its colour.
  // The fixture's bytes are shown as stored when read as sRGB.
  await setDisplay(page, { zoom: 16, center: [20, 10], colour: 'srgb' });
  await shot(page, 'view-zoom16-grid.png');
  const png = await page.screenshot({ clip: { x: 0, y: 0, width: 1280, height: 720 } });
  for (const [x, y] of [[18, 8], [21, 11], [23, 9]]) {
    const [sx, sy] = await texelCentre(page, x, y);
    const got = await page.evaluate(async ([b64, sx, sy]) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = new OffscreenCanvas(img.width, img.height);
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return Array.from(g.getImageData(Math.floor(sx), Math.floor(sy), 1, 1).data);
    }, [png.toString('base64'), sx, sy]);
    assert.deepEqual(got, fb(x, y), `screen colour of texel (${x}, ${y})`);
  }
  assert.deepEqual(problems, []);
});

// One RGBA32F texel per entry, through a DX10 header (DXGI_FORMAT_R32G32B32A32_FLOAT = 2).
function rgba32fDds(width, height, texels) {
  const parts = [header({ width, height, mips: 1, pitchOrLinearSize: width * 16, linear: false, pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format: 2, arraySize: 1 } })];
  const data = Buffer.alloc(width * height * 16);
  texels.flat().forEach((v, i) => data.writeFloatLE(v, i * 4));
  return Buffer.concat([...parts, data]);
}
// RGBA8 through DX10: DXGI_FORMAT_R8G8B8A8_UNORM = 28, _UNORM_SRGB = 29.
function rgba8Dx10(width, height, texels, format) {
  const parts = [header({ width, height, mips: 1, pitchOrLinearSize: width * 4, linear: false, pf: { flags: 0x4, fourcc: fourcc('DX10') }, dx10: { format, arraySize: 1 } })];
  return Buffer.concat([...parts, Buffer.from(texels.flat())]);
}

test('HDR: exposure, tonemaps, NaN/Inf/negative overlay', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'hdr');
  // The sun's centre (192, 40) is (16, 14, 10) (src/fixtures/demo.rs SUN); HDR data is linear.
  assert.equal((await display(page)).colour, 'linear');
  assert.deepEqual(await shown(page, 192, 40), [255, 255, 255, 255], 'clamped at EV 0');
  await page.$eval('[data-testid=exposure]', (e) => { e.value = '-4'; e.dispatchEvent(new Event('input')); });
  // EV -4 scales by 1/16: (1, 0.875, 0.625) then the sRGB curve.
  near(await shown(page, 192, 40), [255, srgb8(0.875), srgb8(0.625), 255], 1, 'EV -4');
  await shot(page, 'view-hdr-ev-4.png');
  await inMenu(page, 'tonemap', (s) => page.selectOption(s, 'reinhard'));
  // Reinhard v/(1+v) on (1, 0.875, 0.625).
  near(await shown(page, 192, 40), [srgb8(0.5), srgb8(0.875 / 1.875), srgb8(0.625 / 1.625), 255], 1, 'Reinhard');
  await inMenu(page, 'tonemap', (s) => page.selectOption(s, 'aces'));
  const aces = (v) => (v * (2.51 * v + 0.03)) / (v * (2.43 * v + 0.59) + 0.14); // Narkowicz 2015
  near(await shown(page, 192, 40), [srgb8(aces(1)), srgb8(aces(0.875)), srgb8(aces(0.625)), 255], 1, 'ACES-like');
  await shot(page, 'view-hdr-aces.png');
  assert.deepEqual(await pixel(page, 192, 40), [16, 14, 10, 1], 'raw values unchanged');
  // Auto: the sun's 16 is the sky's brightest value (src/fixtures/demo.rs SUN), so -log2(16) = -4 EV.
  await inMenu(page, 'exposure-auto', (s) => page.click(s));
  assert.equal((await display(page)).exposure, -4);

  // A float texture with NaN, +Inf, a negative and a plain texel.
  await drop(page, [['bad.dds', rgba32fDds(4, 1, [[NaN, 0, 0, 1], [Infinity, 1, 0, 1], [-0.5, 0.2, 0.2, 1], [0.5, 0.5, 0.5, 1]])]]);
  await select(page, { texture: 'bad' });
  await setDisplay(page, { exposure: 0, tonemap: 'clamp' });
  const p0 = await pixel(page, 0, 0);
  assert.ok(Number.isNaN(p0[0]), 'NaN read back raw');
  assert.equal(await page.textContent('[data-testid=bad-label]'), '1 NaN · 1 Inf · 1 negative');
  await inMenu(page, 'bad-overlay', (s) => page.click(s));
  // Marks: NaN magenta, Inf yellow, negative cyan; the plain texel keeps its colour.
  assert.deepEqual(await shown(page, 0, 0), [255, 0, 255, 255]);
  assert.deepEqual(await shown(page, 1, 0), [255, 255, 0, 255]);
  assert.deepEqual(await shown(page, 2, 0), [0, 255, 255, 255]);
  near(await shown(page, 3, 0), [srgb8(0.5), srgb8(0.5), srgb8(0.5), 255], 1, 'plain texel');
  await shot(page, 'view-bad-overlay.png');
  // Transparent texels over a chosen colour.
  await inMenu(page, 'background', (s) => page.selectOption(s, 'custom'));
  await page.$eval('[data-testid=bg-colour]', (e) => { e.value = '#204080'; e.dispatchEvent(new Event('input')); });
  assert.equal(await page.$eval('[data-testid=canvas]', (c) => getComputedStyle(c).backgroundColor), 'rgb(32, 64, 128)');
  await inMenu(page, 'background', (s) => page.selectOption(s, 'checker'));
  assert.match(await page.$eval('[data-testid=canvas]', (c) => getComputedStyle(c).backgroundImage), /conic-gradient/);
  assert.deepEqual(problems, []);
});

test('colour space default and toggle, normal-map view, green flip, Y flip', async (t) => {
  const { page, problems } = await openPage(t);
  const tex = [[64, 128, 0, 255], [128, 128, 0, 255], [255, 128, 0, 255], [64, 192, 0, 255]];
  await drop(page, [['lin.dds', rgba8Dx10(2, 2, tex, 28)], ['srgb.dds', rgba8Dx10(2, 2, tex, 29)]]);
  await select(page, { texture: 'srgb' });
  assert.equal((await display(page)).colour, 'srgb', 'UNORM_SRGB says sRGB');
  assert.deepEqual(await shown(page, 0, 0), tex[0], 'sRGB bytes go to the screen as stored');
  await select(page, { texture: 'lin' });
  assert.equal((await display(page)).colour, 'linear', 'UNORM says linear');
  // 8-bit data marked linear is shown as stored, as RenderDoc and the DirectX Texture Tool show UNORM.
  assert.deepEqual(await shown(page, 0, 0), tex[0], 'linear 8-bit shown as stored');
  await shot(page, 'view-linear-as-stored.png');
  // The toggle still gives the sRGB curve (IEC 61966-2-1) on demand.
  await inMenu(page, 'colour', (s) => page.selectOption(s, 'gamma'));
  near(await shown(page, 0, 0), [srgb8(64 / 255), srgb8(128 / 255), 0, 255], 1, 'linear + sRGB curve');
  await inMenu(page, 'colour', (s) => page.selectOption(s, 'srgb'));
  assert.deepEqual(await shown(page, 0, 0), tex[0], 'toggled to sRGB');

  // Normal view: x = 2r/255 - 1, y = 2g/255 - 1, z = sqrt(1 - x² - y²), shown as n/2 + 1/2.
  const nrm = ([r, g], flip) => {
    const x = (2 * r) / 255 - 1;
    const y = ((2 * g) / 255 - 1) * (flip ? -1 : 1);
    const z = Math.sqrt(Math.max(0, 1 - x * x - y * y));
    return [x, y, z].map((v) => Math.round((v * 0.5 + 0.5) * 255)).concat(255);
  };
  await inMenu(page, 'normal', (s) => page.selectOption(s, 'rg'));
  for (let i = 0; i < 4; i++) assert.deepEqual(await shown(page, i % 2, i >> 1), nrm(tex[i], false), `normal ${i}`);
  await inMenu(page, 'flip-green', (s) => page.click(s));
  assert.deepEqual(await shown(page, 1, 1), nrm(tex[3], true), 'green flipped');
  await inMenu(page, 'flip-green', (s) => page.click(s));
  await inMenu(page, 'normal', (s) => page.selectOption(s, 'off'));

  // Y flip: the canvas row 0 shows texel row 1; hovering still reads the texel under the mouse.
  await inMenu(page, 'flip-y', (s) => page.click(s));
  assert.deepEqual(await shown(page, 0, 0), tex[2]);
  const [sx, sy] = await texelCentre(page, 0, 0); // screen row 0 = texel row 1
  await page.mouse.move(sx, sy);
  assert.equal(await page.textContent('[data-testid=pixel-label]'), `(0, 1)  ${tex[2].join(', ')}`);
  assert.deepEqual(problems, []);
});

test('inspector: hover, click pins, arrows move the pin, block coordinates', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'ue-classic'); // BC1 512x512: 4x4 blocks (BC1 specification)
  await setDisplay(page, { zoom: 4, center: [16, 8] });
  const [sx, sy] = await texelCentre(page, 13, 6);
  await page.mouse.click(sx, sy);
  const raw = await pixel(page, 13, 6);
  assert.deepEqual((await display(page)).pin, [13, 6]);
  // src/fixtures/demo.rs bc1_flat writes flat blocks with colour0 == colour1, which is BC1's 3-colour mode
  // (colour0 <= colour1, D3D11 spec "BC1").
  assert.equal(await page.textContent('[data-testid=insp-pin]'), `(13, 6) · block (3, 1) · BC1 3-colour + transparent  ${raw.join(', ')}`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+ArrowRight');
  assert.deepEqual((await display(page)).pin, [22, 7]);
  assert.equal(await page.textContent('[data-testid=insp-pin]'), `(22, 7) · block (5, 1) · BC1 3-colour + transparent  ${(await pixel(page, 22, 7)).join(', ')}`);
  // View settings do not change the inspector's raw value.
  await page.keyboard.press('Shift+G');
  await page.keyboard.press('e');
  assert.match(await page.textContent('[data-testid=insp-pin]'), new RegExp(`${(await pixel(page, 22, 7)).join(', ')}$`));
  await shot(page, 'view-inspector-pin.png');
  assert.deepEqual(problems, []);
});

test('mip strip: sizes, where each mip lives, missing mips name their file', async (t) => {
  const { page, problems } = await openPage(t);
  // src/fixtures/demo.rs: T_Bricks_D BC1 512², mips 0-1 streamed from .ubulk, 2-9 inline in .uexp.
  await page.evaluate(() => window.texscope.openDemo('ue-classic', { without: ['T_Bricks_D.ubulk'] }));
  await waitState(page, 'ready');
  const chips = await page.$$eval('[data-testid=mip-strip] .mip-chip', (l) => l.map((c) => ({ where: c.dataset.where, text: c.textContent })));
  assert.equal(chips.length, 10);
  assert.match(chips[0].text, /^0 · 512×512/);
  assert.equal(chips[0].where, 'missing');
  assert.match(chips[0].text, /drop T_Bricks_D\.ubulk/);
  assert.equal(chips[1].where, 'missing');
  assert.equal(chips[2].where, 'inline');
  assert.match(chips[2].text, /^2 · 128×128inline · T_Bricks_D\.uexp/);
  assert.match(chips[9].text, /^9 · 1×1/);
  await shot(page, 'view-mip-strip-missing.png');
  // Dropping the .ubulk completes mips 0-1.
  await page.evaluate(() => window.texscope.openDemo('ue-classic', { only: ['T_Bricks_D.ubulk'] }));
  await waitState(page, 'ready');
  const after = await page.$$eval('[data-testid=mip-strip] .mip-chip', (l) => l.map((c) => ({ where: c.dataset.where, text: c.textContent })));
  assert.equal(after[0].where, 'streamed');
  assert.match(after[0].text, /T_Bricks_D\.ubulk/);
  await page.click('[data-testid=mip-chip-3]');
  await page.waitForFunction(() => window.texscope.view()?.mip === 3);
  assert.equal((await page.evaluate(() => window.texscope.view())).width, 64);
  await shot(page, 'view-mip-strip.png');
  assert.deepEqual(problems, []);
});

test('VT tile grid: tile, Morton address, index, byte range, holes marked', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'ue5-vt');
  await page.click('[data-testid=vt-grid]');
  await page.waitForFunction(() => window.texscope.display()?.tiles);
  const g = await page.evaluate(() => window.texscope.grid());
  // src/fixtures/demo.rs: 8x8 tiles of 64 px, border 4, holes at mip 0 (1, 2) and (6, 0).
  assert.deepEqual([g.width_tiles, g.height_tiles, g.tile_size, g.tile_border], [8, 8, 64, 4]);
  const at = (x, y) => g.tiles[y * 8 + x];
  // Morton: x bits even, y bits odd (seed 000): (1, 2) -> 0b1001 = 9, (6, 0) -> 0b10100 = 20.
  assert.deepEqual([at(1, 2).morton, at(1, 2).tile_index, at(1, 2).present], [9, null, false]);
  assert.deepEqual([at(6, 0).morton, at(6, 0).tile_index], [20, null]);
  // Tiles are numbered in Morton order over present cells: (2, 0) has Morton 4 and no hole
  // before it; (7, 0) has Morton 21 and two holes (9 and 20) before it.
  assert.equal(at(2, 0).tile_index, 4);
  assert.equal(at(7, 0).tile_index, 19);
  // A BC1 physical tile is (64 + 2*4)² px = 18x18 blocks of 8 bytes = 2592; a tile record holds
  // BC1 + BC5 (18x18 x 16 = 5184) = 7776 bytes.
  assert.equal(at(0, 0).length, 2592);
  assert.equal(at(2, 0).offset - at(0, 0).offset, 4 * 7776);
  // Hover over a hole and over a tile.
  await page.mouse.move(...(await texelCentre(page, 100, 150)));
  assert.equal(await page.textContent('[data-testid=tile-info]'), 'tile (1, 2) · Morton 9 · no tile (fallback colour)');
  await page.mouse.move(...(await texelCentre(page, 140, 10)));
  const o = at(2, 0).offset;
  assert.equal(await page.textContent('[data-testid=tile-info]'), `tile (2, 0) · Morton 4 · index 4 · chunk 0 · bytes ${o}–${o + 2591} (2592)`);
  // The hole is tinted red in the overlay canvas.
  const [hx, hy] = await texelCentre(page, 100, 150);
  const vp = await page.locator('[data-testid=viewport]').boundingBox();
  const tint = await page.evaluate(([x, y]) => Array.from(document.getElementById('overlay').getContext('2d').getImageData(x, y, 1, 1).data), [Math.floor(hx - vp.x) + 3, Math.floor(hy - vp.y) + 3]);
  assert.ok(tint[3] > 0 && tint[0] > tint[1], `hole overlay ${tint}`);
  await shot(page, 'view-vt-grid.png');
  // Layer 1 and mip 1 ask the core again: mip 1 is 4x4 tiles with the hole (3, 3).
  await select(page, { mip: 1, slice: 1 });
  const g1 = await page.evaluate(() => window.texscope.grid());
  assert.deepEqual([g1.width_tiles, g1.tiles[3 * 4 + 3].tile_index], [4, null]);
  // BC5 tile: 18x18 blocks x 16 bytes.
  assert.equal(g1.tiles[0].length, 5184);
  assert.deepEqual(problems, []);
});

test('VT without its .ubulk: the mip strip names it, tiles are marked as not opened', async (t) => {
  const { page, problems } = await openPage(t);
  // src/fixtures/unreal.rs writes every VT chunk into the one .ubulk.
  await page.evaluate(() => window.texscope.openDemo('ue5-vt', { without: ['T_Landscape_VT.ubulk'] }));
  await waitState(page, 'ready');
  const chip = await page.$eval('[data-testid=mip-chip-0]', (c) => ({ where: c.dataset.where, text: c.textContent }));
  assert.equal(chip.where, 'missing');
  assert.match(chip.text, /drop T_Landscape_VT\.ubulk/);
  // Every cell shows layer 0's fallback, magenta (src/fixtures/demo.rs VT_FALLBACK).
  assert.deepEqual(await pixel(page, 10, 10), [255, 0, 255, 255]);
  await page.keyboard.press('t');
  await page.waitForFunction(() => window.texscope.display()?.tiles);
  const g = await page.evaluate(() => window.texscope.grid());
  assert.deepEqual(g.chunk_missing, ['T_Landscape_VT.ubulk']);
  assert.ok(g.tiles.every((x) => !x.present), 'no tile can be read');
  await page.mouse.move(...(await texelCentre(page, 10, 10)));
  assert.match(await page.textContent('[data-testid=tile-info]'), /^tile \(0, 0\) · Morton 0 · index 0 · chunk 0 · bytes \d+–\d+ \(2592\) · chunk not opened$/);
  await shot(page, 'view-vt-missing-ubulk.png');
  assert.deepEqual(problems, []);
});

test('cube cross, info JSON copy, shortcut list, themes, 1280x720 layout', async (t) => {
  const { page, problems } = await openPage(t);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await openDemo(page, 'cubemap');
  await page.click('[data-testid=cube-cross]');
  await page.waitForFunction(() => window.texscope.display()?.cross);
  const v = await page.evaluate(() => window.texscope.view());
  assert.deepEqual([v.width, v.height], [256, 192], '4x3 faces of 64');
  // Face colours in D3D order (src/fixtures/demo.rs FACES) at the horizontal-cross cells.
  const faces = [[220, 60, 60], [60, 200, 200], [70, 200, 70], [200, 70, 200], [70, 90, 220], [220, 200, 60]];
  const cells = { 0: [2, 1], 1: [0, 1], 2: [1, 0], 3: [1, 2], 4: [1, 1], 5: [3, 1] };
  for (const [f, [cx, cy]] of Object.entries(cells)) assert.deepEqual(await pixel(page, cx * 64 + 32, cy * 64 + 32), [...faces[f], 255], `face ${f}`);
  assert.deepEqual(await pixel(page, 10, 10), [0, 0, 0, 0], 'no face in the corner');
  await page.mouse.move(...(await texelCentre(page, 2 * 64 + 5, 64 + 7)));
  assert.equal(await page.textContent('[data-testid=insp-hover]'), `(133, 71) · face +X (5, 7)  ${(await pixel(page, 133, 71)).join(', ')}`);
  await shot(page, 'view-cube-cross.png');

  await page.click('[data-testid=copy-info]');
  const json = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  assert.deepEqual([json.census.name, json.census.kind, json.mips.length], ['sky_cube', 'cube', 7], '64² full chain: 7 mips');

  await page.keyboard.press('?');
  assert.equal(await page.isVisible('[data-testid=help]'), true);
  assert.ok((await page.$$('#help-table tr')).length >= 15);
  await shot(page, 'view-help.png');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('[data-testid=help]'), false);

  // Every toolbar control is on screen and on top at 1280x720.
  const off = await page.$$eval('[data-testid=toolbar] button:not([hidden]), [data-testid=toolbar] select, [data-testid=toolbar] input:not([hidden])', (els) => els.filter((e) => {
    const r = e.getBoundingClientRect();
    const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !(r.width > 0 && r.right <= 1280 && r.bottom <= 720 && (top === e || e.contains(top) || top?.closest('label')?.contains(e)));
  }).map((e) => e.id || e.dataset.testid || e.textContent));
  assert.deepEqual(off, []);
  // The theme follows the system (prefers-color-scheme); --bg is #15171a dark, #f3f4f6 light.
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(21, 23, 26)');
  await shot(page, 'view-1280x720-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(243, 244, 246)');
  await shot(page, 'view-1280x720-light.png');
  assert.deepEqual(problems, []);
});

test('share link: a demo view restores fully; local files are asked for; bad values ignored', async (t) => {
  const { page, problems } = await openPage(t);
  await openDemo(page, 'hdr');
  await setDisplay(page, { exposure: -2.5, tonemap: 'reinhard', channels: { r: true, g: false, b: true, a: true }, zoom: 4, center: [190, 41.5], pin: [192, 40], badOverlay: true });
  const want = await display(page);
  const link = await page.evaluate(() => window.texscope.shareLink());
  assert.match(link, /#v=1&demo=hdr&tex=sky_hdr/);

  const { page: p2, problems: pr2 } = await openPage(t);
  await p2.goto('about:blank');
  await p2.goto(link);
  await p2.waitForFunction(() => window.texscope.display()?.pin, null, { timeout: 30000 });
  const got = await display(p2);
  for (const k of ['zoom', 'center', 'channels', 'exposure', 'tonemap', 'colour', 'pin', 'badOverlay', 'fit']) assert.deepEqual(got[k], want[k], k);
  assert.deepEqual(await p2.evaluate(() => window.texscope.view()), await page.evaluate(() => window.texscope.view()));
  await p2.screenshot({ path: join(OUT, 'view-share-restored.png') });

  // Local files: the link names them; the page asks; dropping them restores the view.
  await drop(page, [['rgba8.dds', rgba8Dds(4, 4, 2)]]);
  await select(page, { texture: 'rgba8', mip: 1 });
  const local = await page.evaluate(() => window.texscope.shareLink());
  // Each local file is f=<size>~<SHA-256 of its first and last MiB (here: the whole file)>~<name>,
  // the hash computed here with Node's crypto.
  const sha = (b) => createHash('sha256').update(b).digest('hex');
  const hdrBytes = Buffer.from((await page.evaluate(() => window.texscope.demoFiles('hdr')))[0].data);
  const rgba = rgba8Dds(4, 4, 2);
  const f = (name, b) => `${b.length}~${sha(b)}~${name}`;
  assert.deepEqual(new URLSearchParams(new URL(local).hash.slice(1)).getAll('f'), [f('sky_hdr.dds', hdrBytes), f('rgba8.dds', rgba)]);
  assert.deepEqual((await page.evaluate((h) => window.texscope.parseShare(h), new URL(local).hash)).fileMeta,
    [{ name: 'sky_hdr.dds', size: hdrBytes.length, hash: sha(hdrBytes) }, { name: 'rgba8.dds', size: rgba.length, hash: sha(rgba) }]);
  const { page: p3, problems: pr3 } = await openPage(t);
  await p3.goto(local);
  await p3.waitForSelector('[data-testid=share-need]:not([hidden])');
  assert.match(await p3.textContent('[data-testid=share-need]'), /drop sky_hdr\.dds, rgba8\.dds/);
  // A different rgba8.dds (one mip, so smaller) is named as differing.
  // The page hashes dropped files asynchronously: wait for the message to change, then check it.
  const needText = async (re) => {
    await p3.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid=share-need]')?.textContent ?? ''), re.source, { timeout: 30000 }).catch(() => {});
    return p3.textContent('[data-testid=share-need]');
  };
  await drop(p3, [['rgba8.dds', rgba8Dds(4, 4, 1)]]);
  assert.match(await needText(/Not the linked file/), /drop sky_hdr\.dds to see it.*Not the linked file: rgba8\.dds \(\d+ bytes, the link's has \d+\)/);
  await p3.screenshot({ path: join(OUT, 'view-share-differ.png') });
  await drop(p3, [['rgba8.dds', rgba8Dds(4, 4, 2)]]);
  assert.match(await needText(/see it\.$/), /drop sky_hdr\.dds to see it\.$/);
  await p3.evaluate(() => window.texscope.openDemo('hdr'));
  await p3.waitForFunction(() => window.texscope.view()?.mip === 1 && window.texscope.view()?.texture === 'rgba8', null, { timeout: 30000 });
  assert.deepEqual(await pixel(p3, 1, 1), rgba8Texel(1, 1, 1));
  assert.equal(await p3.isVisible('[data-testid=share-need]'), false);

  // Hand-edited values are dropped, never thrown.
  const parsed = await page.evaluate(() => window.texscope.parseShare('#v=1&demo=evil&mip=-3&slice=1e9&ev=abc&tm=<script>&z=1e999&c=1,2,3&pin=1,x&ch=rgbz&cs=xyz&fy=yes&tex=%00'));
  assert.deepEqual(parsed, {});
  const { page: p4, problems: pr4 } = await openPage(t);
  await p4.goto(`${new URL(link).origin}/#v=1&demo=cubemap&tex=nope&mip=99&slice=77&z=0&pin=99999,3`);
  await waitState(p4, 'ready');
  assert.deepEqual(await p4.evaluate(() => { const v = window.texscope.view(); return [v.texture, v.mip, v.slice]; }), ['sky_cube', 0, 0]);
  assert.deepEqual([...problems, ...pr2, ...pr3, ...pr4], []);
});
