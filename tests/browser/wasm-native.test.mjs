// wasm32 decodes exactly like native: the built www/pkg-full module (the page's full wasm, every codec, loaded here in
// node) and the native `texscope fingerprints` (debug build, as `cargo test` leaves it) digest every
// format of codec::sample::formats() — ALL_FIXED plus every ASTC footprint, so formats other work
// adds are included — from the same seeded random blocks at 64x32, 13x7 and 1x1 (for ASTC legal
// blocks at the two larger sizes: random bytes are mostly illegal ASTC blocks), and the blocks of
// every reference-vector file in tests/vectors (.bin blocks, the astcenc ones included, and .crn crunch cube maps from the test-only
// writer, every level of every face unpacked and decoded; .ktx PVRTC2 files) and tests/basis (Basis
// Universal .ktx2 / .basis, every level and slice opened and decoded as the page does). The expected
// value is the native build's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { initSync, codecFingerprints, benchFormats } from '../../www/pkg-full/texscope.js';

const ROOT = resolve(import.meta.dirname, '../..');

test('wasm32 and native decode every format and vector identically', () => {
  initSync({ module: readFileSync(join(ROOT, 'www/pkg-full/texscope_bg.wasm')) });
  const files = ['tests/vectors', 'tests/basis'].flatMap((d) => readdirSync(join(ROOT, d))
    .filter((n) => ['.bin', '.crn', '.ktx', '.ktx2', '.basis'].some((e) => n.endsWith(e))).map((n) => join(ROOT, d, n)));
  files.sort();
  const names = files.map((f) => f.split('/').pop());
  const wasm = JSON.parse(codecFingerprints(names, files.map((f) => readFileSync(f))));
  const out = execFileSync('cargo', ['run', '--quiet', '--bin', 'texscope', '--', 'fingerprints', ...files],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const native = JSON.parse(out);
  assert.equal(Object.keys(wasm).length, benchFormats().length * 3 + Object.keys(wasm).filter((k) => k.startsWith('vector ')).length);
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ')).length >= 10, 'vector files were decoded');
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ') && k.endsWith('.crn')).length >= 5, 'crunch cube files were decoded');
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ') && /\.(ktx2|basis)$/.test(k)).length >= 10, 'Basis files were decoded');
  const differ = Object.keys(native).filter((k) => native[k] !== wasm[k]);
  assert.deepEqual(differ, [], `differ between wasm32 and native: ${differ.map((k) => `${k}: native ${native[k]}, wasm ${wasm[k]}`).join('; ')}`);
  assert.deepEqual(Object.keys(wasm).sort(), Object.keys(native).sort());
  const decoded = Object.values(native).filter((v) => !v.startsWith('error')).length;
  console.log(`wasm == native: ${Object.keys(native).length} cases, ${decoded} decoded, ${names.length} vector files`);
});
