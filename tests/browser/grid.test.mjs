// The thumbnail grid (issue 7): virtualised like the list, thumbnails decoded lazily in the worker
// from the smallest mip of at least 64 px, only for cells on screen, in a bounded cache; the same
// filters and states as the list; a click selects. Expected texels come from the fixtures' own
// rules (tests/browser/dds-fixtures.mjs, from Microsoft's DDS_HEADER documentation) and expected
// mips from the demo's definition (src/fixtures/demo.rs: T_Bricks_D 512², mips 0-1 in the .ubulk).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OUT, openPage, scrollSteps, stateWaiter } from './harness.mjs';
import { rgba8Dds, rgba8Texel } from './dds-fixtures.mjs';

const waitState = stateWaiter(30000);
const thumbs = (page) => page.evaluate(() => window.texscope.thumbs());
// Scrolls the grid, then waits two frames so the cells of the new position are built.
const scrollGrid = (page, top) => page.$eval('[data-testid=texture-grid]', (g, top) => {
  g.scrollTop = top === 'end' ? g.scrollHeight : top;
  return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}, top);
// Every queued thumbnail for the cells on screen has arrived.
const settle = (page) => page.waitForFunction(() => {
  const s = window.texscope.thumbs();
  return s.inflight === 0 && [...document.querySelectorAll('[data-testid=texture-grid] .cell[data-thumb-key]')]
    .every((c) => c.querySelector('canvas.thumb, .thumb-none'));
}, null, { timeout: 60000 });

