#!/usr/bin/env bash
# Builds the core to WebAssembly and the JS bindings the worker imports (www/pkg, git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
# setup.sh installs wasm-bindgen-cli here when it is not already on PATH.
export PATH="$HOME/.cache/texscope/bin:$HOME/.cargo/bin:$PATH"

# No `-C target-feature=+simd128`: measured no faster on the decoders (README "Decode benchmark").
# Without default features: the `brotli` feature's decoder (mostly its dictionary) would add
# ~118 KB gzipped and break the 300 KB budget (issue 8); the page names brotli files as such.
cargo build --release --lib --target wasm32-unknown-unknown --no-default-features
rm -rf www/pkg
wasm-bindgen --target web --no-typescript --out-dir www/pkg \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/texscope.wasm"
# -O3 measured ~20% smaller and ~5% faster on BC1 than wasm-bindgen's output (shared notes).
# wasm-bindgen emits bulk-memory/nontrapping-fptoint ops (Rust's wasm32 defaults), so enable them.
node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  www/pkg/texscope_bg.wasm -o www/pkg/texscope_bg.wasm
raw=$(wc -c < www/pkg/texscope_bg.wasm)
gz=$(gzip -9 -c www/pkg/texscope_bg.wasm | wc -c)
echo "www/pkg/texscope_bg.wasm: $raw bytes ($gz gzipped)"
