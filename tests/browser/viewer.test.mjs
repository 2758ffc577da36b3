// The page's test contract (issue 2) in Debian chromium: open generated .dds files through the file
// input, wait for "ready", read texels back through window.texscope and compare them with the
// values the fixtures were built from (tests/browser/dds-fixtures.mjs says where each comes from).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { OUT, openPage, stateWaiter, select } from './harness.mjs';
import { rgba8Dds, rgba8Texel, bc1Dds, bc1Expected, rgba16fDds, halfTexel } from './dds-fixtures.mjs';

async function drop(page, files) {
  await page.setInputFiles('[data-testid=file-input]', files.map(([name, buffer]) => ({ name, mimeType: 'application/octet-stream', buffer })));
}

const waitState = stateWaiter(20000);
const pixel = (page, x, y) => page.evaluate(([x, y]) => window.texscope.pixel(x, y), [x, y]);
const view = (page) => page.evaluate(() => window.texscope.view());

test('RGBA8 legacy-mask .dds: texels of both mips', async (t) => {
  const { page, problems } = await openPage(t);
  await drop(page, [['rgba8.dds', rgba8Dds(4, 4, 2)]]);
  await waitState(page, 'ready');
  assert.deepEqual(await view(page), { file: 'rgba8.dds', texture: 'rgba8', index: 0, mip: 0, slice: 0, width: 4, height: 4, format: 'RGBA8' });
  for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) assert.deepEqual(await pixel(page, x, y), rgba8Texel(x, y, 0), `mip 0 (${x},${y})`);
  assert.equal(await pixel(page, 4, 0), null, 'outside the surface');
  await page.screenshot({ path: join(OUT, 'rgba8-mip0.png') });

  const v = await select(page, { texture: 'rgba8', mip: 1, slice: 0 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'ready');
  assert.deepEqual(v, { file: 'rgba8.dds', texture: 'rgba8', index: 0, mip: 1, slice: 0, width: 2, height: 2, format: 'RGBA8' });
  for (let y = 0; y < 2; y++) for (let x = 0; x < 2; x++) assert.deepEqual(await pixel(page, x, y), rgba8Texel(x, y, 1), `mip 1 (${x},${y})`);
  assert.deepEqual(problems, []);
});

test('BC1 .dds: four-colour and punch-through blocks decode to the hand-computed colours', async (t) => {
  const { page, problems } = await openPage(t);
  await drop(page, [['bc1.dds', bc1Dds()]]);
  await waitState(page, 'ready');
  const v = await view(page);
  assert.equal(v.format, 'BC1');
  assert.equal(v.width, 8);
  assert.equal(v.height, 4);
  for (let y = 0; y < 4; y++) for (let x = 0; x < 8; x++) assert.deepEqual(await pixel(page, x, y), bc1Expected[x], `(${x},${y})`);
  // Hovering texel (2, 1) shows its raw value in the status bar.
  const box = await page.locator('[data-testid=canvas]').boundingBox();
  await page.mouse.move(box.x + (2.5 * box.width) / 8, box.y + (1.5 * box.height) / 4);
  assert.equal(await page.textContent('[data-testid=pixel-label]'), `(2, 1)  ${bc1Expected[2].join(', ')}`);
  await page.screenshot({ path: join(OUT, 'bc1.png') });
  assert.deepEqual(problems, []);
});

test('RGBA16F DX10 array: raw floats per mip and slice, unclamped', async (t) => {
  const { page, problems } = await openPage(t);
  await drop(page, [['hdr.dds', rgba16fDds(4, 2, 2, 2)], ['bc1.dds', bc1Dds()]]);
  await waitState(page, 'ready');
  const names = await page.evaluate(() => window.texscope.textures().map((c) => c.name).sort());
  assert.deepEqual(names, ['bc1', 'hdr']);
  await select(page, { texture: 'hdr', mip: 0, slice: 0 });
  assert.equal((await view(page)).format, 'RGBA16F');
  for (let y = 0; y < 2; y++) for (let x = 0; x < 4; x++) assert.deepEqual(await pixel(page, x, y), halfTexel(x, y, 0, 0), `m0 s0 (${x},${y})`);
  await page.screenshot({ path: join(OUT, 'rgba16f-mip0-slice0.png') });

  const v = await select(page, { texture: 'hdr', mip: 1, slice: 1 });
  assert.deepEqual(v, { file: 'hdr.dds', texture: 'hdr', index: v.index, mip: 1, slice: 1, width: 2, height: 1, format: 'RGBA16F' });
  for (let x = 0; x < 2; x++) assert.deepEqual(await pixel(page, x, 0), halfTexel(x, 0, 1, 1), `m1 s1 (${x},0)`);
  await select(page, { mip: 0, slice: 1 });
  assert.deepEqual(await pixel(page, 3, 1), halfTexel(3, 1, 0, 1));
  await page.screenshot({ path: join(OUT, 'rgba16f-mip0-slice1.png') });

  // A texture dropped later is added to what is open.
  await drop(page, [['rgba8.dds', rgba8Dds(4, 4, 1)]]);
  await page.waitForFunction(() => window.texscope.textures().length === 3, null, { timeout: 20000 });
  await waitState(page, 'ready');
  const kept = await view(page);
  assert.deepEqual([kept.texture, kept.mip, kept.slice], ['hdr', 0, 1], 'the view stays where it was');
  assert.deepEqual(problems, []);
});

test('a file that is not a texture: state "error" and a readable message', async (t) => {
  const { page } = await openPage(t);
  await drop(page, [['notes.txt', Buffer.from('shopping list: milk, eggs\n')]]);
  await waitState(page, 'error');
  const message = await page.textContent('[data-testid=error]');
  assert.match(message, /notes\.txt/);
  // The core's words (src/sniff.rs) may change; what matters is a sentence, not a JS exception.
  assert.doesNotMatch(message, /undefined|\[object|RuntimeError|unreachable/);
  await page.screenshot({ path: join(OUT, 'not-a-texture.png') });
});
