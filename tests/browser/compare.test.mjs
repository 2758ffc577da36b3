// The compare view (issue 21) in Debian chromium: side by side, swipe, flicker and difference on
// a texture against a modified copy and on two demo textures, a texture against another of its
// mips, two builds, and the share link. Expected values: the modified copy's changes worked by
// hand from the RGBA8 texel rule of dds-fixtures.mjs; the demos' figures computed here, by this
// file's own formulas (docs/compare.md), from the surfaces the single view decodes; the ramp's
// colours from its stops as docs/compare.md states them. Never from the compare code itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OUT, inMenu, openPage, stateWaiter } from './harness.mjs';
import { rgba8Dds, rgba8Texel } from './dds-fixtures.mjs';

const waitState = stateWaiter(60000);
const cmp = (page) => page.evaluate(() => window.texscope.compare());
const waitCompare = (page, state = 'ready') => page.waitForFunction((s) => window.texscope.compare()?.state === s, state, { timeout: 60000 });
const shownAt = async (page, x, y, pane = 'a') => {
  const [cx, cy] = await page.evaluate(([x, y, p]) => window.texscope.comparePoint(x, y, p), [x, y, pane]);
  return page.evaluate(([cx, cy]) => window.texscope.compareShownAt(cx, cy), [cx, cy]);
};
// What texel (x, y) of pane A shows once the flicker shows `which`, read in the same turn of the
// page as the flicker's state (it turns every 600 ms, which a slow machine can take between two
// evaluate calls).
const flickerShownAt = async (page, which, x, y) => (await page.waitForFunction(([w, x, y]) => {
  if (window.texscope.compare().flicker !== w) return null;
  const [cx, cy] = window.texscope.comparePoint(x, y, 'a');
  return window.texscope.compareShownAt(cx, cy);
}, [which, x, y], { timeout: 5000 })).jsonValue();

async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
  await waitState(page, 'ready');
}

// The original: 8x8 RGBA8, texel (x, y) = rgba8Texel(x, y, 0). The copy: red of texel (5, 2) +3,
// green of texel (1, 6) −1 (rgba8Texel(1, 6, 0) has green 6*60+3 & 255 = 107, red of (5, 2) is 44).
const W = 8;
const at = (x, y, c) => 128 + (y * W + x) * 4 + c; // after the 128-byte legacy header
function originalAndCopy() {
  const orig = rgba8Dds(W, W, 1);
  const copy = Buffer.from(orig);
  copy[at(5, 2, 0)] += 3;
  copy[at(1, 6, 1)] -= 1;
  return { orig, copy };
}

// The colour ramp of docs/compare.md: black, deep blue, magenta, orange, yellow, white at 0, 0.2,
// 0.4, 0.6, 0.8, 1, linear between.
const STOPS = [[0, 0, 0], [0, 0, 160], [200, 0, 200], [255, 128, 0], [255, 255, 0], [255, 255, 255]];
function ramp(t) {
  const pos = Math.min(1, Math.max(0, t)) * 5;
  const k = Math.min(4, Math.floor(pos));
  const f = pos - k;
  return STOPS[k].map((v, c) => Math.round(v + (STOPS[k + 1][c] - v) * f));
}

