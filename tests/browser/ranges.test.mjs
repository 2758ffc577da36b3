// Issue 8 in Debian chromium: a texture past 4 GiB in a sparse 4.5 GiB .resS, dropped into the
// page by path (a local browser reads the file in place; playwright does not copy it). The
// worker's File source counts what it reads (window.texscope.readStats): only the header ranges
// and the mip shown may be read. Peak memory = the worker's wasm memory + the page's JS heap as
// Chromium reports it (CDP Performance.getMetrics JSHeapUsedSize, polled while opening) + the
// image and canvas buffers must stay below 64 MiB + 2x the displayed mip. The files come from examples/sparse_fixture.rs (the same
// builder tests/cli.rs uses); expected pixels are the bytes stored in the sparse file, rows
// reversed (Unity stores rows bottom first, seed 004).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OUT, openPage } from './harness.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
// Sniffing and headers: a few KiB per file, but the page reads small ranges through a read-ahead of
// aligned 64 KiB blocks (AHEAD_BLOCK in src/web/mod.rs): measured one such block of the .resS (the
// sniff) beside the whole 2,460-byte serialized file and the mip. Slack: two blocks.
const SLACK = 2 * (64 << 10);

test('a texture past 4 GiB: only header ranges and the mip are read, memory stays bounded', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'texscope-ranges-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fx = JSON.parse(execFileSync('cargo', ['run', '--quiet', '--example', 'sparse_fixture', '--', dir],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  assert.ok(fx.offset > 2 ** 32, 'the texture lies past 4 GiB');

  const { page, problems } = await openPage(t);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  let peakHeap = 0;
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const { metrics } = await cdp.send('Performance.getMetrics');
      peakHeap = Math.max(peakHeap, metrics.find((m) => m.name === 'JSHeapUsedSize').value);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();

  await page.setInputFiles('[data-testid=file-input]', [join(dir, 'big.assets'), join(dir, 'big.resS')]);
  // The page shows the first texture's mip 0 by itself once the files are open.
  await page.waitForFunction(() => document.body.dataset.state === 'ready' && window.texscope.view()?.texture === 'T_Fuzz',
    null, { timeout: 120000 });
  const view = await page.evaluate(() => window.texscope.view());
  assert.equal(view.mip, 0);
  assert.equal(view.width, fx.side);
  assert.equal(view.height, fx.side);
  polling = false;
  await poll;

  const [bytes, reads, wasmMemory] = await page.evaluate(() => window.texscope.readStats());
  const bound = fx.assets_len + fx.mip_bytes + SLACK;
  // The decoded image's ArrayBuffer and the canvas's RGBA copy live outside JSHeapUsedSize; they
  // are added as width x height x 4 bytes each (the worker's JS heap is not reachable through
  // playwright's CDP sessions and is not counted).
  const offHeap = 2 * view.width * view.height * 4;
  const peak = wasmMemory + peakHeap + offHeap;
  const limit = 64 * 2 ** 20 + 2 * fx.mip_bytes;
  console.log(`sparse 4.5 GiB: worker read ${bytes} bytes in ${reads} reads (bound ${bound}); wasm memory ${wasmMemory}, `
    + `peak page JS heap ${Math.round(peakHeap)}, image + canvas ${offHeap}, sum ${Math.round(peak)} (limit ${limit})`);
  assert.ok(bytes >= fx.mip_bytes, 'the mip was read');
  assert.ok(bytes <= bound, `read ${bytes} bytes; headers ${fx.assets_len} + mip ${fx.mip_bytes} + ${SLACK}`);
  assert.ok(peak < limit, `peak memory ${peak} >= ${limit}`);

  // Texels at seeded spots equal the stored bytes (row y shown = stored row side-1-y).
  const fd = openSync(join(dir, 'big.resS'), 'r');
  const stored = Buffer.alloc(fx.mip_bytes);
  readSync(fd, stored, 0, stored.length, fx.offset);
  closeSync(fd);
  const spots = [[0, 0], [fx.side - 1, fx.side - 1], [fx.side - 1, 0], [0, fx.side - 1]];
  for (let k = 1; k <= 60; k++) spots.push([(k * 7919) % fx.side, (k * 104729) % fx.side]);
  const got = await page.evaluate((s) => s.map(([x, y]) => window.texscope.pixel(x, y)), spots);
  spots.forEach(([x, y], i) => {
    const at = ((fx.side - 1 - y) * fx.side + x) * 4;
    assert.deepEqual(got[i], [...stored.subarray(at, at + 4)], `texel ${x},${y}`);
  });
  await page.screenshot({ path: join(OUT, 'ranges-sparse-4gib.png') });
  assert.deepEqual(problems, []);
});
