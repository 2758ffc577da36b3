// Which build of the full wasm module this browser loads. scripts/build-wasm.sh builds it twice:
// www/pkg-full/texscope_bg.wasm (SIMD128) and texscope_bg_relaxed.wasm (feature `relaxed-simd`: the
// ASTC weight infill through relaxed SIMD's i8 dot product, 1.02-1.15x on ASTC in Chromium,
// docs/benchmarks.md). A module with a relaxed instruction fails to compile where relaxed SIMD is
// missing, so the page asks the engine first. Both builds have the same exports and JS glue.

// The smallest module with a relaxed-SIMD instruction: one function returning
// i16x8.relaxed_dot_i8x16_i7x16_s (opcode 0xfd 0x112) of two zero vectors, assembled by binaryen's
// wasm-as from `(module (func (result v128) (i16x8.relaxed_dot_i8x16_i7x16_s (v128.const i64x2 0 0)
// (v128.const i64x2 0 0))))`.
const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type section: () -> v128
  0x03, 0x02, 0x01, 0x00, // function section: one function of type 0
  0x0a, 0x2b, 0x01, 0x29, 0x00, // code section: one body of 41 bytes, no locals
  0xfd, 0x0c, ...new Array(16).fill(0), // v128.const 0
  0xfd, 0x0c, ...new Array(16).fill(0), // v128.const 0
  0xfd, 0x92, 0x02, // i16x8.relaxed_dot_i8x16_i7x16_s
  0x0b, // end
]);

/** Whether this engine compiles relaxed SIMD. */
export const relaxedSimd = WebAssembly.validate(PROBE);

/**
 * The full module's init argument for this browser (for its glue's default export): the relaxed
 * build where relaxed SIMD compiles, else undefined, the glue's own default (the SIMD128 build).
 * @param {boolean} [allowRelaxed] false to load the SIMD128 build anyway (bench.html?relaxed=0)
 * @returns {{ module_or_path: URL } | undefined}
 */
export function fullModuleInit(allowRelaxed = true) {
  return relaxedSimd && allowRelaxed
    ? { module_or_path: new URL('./pkg-full/texscope_bg_relaxed.wasm', import.meta.url) }
    : undefined;
}