test('a texture against a modified copy: figures, inspector and the four views', async (t) => {
  const { page, problems } = await openPage(t);
  const { orig, copy } = originalAndCopy();
  await drop(page, [['orig.dds', orig], ['copy.dds', copy]]);
  await page.evaluate(() => window.texscope.select({ texture: 'orig' }));
  // Alpha off (shown opaque): a canvas keeps colours premultiplied, so translucent texels would
  // not read back exactly.
  await page.click('[data-testid=channel-a]');
  // The Compare button: A is the texture shown, B the next one listed.
  await page.click('[data-testid=compare-button]');
  await waitCompare(page);
  let c = await cmp(page);
  assert.deepEqual([c.a.name, c.b.name, c.mode], ['orig', 'copy', 'side']);
  assert.deepEqual(c.plan, { a_mip: 0, b_mip: 0, scaled: false, notice: null });
  // By hand: 2 of 64 texels differ, in columns 1..5 and rows 2..6; red by 3 levels in one texel,
  // green by 1 in another: PSNR_r = 10 log10(64 · 255² / 9), PSNR_g = 10 log10(64 · 255²).
  const f = c.figures;
  assert.equal(f.differing_texels, 2);
  assert.equal(f.differing_share, 2 / 64);
  assert.deepEqual(f.bbox, { x: 1, y: 2, width: 5, height: 5 });
  assert.equal(f.max_abs, 3 / 255);
  assert.ok(Math.abs(f.channels[0].psnr - 10 * Math.log10((64 * 255 * 255) / 9)) < 1e-9, `${f.channels[0].psnr}`);
  assert.ok(Math.abs(f.channels[1].psnr - 10 * Math.log10(64 * 255 * 255)) < 1e-9);
  assert.deepEqual([f.channels[2].psnr, f.channels[3].psnr], [null, null]);
  assert.ok(Math.abs(f.mean_abs - 4 / 255 / 256) < 1e-15);
  assert.match(c.figuresText, /2 texels differ \(3\.13%\) in \(1, 2\) 5×5/);
  assert.match(c.figuresText, /max \|B−A\| 0\.01176 \(3\/255\)/);

  // Side by side: A's texel in the left pane, B's in the right one, at the same zoom.
  const opaque = (v) => [v[0], v[1], v[2], 255];
  const raw52 = rgba8Texel(5, 2, 0);
  const a52 = opaque(raw52);
  const b52 = opaque([raw52[0] + 3, ...raw52.slice(1)]);
  let s = await shownAt(page, 5, 2, 'a');
  assert.deepEqual([s.which, s.texel, s.rgba], ['a', [5, 2], a52]);
  s = await shownAt(page, 5, 2, 'b');
  assert.deepEqual([s.which, s.texel, s.rgba], ['b', [5, 2], b52]);
  // The inspector: hovering texel (5, 2) in B's pane shows A, B and B − A.
  const [hx, hy] = await page.evaluate(() => window.texscope.comparePoint(5, 2, 'b'));
  await page.mouse.move(hx, hy);
  c = await cmp(page);
  assert.deepEqual(c.hover, [5, 2]);
  assert.equal(c.inspector.hover, `(5, 2)  A ${raw52.join(', ')} · B ${[raw52[0] + 3, ...raw52.slice(1)].join(', ')} · B−A +0.01176, 0, 0, 0`);
  // Locked zoom: zooming in B's pane zooms A's too (one view state), around the pointer.
  const z0 = c.view.zoom;
  await page.mouse.wheel(0, -200);
  c = await cmp(page);
  assert.ok(c.view.zoom > z0 && !c.view.fit, JSON.stringify(c.view));
  s = await shownAt(page, 5, 2, 'a');
  assert.deepEqual([s.which, s.rgba], ['a', a52]);
  await page.keyboard.press('f');
  await page.screenshot({ path: join(OUT, 'compare-side.png') });

  // Swipe: A left of the line, B right. The line starts at the middle: texel column 4 of 8.
  await page.click('[data-testid=compare-mode-swipe]');
  s = await shownAt(page, 5, 2);
  assert.deepEqual([s.which, s.rgba], ['b', b52]);
  s = await shownAt(page, 1, 6);
  assert.deepEqual([s.which, s.rgba], ['a', opaque(rgba8Texel(1, 6, 0))]);
  // Dragging the line right of column 5 shows A there.
  const line = await page.locator('[data-testid=compare-line] .cmp-handle').boundingBox();
  const [x6] = await page.evaluate(() => window.texscope.comparePoint(6, 2, 'a'));
  await page.mouse.move(line.x + line.width / 2, line.y + line.height / 2);
  await page.mouse.down();
  await page.mouse.move(x6, line.y + line.height / 2, { steps: 5 });
  await page.mouse.up();
  c = await cmp(page);
  assert.ok(c.swipe > 0.5, `${c.swipe}`);
  s = await shownAt(page, 5, 2);
  assert.deepEqual([s.which, s.rgba], ['a', a52]);
  s = await shownAt(page, 7, 2);
  assert.equal(s.which, 'b');
  await page.screenshot({ path: join(OUT, 'compare-swipe.png') });

  // Flicker: A and B in turn, the same texel showing each one's value.
  await page.click('[data-testid=compare-mode-flicker]');
  for (const [which, want] of [['b', b52], ['a', a52], ['b', b52]]) {
    s = await flickerShownAt(page, which, 5, 2);
    assert.deepEqual([s.which, s.rgba], [which, want]);
  }

  // Difference, largest channel through the ramp, scaled so the largest difference (3/255) is near
  // the top: EV = floor(−log2(3/255) · 4) / 4 = 6.25 (25.65 quarter stops rounded down).
  await page.click('[data-testid=compare-mode-diff]');
  await page.click('[data-testid=compare-fit-diff]');
  assert.equal(await page.evaluate(() => Number(document.querySelector('[data-testid=exposure]').value)), 6.25);
  const scaled = (levels) => Math.min(1, (levels / 255) * 2 ** 6.25);
  s = await shownAt(page, 5, 2);
  assert.deepEqual([s.which, s.rgba], ['diff', [...ramp(Math.round(scaled(3) * 255) / 255), 255]]);
  s = await shownAt(page, 1, 6);
  assert.deepEqual(s.rgba, [...ramp(Math.round(scaled(1) * 255) / 255), 255]);
  s = await shownAt(page, 0, 0);
  assert.deepEqual(s.rgba, [0, 0, 0, 255]);
  await page.screenshot({ path: join(OUT, 'compare-diff.png') });
  // Per channel: red shows the red difference, green the green one.
  await page.selectOption('[data-testid=compare-diff]', 'channels');
  s = await shownAt(page, 5, 2);
  assert.deepEqual(s.rgba, [Math.round(scaled(3) * 255), 0, 0, 255]);
  s = await shownAt(page, 1, 6);
  assert.deepEqual(s.rgba, [0, Math.round(scaled(1) * 255), 0, 255]);
  // The channel buttons choose the channels: green alone shows as grey, and red's change is gone.
  await page.keyboard.press('Shift+G');
  s = await shownAt(page, 1, 6);
  const g = Math.round(scaled(1) * 255);
  assert.deepEqual(s.rgba, [g, g, g, 255]);
  s = await shownAt(page, 5, 2);
  assert.deepEqual(s.rgba, [0, 0, 0, 255]);
  // The Reinhard tonemap goes through too: v / (1 + v) of the scaled difference.
  await inMenu(page, 'tonemap', (sel) => page.selectOption(sel, 'reinhard'));
  s = await shownAt(page, 1, 6);
  const v = scaled(1) / (1 + scaled(1));
  assert.deepEqual(s.rgba.slice(0, 3), [1, 1, 1].map(() => Math.round(v * 255)));

  // Esc closes the compare view; the single view is back.
  await page.keyboard.press('Escape');
  assert.equal(await cmp(page), null);
  assert.equal(await page.locator('[data-testid=viewport]').isVisible(), true);
  assert.deepEqual(problems, []);
});

