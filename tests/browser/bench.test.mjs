// bench.html (the browser half of the decode benchmark) in Debian chromium, with a small surface and
// one run: it must finish and give a rate for every format the core decodes. Which formats decode
// is the core's own list (benchFormats, from codec::sample::formats); only formats the core reports
// as not implemented may lack a number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, wasmFetched } from './harness.mjs';

test('bench page: an MB/s figure for every decodable format', async (t) => {
  const { page, problems } = await openPage(t);
  await page.goto(new URL('bench.html?side=64&runs=1', page.url()).href);
  await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 120000 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'done', await page.evaluate(() => window.benchError));
  const formats = await page.evaluate(() => window.benchFormats);
  const results = await page.evaluate(() => window.benchResults);
  assert.deepEqual(results.map((r) => r.format), formats, 'one result per format, in order');
  for (const r of results) {
    if (r.error !== undefined) {
      assert.match(r.error, /not implemented/, `${r.format}: ${r.error}`);
      continue;
    }
    for (const k of ['min', 'median', 'max']) {
      assert.ok(Number.isFinite(r[k]) && r[k] > 0, `${r.format} ${k} = ${r[k]}`);
    }
  }
  for (const f of ['BC1', 'BC7', 'ETC2RGBA8', 'PVRTC4RGBA', 'PVRTC2RGB', 'RGBA8']) {
    assert.ok(results.find((r) => r.format === f)?.median > 0, `${f} has a rate`);
  }
  // Chromium compiles relaxed SIMD: the page times the build the worker would load.
  assert.equal(await page.evaluate(() => document.body.dataset.wasm), 'relaxed-simd');
  assert.deepEqual(problems, []);
});

test('bench page: ?relaxed=0 times the SIMD128 build of the full module', async (t) => {
  const { page, problems } = await openPage(t);
  const wasm = wasmFetched(page);
  await page.goto(new URL('bench.html?side=64&runs=1&formats=BC1,ASTC_8x8&relaxed=0', page.url()).href);
  await page.waitForFunction(() => document.body.dataset.state !== 'running', null, { timeout: 120000 });
  assert.equal(await page.evaluate(() => document.body.dataset.wasm), 'simd128');
  const results = await page.evaluate(() => window.benchResults);
  assert.ok(results.find((r) => r.format === 'ASTC_8x8')?.median > 0, 'ASTC_8x8 has a rate');
  assert.ok(![...wasm].some((u) => u.includes('texscope_bg_relaxed')), `fetched ${[...wasm].join(', ')}`);
  assert.deepEqual(problems, []);
});
