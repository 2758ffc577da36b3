#!/usr/bin/env bash
# Builds the core to WebAssembly twice, with the JS bindings the worker imports (git-ignored):
#   www/pkg       the core module the page loads first: no ASTC, crunch or PVRTC decoder, no demo
#                 builders (issue 8: at most 300 KB gzipped; tests/browser/size.test.mjs checks it);
#   www/pkg-full  every codec (cargo feature `full`): loaded by the worker only when a texture needs
#                 a codec the core lacks, and by the bench page and the wasm == native test.
#   www/pkg-full/texscope_bg_relaxed.wasm  the full module again with feature `relaxed-simd` (the
#                 ASTC infill and swizzles through relaxed SIMD): loaded instead of the plain one by
#                 browsers that validate relaxed SIMD (www/wasm-build.js); the same JS glue serves
#                 both.
# Then writes the demo files with the full module (scripts/demos.mjs -> public/demos, git-ignored),
# which the page fetches same-origin instead of building them in its module.
set -euo pipefail
cd "$(dirname "$0")/.."
# setup.sh installs wasm-bindgen-cli here when it is not already on PATH.
export PATH="$HOME/.cache/texscope/bin:$HOME/.cargo/bin:$PATH"

# build OUT_DIR CARGO_FEATURE_ARGS... (WASM_OPT_EXTRA: more wasm-opt flags)
build() {
  local out=$1
  shift
  # No module-wide `-C target-feature=+simd128`: measured no faster on the decoders
  # (docs/benchmarks.md, "Decode benchmark"); the hot decode loops enable it per function instead
  # (src/codec/simd.rs, and RGB9E5's loop in src/codec/plain.rs).
  # Without default features: the `brotli` feature's decoder (mostly its dictionary) would add
  # ~118 KB gzipped; the page names brotli files as such.
  cargo build --release --lib --target wasm32-unknown-unknown --no-default-features "$@"
  rm -rf "$out"
  # With its TypeScript declarations (texscope.d.ts): the page's type check (tsconfig.json) reads
  # the worker's wasm API from them instead of checking the generated JavaScript.
  wasm-bindgen --target web --out-dir "$out" \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/texscope.wasm"
  # -O3 measured ~20% smaller and ~5% faster on BC1 than wasm-bindgen's output (shared notes).
  # wasm-bindgen emits bulk-memory/nontrapping-fptoint ops (Rust's wasm32 defaults), so enable them;
  # simd for src/codec/simd.rs.
  node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-simd \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    ${WASM_OPT_EXTRA:-} "$out/texscope_bg.wasm" -o "$out/texscope_bg.wasm"
}
build www/pkg-full --features full
# Only the crate itself recompiles for the second feature set (its dependencies do not change).
relaxed="${CARGO_TARGET_DIR:-target}/pkg-relaxed"
WASM_OPT_EXTRA=--enable-relaxed-simd build "$relaxed" --features full,relaxed-simd
if ! cmp -s "$relaxed/texscope.js" www/pkg-full/texscope.js; then
  echo "build-wasm: the relaxed-SIMD build's JS glue differs from www/pkg-full's; the page loads one glue for both" >&2
  exit 1
fi
mv "$relaxed/texscope_bg.wasm" www/pkg-full/texscope_bg_relaxed.wasm
build www/pkg
node scripts/demos.mjs public/demos
for m in www/pkg/texscope_bg.wasm www/pkg-full/texscope_bg.wasm www/pkg-full/texscope_bg_relaxed.wasm; do
  raw=$(wc -c < "$m")
  gz=$(gzip -9 -c "$m" | wc -c)
  echo "$m: $raw bytes ($gz gzipped)"
done