// The surfaces the single view decodes (texscope.select + pixel), as flat RGBA arrays.
async function surface(page, name, mip = 0) {
  return page.evaluate(async ([name, mip]) => {
    const ts = window.texscope;
    const v = await ts.select({ texture: name, mip, slice: 0 });
    const data = [];
    for (let y = 0; y < v.height; y++) for (let x = 0; x < v.width; x++) data.push(...ts.pixel(x, y));
    return { width: v.width, height: v.height, data };
  }, [name, mip]);
}

// The figures of docs/compare.md, computed here over two 8-bit surfaces of one size.
function figures8(a, b) {
  const n = a.width * a.height;
  const max = [0, 0, 0, 0];
  const sq = [0, 0, 0, 0];
  let sum = 0;
  let count = 0;
  let box = null;
  for (let p = 0; p < n; p++) {
    let differs = false;
    for (let c = 0; c < 4; c++) {
      const d = Math.abs(b.data[p * 4 + c] - a.data[p * 4 + c]);
      max[c] = Math.max(max[c], d);
      sq[c] += d * d;
      sum += d;
      differs ||= d > 0;
    }
    if (differs) {
      count++;
      const x = p % a.width;
      const y = Math.floor(p / a.width);
      box = box ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)] : [x, y, x, y];
    }
  }
  return {
    max_abs: Math.max(...max) / 255, mean_abs: sum / 255 / (4 * n), differing_texels: count,
    bbox: box && { x: box[0], y: box[1], width: box[2] - box[0] + 1, height: box[3] - box[1] + 1 },
    psnr: sq.map((s) => (s ? 10 * Math.log10((255 * 255 * n) / s) : null)),
  };
}

