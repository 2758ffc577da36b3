#!/usr/bin/env bash
# Texscope's Switch block-linear untiler against the tegra_swizzle crate in wasm, in one module and
# one run (bench/untile-wasm; its own workspace, so the crate stays out of the library), timed in
# headless Chromium. Usage: scripts/bench-untile-wasm.sh [RUNS] [SIDE]. The native half of the
# comparison is `cargo run --release --example bench_untile` (its tegra_swizzle_ms field).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="$PWD/target/untile-wasm"
(cd bench/untile-wasm && cargo build --release --target wasm32-unknown-unknown)
out="$CARGO_TARGET_DIR/untile.wasm"
# The same wasm-opt pass as scripts/build-wasm.sh gives the page's modules.
node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-simd \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/texscope_bench_untile_wasm.wasm" -o "$out"
node bench/untile-wasm/run.mjs "$out" "$@"
