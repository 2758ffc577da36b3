// wasm32 decodes exactly like native: the built www/pkg-full module (the page's full wasm, every codec, loaded here in
// node) and the native `texscope fingerprints` (debug build, as `cargo test` leaves it) digest every
// format of codec::sample::formats() — ALL_FIXED plus every ASTC footprint, so formats other work
// adds are included — from the same seeded random blocks at 64x32, 13x7 and 1x1, and the blocks of
// every reference-vector file in tests/vectors (.bin blocks, and .crn crunch cube maps from the test-only
// writer, every level of every face unpacked and decoded). The expected value is the native build's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { initSync, codecFingerprints, benchFormats } from '../../www/pkg-full/texscope.js';

const ROOT = resolve(import.meta.dirname, '../..');

test('wasm32 and native decode every format and vector identically', () => {
  initSync({ module: readFileSync(join(ROOT, 'www/pkg-full/texscope_bg.wasm')) });
  const dir = join(ROOT, 'tests/vectors');
  const names = readdirSync(dir).filter((n) => n.endsWith('.bin') || n.endsWith('.crn')).sort();
  const wasm = JSON.parse(codecFingerprints(names, names.map((n) => readFileSync(join(dir, n)))));
  const out = execFileSync('cargo', ['run', '--quiet', '--bin', 'texscope', '--', 'fingerprints', ...names.map((n) => join(dir, n))],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const native = JSON.parse(out);
  assert.equal(Object.keys(wasm).length, benchFormats().length * 3 + Object.keys(wasm).filter((k) => k.startsWith('vector ')).length);
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ')).length >= 10, 'vector files were decoded');
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ') && k.endsWith('.crn')).length >= 5, 'crunch cube files were decoded');
  const differ = Object.keys(native).filter((k) => native[k] !== wasm[k]);
  assert.deepEqual(differ, [], `differ between wasm32 and native: ${differ.map((k) => `${k}: native ${native[k]}, wasm ${wasm[k]}`).join('; ')}`);
  assert.deepEqual(Object.keys(wasm).sort(), Object.keys(native).sort());
  const decoded = Object.values(native).filter((v) => !v.startsWith('error')).length;
  console.log(`wasm == native: ${Object.keys(native).length} cases, ${decoded} decoded, ${names.length} vector files`);
});