function assertFigures(got, want) {
  assert.equal(got.differing_texels, want.differing_texels);
  assert.deepEqual(got.bbox, want.bbox);
  assert.equal(got.max_abs, want.max_abs);
  assert.ok(Math.abs(got.mean_abs - want.mean_abs) < 1e-12, `${got.mean_abs} != ${want.mean_abs}`);
  got.channels.forEach((c, i) => {
    if (want.psnr[i] === null) assert.equal(c.psnr, null, `channel ${i}`);
    else assert.ok(Math.abs(c.psnr - want.psnr[i]) < 1e-9, `channel ${i}: ${c.psnr} != ${want.psnr[i]}`);
  });
}

// Each view at texel (x, y) (left of the middle) and (x2, y2) (right of it), for opaque 8-bit
// surfaces a and b shown as stored: side by side, swipe, flicker, and the difference scaled to
// its maximum through the ramp.
async function driveViews(page, a, b, [x, y], [x2, y2]) {
  const rgba = (s, x, y) => { const i = (y * s.width + x) * 4; return [s.data[i], s.data[i + 1], s.data[i + 2], 255]; };
  await page.click('[data-testid=compare-mode-side]');
  assert.deepEqual((await shownAt(page, x, y, 'a')).rgba, rgba(a, x, y));
  assert.deepEqual((await shownAt(page, x, y, 'b')).rgba, rgba(b, x, y));
  await page.click('[data-testid=compare-mode-swipe]');
  let s = await shownAt(page, x, y);
  assert.deepEqual([s.which, s.rgba], ['a', rgba(a, x, y)]);
  s = await shownAt(page, x2, y2);
  assert.deepEqual([s.which, s.rgba], ['b', rgba(b, x2, y2)]);
  await page.click('[data-testid=compare-mode-flicker]');
  for (const which of ['b', 'a']) {
    s = await flickerShownAt(page, which, x2, y2);
    assert.deepEqual([s.which, s.rgba], [which, rgba(which === 'a' ? a : b, x2, y2)]);
  }
  await page.click('[data-testid=compare-mode-diff]');
  await page.selectOption('[data-testid=compare-diff]', 'max');
  await page.click('[data-testid=compare-fit-diff]');
  const ev = await page.evaluate(() => Number(document.querySelector('[data-testid=exposure]').value));
  const c = await cmp(page);
  assert.equal(ev, Math.floor(-Math.log2(c.figures.max_abs) * 4) / 4);
  for (const [px, py] of [[x, y], [x2, y2]]) {
    const d = Math.max(...[0, 1, 2].map((k) => Math.abs(rgba(b, px, py)[k] - rgba(a, px, py)[k])));
    const v = Math.min(1, (d / 255) * 2 ** ev);
    s = await shownAt(page, px, py);
    assert.deepEqual([s.which, s.rgba], ['diff', [...ramp(Math.round(v * 255) / 255), 255]], `texel (${px}, ${py}), d ${d}`);
  }
}

test('two demo textures: figures from the single view\'s decodes, and each view', async (t) => {
  const { page, problems } = await openPage(t);
  await page.evaluate(() => window.texscope.openDemo('ue-classic'));
  await page.evaluate(() => window.texscope.openDemo('ue5-vt'));
  await waitState(page, 'ready');
  // T_Bricks_D (BC1 512², src/fixtures/demo.rs) against layer 0 of T_Landscape_VT (BC1 512²).
  const a = await surface(page, 'T_Bricks_D');
  const b = await surface(page, 'T_Landscape_VT');
  let c = await page.evaluate(() => window.texscope.compareOpen({ a: 'T_Bricks_D', b: 'T_Landscape_VT' }));
  assert.deepEqual(c.plan, { a_mip: 0, b_mip: 0, scaled: false, notice: null });
  assert.deepEqual(c.size, [512, 512]);
  const want = figures8(a, b);
  assert.ok(want.differing_texels > 1000, 'two different pictures');
  assertFigures(c.figures, want);
  // The compared texels are the single view's: A, B and B − A at a few texels.
  for (const [x, y] of [[0, 0], [17, 300], [511, 511]]) {
    const got = await page.evaluate(([x, y]) => window.texscope.compareTexel(x, y), [x, y]);
    const i = (y * 512 + x) * 4;
    assert.deepEqual(got.a, a.data.slice(i, i + 4));
    assert.deepEqual(got.b, b.data.slice(i, i + 4));
    assert.deepEqual(got.d, [0, 1, 2, 3].map((k) => (b.data[i + k] - a.data[i + k]) / 255));
  }
  await driveViews(page, a, b, [100, 200], [400, 300]);
  await page.click('[data-testid=compare-mode-swipe]');
  await page.screenshot({ path: join(OUT, 'compare-demos.png') });
  // The stage alone (bar, figures, swipe), as docs/img/compare.png shows it.
  await page.locator('.stage').screenshot({ path: join(OUT, 'compare-stage.png') });
  // In the compare view a texture clicked in the list becomes B: A against itself, no difference.
  await page.click('[data-testid=texture-list] .tex[data-index="0"]');
  await page.waitForFunction(() => window.texscope.compare()?.b.name === 'T_Bricks_D' && window.texscope.compare().state === 'ready');
  c = await cmp(page);
  assert.deepEqual([c.a.name, c.figures.differing_texels, c.figures.max_abs], ['T_Bricks_D', 0, 0]);
  assert.deepEqual(problems, []);
});