test('grid: 10,000 entries virtualised and scrolled smoothly; states as in the list', async (t) => {
  const { page, problems } = await openPage(t);
  // Synthetic entries as in tools.test.mjs; every 7th waits for a file, every 11th is an error.
  const entries = Array.from({ length: 10000 }, (_, i) => ({
    file: `pack${i % 10}.pak`, name: `T_Grid_${String(i).padStart(5, '0')}`, engine: 'unreal', format: ['BC1', 'BC7'][i % 2],
    width: 256, height: 256, depth: 1, slices: 1, kind: '2d',
    ...(i % 11 === 0 ? { error: `pack${i % 10}.pak: export ${i}: bad serial size` } : {}),
    ...(i % 7 === 0 ? { mipList: [{ present: false, missing: [`T_Grid_${i}.ubulk`] }] } : {}),
  }));
  await page.evaluate((e) => window.texscope.injectList(e), entries);
  await page.click('[data-testid=mode-grid]');
  const s = await thumbs(page);
  assert.equal(s.grid, true);
  assert.ok(s.cells > 0 && s.cells < 120, `only cells on screen are in the DOM (${s.cells})`);
  await scrollSteps(t, page, '[data-testid=texture-grid]');
  const names = await page.$$eval('[data-testid=texture-grid] .cell-name', (els) => els.map((e) => e.textContent));
  assert.ok(names.includes('T_Grid_09999'), 'the last entry is reachable');
  assert.ok((await thumbs(page)).cells < 120);
  // States: 9998 (neither a multiple of 7 nor 11: ready), 9996 = 7 x 1428 (waiting), 9988 = 11 x 908 (error).
  const stateOf = (name) => page.$eval(`[data-testid=texture-grid] .cell[title^="${name} "]`, (c) => [c.querySelector('[data-testid=cell-state]').textContent, c.querySelector('.thumb-box').textContent]);
  assert.deepEqual(await stateOf('T_Grid_09996'), ['waiting', 'waiting for T_Grid_9996.ubulk']);
  assert.deepEqual(await stateOf('T_Grid_09988'), ['error', 'pack8.pak: export 9988: bad serial size']);
  assert.equal((await stateOf('T_Grid_09998'))[0], 'ready');
  await page.screenshot({ path: join(OUT, 'grid-10000.png') });
  // The same filter as the list: a regex on the name.
  await page.fill('[data-testid=filter-name]', '/^T_Grid_0000[0-5]$/');
  const shown = await page.$$eval('[data-testid=texture-grid] .cell-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(shown, ['T_Grid_00000', 'T_Grid_00001', 'T_Grid_00002', 'T_Grid_00003', 'T_Grid_00004', 'T_Grid_00005']);
  assert.equal(await page.textContent('[data-testid=count]'), '6 of 10000');
  // The list shows the same six when switched back with the keyboard shortcut.
  await page.evaluate(() => document.activeElement.blur()); // keys typed in the filter stay there
  await page.keyboard.press('#');
  assert.equal((await page.evaluate(() => window.texscope.list())).listed.length, 6);
  assert.equal((await thumbs(page)).grid, false);
  assert.equal(await page.locator('[data-testid=texture-list] .tex').count(), 6);
  await page.keyboard.press('?');
  assert.match(await page.textContent('[data-testid=help]'), /#\s*textures as a list \/ as a grid of thumbnails/);
  assert.deepEqual(problems, []);
});

test('grid: thumbnails from the smallest mip >= 64 px, only for visible cells, cached and bounded; click selects', async (t) => {
  const { page, problems } = await openPage(t);
  // 60 RGBA8 files of 128² with 3 mips (128, 64, 32): the thumbnail must come from mip 1.
  const files = Array.from({ length: 60 }, (_, i) => ({ name: `tex_${String(i).padStart(2, '0')}.dds`, mimeType: 'application/octet-stream', buffer: rgba8Dds(128, 128, 3) }));
  // And one 192² file with a single mip: its thumbnail is mip 0 halved (96², each texel the mean
  // of a 2x2 box, rounded).
  files.push({ name: 'big_192.dds', mimeType: 'application/octet-stream', buffer: rgba8Dds(192, 192, 1) });
  await page.setInputFiles('[data-testid=file-input]', files);
  await waitState(page, 'ready');
  // And the UE demo without its .ubulk: mips 0-1 (512², 256²) missing, 2-9 inline.
  await page.evaluate(() => window.texscope.openDemo('ue-classic', { without: ['T_Bricks_D.ubulk'] }));
  await waitState(page, 'ready');
  await page.fill('[data-testid=filter-name]', '');
  await page.selectOption('[data-testid=sort]', 'name'); // T_Bricks_D, big_192, then tex_00..tex_59
  await page.click('[data-testid=mode-grid]');
  await settle(page);
  let s = await thumbs(page);
  const onScreen = await page.$$eval('[data-testid=texture-grid] .cell', (els) => els.map((e) => e.title.split(' — ')[0]));
  t.diagnostic(`cells in the DOM ${s.cells}, thumbnails requested ${s.requested.length}`);
  assert.ok(s.cells < 62, `not every texture has a cell (${s.cells})`);
  // 360 px sidebar (less its padding) holds three 112 px columns.
  assert.deepEqual(await page.$$eval('[data-testid=texture-grid] .cell', (els) => [...new Set(els.map((e) => e.style.left))].sort()), ['0px', '112px', '224px']);
  // Only cells that were built were asked for, each once, each from the expected mip.
  assert.equal(s.requested.length, new Set(s.requested.map((r) => r.name)).size, 'each thumbnail once');
  for (const r of s.requested) {
    assert.ok(onScreen.includes(r.name), `${r.name} requested but never on screen`);
    assert.equal(r.mip, { T_Bricks_D: 3, big_192: 0 }[r.name] ?? 1, `${r.name} from mip ${r.mip}`);
  }
  assert.ok(s.requested.some((r) => r.name === 'T_Bricks_D'));
  assert.equal(s.drawn, s.requested.length);
  // The thumbnail of tex_00 is mip 1 (64², kept at its size) texel for texel.
  const idx = await page.evaluate(() => window.texscope.textures().findIndex((c) => c.name === 'tex_00'));
  for (const [x, y] of [[0, 0], [5, 9], [63, 63], [31, 2]]) {
    const p = await page.evaluate(([i, x, y]) => window.texscope.thumbPixel(i, x, y), [idx, x, y]);
    assert.deepEqual([p.width, p.height, p.rgba], [64, 64, rgba8Texel(x, y, 1)], `texel (${x}, ${y})`);
  }
  const big = await page.evaluate(() => window.texscope.textures().findIndex((c) => c.name === 'big_192'));
  for (const [x, y] of [[0, 0], [7, 40], [95, 95]]) {
    const box = [0, 1, 2, 3].map((c) => Math.round([[0, 0], [1, 0], [0, 1], [1, 1]].reduce((a, [dx, dy]) => a + rgba8Texel(2 * x + dx, 2 * y + dy, 0)[c], 0) / 4));
    const p = await page.evaluate(([i, x, y]) => window.texscope.thumbPixel(i, x, y), [big, x, y]);
    assert.deepEqual([p.width, p.height, p.rgba], [96, 96, box], `big_192 thumbnail texel (${x}, ${y})`);
  }
  await page.screenshot({ path: join(OUT, 'grid-thumbnails.png') });

  // Scrolling to the end asks for the newly shown cells only; scrolling back hits the cache.
  const before = s.requested.length;
  await scrollGrid(page, 'end');
  await settle(page);
  s = await thumbs(page);
  assert.ok(s.requested.length > before && s.requested.length <= 62, `${s.requested.length} requests`);
  assert.ok(s.requested.some((r) => r.name === 'tex_59'));
  const after = s.requested.length;
  await scrollGrid(page, 0);
  await settle(page);
  s = await thumbs(page);
  assert.equal(s.requested.length, after, 'the first cells came from the cache');
  // A small cache stays small: limit 10, scroll to the end and back.
  await page.evaluate(() => window.texscope.setThumbCacheLimit(10));
  assert.ok((await thumbs(page)).cached <= 10);
  await scrollGrid(page, 'end');
  await settle(page);
  await scrollGrid(page, 0);
  await settle(page);
  s = await thumbs(page);
  assert.ok(s.cached <= 10, `cache ${s.cached}`);
  assert.ok(s.requested.length > after, 'evicted thumbnails are decoded again');

  // A click selects, as in the list.
  await page.click('[data-testid=texture-grid] .cell[title^="tex_03 "]');
  await page.waitForFunction(() => window.texscope.view()?.texture === 'tex_03' && document.body.dataset.state === 'ready');
  assert.equal(await page.getAttribute('[data-testid=texture-grid] .cell[title^="tex_03 "]', 'aria-selected'), 'true');
  await page.screenshot({ path: join(OUT, 'grid-selected.png') });
  assert.deepEqual(problems, []);
});

test('grid: switching widens the sidebar and the image stays fitted in the smaller view', async (t) => {
  const { page, problems } = await openPage(t);
  await page.evaluate(() => window.texscope.openDemo('ue-classic'));
  await waitState(page, 'ready');
  const fitted = () => page.evaluate(() => {
    const v = document.querySelector('[data-testid=viewport]').getBoundingClientRect();
    const c = window.texscope.display().canvasBox;
    // Centred (within a pixel) and inside the viewport.
    return { centred: Math.abs(c.x + c.width / 2 - (v.x + v.width / 2)) <= 1 && Math.abs(c.y + c.height / 2 - (v.y + v.height / 2)) <= 1,
      inside: c.x >= v.x && c.x + c.width <= v.x + v.width, width: v.width };
  });
  const a = await fitted();
  await page.click('[data-testid=mode-grid]');
  await page.waitForFunction((w) => document.querySelector('[data-testid=viewport]').getBoundingClientRect().width < w, a.width);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const b = await fitted();
  assert.ok(a.centred && a.inside && b.centred && b.inside, JSON.stringify([a, b]));
  assert.equal(await page.$eval('#sidebar', (e) => e.getBoundingClientRect().width), 360, 'three columns of 112 px cells fit');
  assert.ok(b.width < a.width);
  assert.deepEqual(problems, []);
});
