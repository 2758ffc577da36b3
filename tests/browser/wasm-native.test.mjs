// wasm32 decodes exactly like native: the built www/pkg-full module (the page's full wasm, every codec, loaded here in
// node) and the native `texscope fingerprints` (debug build, as `cargo test` leaves it) digest every
// format of codec::sample::formats() — ALL_FIXED plus every ASTC footprint, so formats other work
// adds are included — from the same seeded random blocks at 64x32, 13x7 and 1x1 (for ASTC legal
// blocks at the two larger sizes: random bytes are mostly illegal ASTC blocks), and the blocks of
// every reference-vector file in tests/vectors (.bin blocks, the astcenc ones included, and .crn crunch cube maps from the test-only
// writer, every level of every face unpacked and decoded; .ktx PVRTC2 files) and tests/basis (Basis
// Universal .ktx2 / .basis, every level and slice opened and decoded as the page does). The expected
// value is the native build's output. The full module's relaxed-SIMD build (www/wasm-build.js, which
// browsers with relaxed SIMD load instead) is held to the same output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { initSync, codecFingerprints, benchFormats, BenchAes } from '../../www/pkg-full/texscope.js';

const ROOT = resolve(import.meta.dirname, '../..');

const files = ['tests/vectors', 'tests/basis'].flatMap((d) => readdirSync(join(ROOT, d))
  .filter((n) => ['.bin', '.crn', '.ktx', '.ktx2', '.basis'].some((e) => n.endsWith(e))).map((n) => join(ROOT, d, n)));
files.sort();
const names = files.map((f) => f.split('/').pop());
/** The native build's fingerprints, computed once. @type {Record<string, string> | undefined} */
let nativeFingerprints;
const nativeOnce = () => (nativeFingerprints ??= JSON.parse(execFileSync('cargo',
  ['run', '--quiet', '--bin', 'texscope', '--', 'fingerprints', ...files],
  { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] })));

test('wasm32 and native decode every format and vector identically', () => {
  initSync({ module: readFileSync(join(ROOT, 'www/pkg-full/texscope_bg.wasm')) });
  const wasm = JSON.parse(codecFingerprints(names, files.map((f) => readFileSync(f))));
  const native = nativeOnce();
  // Three sizes a format, a line a vector file, and BC1 and BC3 surfaces holding every first endpoint
  // (sample::every_bc1_endpoint: the wasm BC1 palette is computed in vectors).
  const endpoints = Object.keys(wasm).filter((k) => k.includes(' every endpoint '));
  assert.deepEqual(endpoints.map((k) => k.split(' ')[0]).sort(), ['BC1', 'BC3']);
  assert.equal(Object.keys(wasm).length, benchFormats().length * 3 + Object.keys(wasm).filter((k) => k.startsWith('vector ')).length + endpoints.length);
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ')).length >= 10, 'vector files were decoded');
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ') && k.endsWith('.crn')).length >= 5, 'crunch cube files were decoded');
  assert.ok(Object.keys(wasm).filter((k) => k.startsWith('vector ') && /\.(ktx2|basis)$/.test(k)).length >= 10, 'Basis files were decoded');
  const differ = Object.keys(native).filter((k) => native[k] !== wasm[k]);
  assert.deepEqual(differ, [], `differ between wasm32 and native: ${differ.map((k) => `${k}: native ${native[k]}, wasm ${wasm[k]}`).join('; ')}`);
  assert.deepEqual(Object.keys(wasm).sort(), Object.keys(native).sort());
  const decoded = Object.values(native).filter((v) => !v.startsWith('error')).length;
  console.log(`wasm == native: ${Object.keys(native).length} cases, ${decoded} decoded, ${names.length} vector files`);
});

test('the relaxed-SIMD build of the full module decodes like native too', () => {
  const wasmFile = join(ROOT, 'www/pkg-full/texscope_bg_relaxed.wasm');
  const plainFile = join(ROOT, 'www/pkg-full/texscope_bg.wasm');
  // With relaxed SIMD turned off, V8 rejects the relaxed build and accepts the plain one: so the
  // relaxed build does use it (else this would test the SIMD128 build twice) and browsers without
  // it get a module they can compile.
  const validates = (f) => execFileSync(process.execPath, ['--no-experimental-wasm-relaxed-simd', '--input-type=module', '-e',
    `import { readFileSync } from 'node:fs'; process.stdout.write(String(WebAssembly.validate(readFileSync(${JSON.stringify(f)}))));`],
  { encoding: 'utf8' });
  assert.equal(validates(wasmFile), 'false', 'the relaxed build is rejected without relaxed SIMD');
  assert.equal(validates(plainFile), 'true', 'the plain build compiles without relaxed SIMD');
  const flag = WebAssembly.validate(readFileSync(wasmFile)) ? [] : ['--experimental-wasm-relaxed-simd'];
  const out = execFileSync(process.execPath, [...flag, join(ROOT, 'tests/browser/wasm-fingerprints.mjs'), wasmFile, ...files],
    { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const relaxed = JSON.parse(out);
  const native = nativeOnce();
  const differ = Object.keys(native).filter((k) => native[k] !== relaxed[k]);
  assert.deepEqual(differ, [], `differ between the relaxed-SIMD build and native: ${differ.map((k) => `${k}: native ${native[k]}, wasm ${relaxed[k]}`).join('; ')}`);
  assert.deepEqual(Object.keys(relaxed).sort(), Object.keys(native).sort());
});

// The AES benchmark's decryption (io::aes::AesBench, bench.html?aes=1) in the full module against
// the native build's: the SHA-1 of 1 MiB of its seeded bytes decrypted once in ECB and in CTR, as
// `texscope bench --aes` prints it. The native function itself is checked in src/io/aes.rs
// against the `aes` block cipher used directly and FIPS-197.
test('wasm32 and native decrypt the AES benchmark identically (ECB and CTR)', () => {
  initSync({ module: readFileSync(join(ROOT, 'www/pkg-full/texscope_bg.wasm')) });
  const native = execFileSync('cargo', ['run', '--quiet', '--bin', 'texscope', '--', 'bench', '--aes', '--mib', '1', '--runs', '1'],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(native.map((r) => r.aes), ['ECB', 'CTR']);
  for (const r of native) {
    assert.match(r.sha1, /^[0-9a-f]{40}$/);
    assert.equal(BenchAes.digest(1, r.aes), r.sha1, `${r.aes}: wasm and native differ`);
  }
  assert.notEqual(native[0].sha1, native[1].sha1);
});