test('a texture against another of its mips (float): B scaled to A with a notice', async (t) => {
  const { page, problems } = await openPage(t);
  await page.evaluate(() => window.texscope.openDemo('hdr'));
  await waitState(page, 'ready');
  // sky_hdr.dds: RGBA16F 256x128 (src/fixtures/demo.rs). Mip 1 is 128x64: picked by hand, it is
  // sampled at mip 0's size by the nearest texel: texel x reads floor((x + 0.5) · 128 / 256).
  const a = await surface(page, 'sky_hdr', 0);
  const m1 = await surface(page, 'sky_hdr', 1);
  const c = await page.evaluate(() => window.texscope.compareOpen({ a: 'sky_hdr', aMip: 0, b: 'sky_hdr', bMip: 1 }));
  // The bar shows what was asked: B's mip 1 of 256x128's chain.
  assert.equal(await page.inputValue('[data-testid=compare-b-mip]'), '1');
  assert.deepEqual(c.plan.scaled, true);
  assert.match(c.notice, /B \(mip 1, 128x64\) is scaled to A's 256x128/);
  assert.deepEqual(c.precision, ['float', 'float']);
  const b = { width: 256, height: 128, data: [] };
  for (let y = 0; y < 128; y++) {
    for (let x = 0; x < 256; x++) {
      const i = (Math.floor((y + 0.5) / 2) * 128 + Math.floor((x + 0.5) / 2)) * 4;
      b.data.push(...m1.data.slice(i, i + 4));
    }
  }
  for (const [x, y] of [[3, 5], [255, 127], [100, 40]]) {
    const got = await page.evaluate(([x, y]) => window.texscope.compareTexel(x, y), [x, y]);
    const i = (y * 256 + x) * 4;
    assert.deepEqual([got.a, got.b], [a.data.slice(i, i + 4), b.data.slice(i, i + 4)]);
  }
  // Float figures: differences as decoded, PSNR against each channel's largest finite magnitude.
  const f = c.figures;
  assert.equal(f.float, true);
  let count = 0;
  let max = 0;
  const sq = [0, 0, 0, 0];
  const peak = [0, 0, 0, 0];
  for (let p = 0; p < 256 * 128; p++) {
    let differs = false;
    for (let k = 0; k < 4; k++) {
      const d = Math.abs(b.data[p * 4 + k] - a.data[p * 4 + k]);
      max = Math.max(max, d);
      sq[k] += d * d;
      peak[k] = Math.max(peak[k], Math.abs(a.data[p * 4 + k]), Math.abs(b.data[p * 4 + k]));
      differs ||= d > 0;
    }
    count += differs;
  }
  assert.equal(f.differing_texels, count);
  assert.equal(f.max_abs, max);
  f.channels.forEach((ch, k) => {
    assert.equal(ch.peak, peak[k]);
    if (!sq[k]) assert.equal(ch.psnr, null);
    else assert.ok(Math.abs(ch.psnr - 10 * Math.log10((peak[k] ** 2 * 256 * 128) / sq[k])) < 1e-9, `channel ${k}`);
  });
  // B's mip set back to "match A" in the bar: mip 0 against mip 0, nothing differs, no notice.
  await page.selectOption('[data-testid=compare-b-mip]', 'auto');
  await page.waitForFunction(() => window.texscope.compare()?.b.mip === null && window.texscope.compare().state === 'ready');
  const again = await cmp(page);
  assert.deepEqual([again.plan.b_mip, again.plan.scaled, again.notice, again.figures.differing_texels], [0, false, null, 0]);
  assert.deepEqual(problems, []);
});

// {name, path, data} records for texscope.openBuilds.
const rec = (path, buf) => ({ name: path.split('/').pop(), path, data: Array.from(buf) });

test('two builds: pairs by path and name, classified without decoding, opened in the compare view', async (t) => {
  const { page, problems } = await openPage(t);
  const { orig, copy } = originalAndCopy();
  const oldSet = [
    rec('old/tex/a.dds', orig), rec('old/tex/gone.dds', rgba8Dds(4, 4, 2)), rec('old/ui/same.dds', rgba8Dds(4, 4, 1)),
    rec('old/ui/size.dds', rgba8Dds(8, 8, 2)),
  ];
  const newSet = [
    rec('new/tex/a.dds', copy), rec('new/tex/fresh.dds', rgba8Dds(2, 2, 1)), rec('new/ui/same.dds', rgba8Dds(4, 4, 1)),
    rec('new/ui/size.dds', rgba8Dds(4, 4, 1)),
  ];
  const b = await page.evaluate(([o, n]) => window.texscope.openBuilds(o, n), [oldSet, newSet]);
  // Paths relative to each dropped folder; DDS textures are named after the file.
  assert.deepEqual(b.pairs, [
    { path: 'tex/a.dds', name: 'a', status: 'changed', changes: ['data'], error: null },
    { path: 'tex/fresh.dds', name: 'fresh', status: 'added', changes: [], error: null },
    { path: 'tex/gone.dds', name: 'gone', status: 'removed', changes: [], error: null },
    { path: 'ui/same.dds', name: 'same', status: 'unchanged', changes: [], error: null },
    { path: 'ui/size.dds', name: 'size', status: 'changed', changes: ['size', 'mips'], error: null },
  ]);
  assert.equal(b.classified, 5);
  assert.match(b.summary, /2 changed · 1 added · 1 removed · 1 unchanged/);
  assert.equal(await page.locator('[data-testid=builds-panel]').isVisible(), true);
  // The filters: status, then name.
  await page.selectOption('[data-testid=builds-filter-status]', 'changed');
  assert.deepEqual((await page.evaluate(() => window.texscope.builds())).listed, [0, 4]);
  await page.fill('[data-testid=builds-filter-name]', 'size');
  assert.deepEqual((await page.evaluate(() => window.texscope.builds())).listed, [4]);
  // A pair opens in the compare view, OLD as A: ui/size.dds lost its first mip (8x8 -> 4x4), so
  // OLD's mip 1 is compared with NEW's mip 0. By the texel rule rgba8Texel(x, y, m), mip 1 and
  // mip 0 differ by 7 in red and 1 in alpha at every texel: 16 of 16 texels, max 7/255.
  await page.click('[data-testid=builds-list] .tex');
  await waitCompare(page);
  const c = await cmp(page);
  assert.deepEqual([c.a.set, c.b.set, c.pair], ['old', 'new', 4]);
  assert.deepEqual([c.plan.a_mip, c.plan.b_mip, c.plan.scaled], [1, 0, false]);
  assert.match(c.notice, /mip-matched/);
  assert.equal(c.figures.differing_texels, 16);
  assert.equal(c.figures.max_abs, 7 / 255);
  assert.ok(Math.abs(c.figures.channels[0].psnr - 10 * Math.log10((255 * 255) / 49)) < 1e-9);
  assert.ok(Math.abs(c.figures.channels[3].psnr - 10 * Math.log10(255 * 255)) < 1e-9);
  // The changed block pair: the modified copy's hand-worked figures again.
  await page.fill('[data-testid=builds-filter-name]', '');
  await page.click('[data-testid=builds-list] .tex[data-index="0"]');
  await page.waitForFunction(() => window.texscope.compare()?.pair === 0 && window.texscope.compare().state === 'ready');
  const f = (await cmp(page)).figures;
  assert.deepEqual([f.differing_texels, f.max_abs, f.bbox], [2, 3 / 255, { x: 1, y: 2, width: 5, height: 5 }]);
  await page.screenshot({ path: join(OUT, 'compare-builds.png') });

  // The dialog: two sets of files picked (no folders: keyed by file name), the button compares.
  await page.click('[data-testid=builds-button]');
  const pick = (id, files) => page.setInputFiles(`[data-testid=${id}]`, files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
  await pick('builds-old-files', [['a.dds', orig], ['b.dds', rgba8Dds(4, 4, 1)]]);
  await pick('builds-new-files', [['a.dds', copy]]);
  await page.click('[data-testid=builds-go]');
  await page.waitForFunction(() => window.texscope.builds()?.pairs.length === 2 && window.texscope.builds().classified === 2);
  const b2 = await page.evaluate(() => window.texscope.builds());
  assert.deepEqual(b2.pairs.map((p) => [p.path, p.status]), [['a.dds', 'changed'], ['b.dds', 'removed']]);
  assert.deepEqual(problems, []);
});

test('the share link carries the compare view', async (t) => {
  const { page, problems } = await openPage(t);
  const { orig, copy } = originalAndCopy();
  await drop(page, [['orig.dds', orig], ['copy.dds', copy]]);
  await page.evaluate(() => window.texscope.compareOpen({ a: 'orig', b: 'copy' }));
  await page.click('[data-testid=compare-mode-swipe]');
  // The line dragged to a quarter of the stage's width.
  const line = await page.locator('[data-testid=compare-line] .cmp-handle').boundingBox();
  const pane = await page.locator('[data-testid=compare-pane-a]').boundingBox();
  await page.mouse.move(line.x + line.width / 2, line.y + line.height / 2);
  await page.mouse.down();
  await page.mouse.move(pane.x + pane.width / 4, line.y + line.height / 2, { steps: 4 });
  await page.mouse.up();
  const swipe = (await cmp(page)).swipe;
  assert.ok(Math.abs(swipe - 0.25) < 0.01, `${swipe}`);
  const link = await page.evaluate(() => window.texscope.shareLink());
  const hash = new URL(link).hash;
  const v = await page.evaluate((h) => window.texscope.parseShare(h), hash);
  assert.equal(v.texture, 'orig');
  assert.deepEqual(v.compare, { b: 'copy', bSlice: 0, mode: 'swipe', swipe: Math.round(swipe * 1000) / 1000, diff: 'max' });

  // Followed in a new tab: the view comes back once the files are dropped.
  const { page: p2, problems: problems2 } = await openPage(t, hash);
  await p2.setInputFiles('[data-testid=file-input]', [['orig.dds', orig], ['copy.dds', copy]].map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
  await waitCompare(p2);
  const c = await cmp(p2);
  assert.deepEqual([c.a.name, c.b.name, c.mode, c.swipe], ['orig', 'copy', 'swipe', v.compare.swipe]);
  assert.equal(c.figures.differing_texels, 2);

  // A builds' pair (in a tab that opened nothing else): named by path and name, shown once the
  // two builds are open.
  const oldSet = [rec('old/tex/a.dds', orig)];
  const newSet = [rec('new/tex/a.dds', copy)];
  const { page: p4, problems: problems4 } = await openPage(t);
  await p4.evaluate(([o, n]) => window.texscope.openBuilds(o, n), [oldSet, newSet]);
  await p4.click('[data-testid=builds-list] .tex');
  await waitCompare(p4);
  await p4.click('[data-testid=compare-mode-diff]');
  const link2 = await p4.evaluate(() => window.texscope.shareLink());
  const v2 = await p4.evaluate((h) => window.texscope.parseShare(h), new URL(link2).hash);
  assert.deepEqual(v2.compare, { pairPath: 'tex/a.dds', pairName: 'a', mode: 'diff', swipe: 0.5, diff: 'max' });
  assert.equal(v2.files, undefined);
  const { page: p3, problems: problems3 } = await openPage(t, new URL(link2).hash);
  await p3.waitForFunction(() => !document.querySelector('[data-testid=share-need]').hidden);
  assert.match(await p3.textContent('[data-testid=share-need]'), /open them with Builds/);
  await p3.evaluate(([o, n]) => window.texscope.openBuilds(o, n), [oldSet, newSet]);
  await waitCompare(p3);
  const c3 = await cmp(p3);
  assert.deepEqual([c3.pair, c3.mode, c3.figures.differing_texels], [0, 'diff', 2]);
  assert.deepEqual([...problems, ...problems2, ...problems3, ...problems4], []);
});
