// Issue 8, "Size: the whole wasm, gzipped, at most 300 KB; codecs that are rarely needed may load
// lazily": the module the page loads first (www/pkg, built by scripts/build-wasm.sh without the
// `full` feature) must gzip (level 9, as build-wasm.sh reports it) to at most 300 KB = 300,000 bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(import.meta.dirname, '../..');
const BUDGET = 300_000;

test('the first-loaded wasm module is at most 300 KB gzipped', () => {
  const wasm = readFileSync(join(ROOT, 'www/pkg/texscope_bg.wasm'));
  const gz = gzipSync(wasm, { level: 9 }).length;
  assert.ok(gz <= BUDGET, `www/pkg/texscope_bg.wasm is ${gz} bytes gzipped (${wasm.length} raw), over the ${BUDGET}-byte budget of issue 8`);
});
