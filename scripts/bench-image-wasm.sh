#!/usr/bin/env bash
# The PNG and JPEG decoders Texscope keeps against zune-png / zune-jpeg in wasm, in one module and
# one run (bench/image-wasm; its own workspace, so the zune crates stay out of the library), timed
# in headless Chromium on the real editor-package image files. Usage:
# scripts/bench-image-wasm.sh [RUNS]. The native half is `cargo run --release --example
# bench_image_files -- RUNS target/bench-images`, which also writes the inputs this reads.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="$PWD/target/image-wasm"
[ -d target/bench-images ] || cargo run --release --example bench_image_files -- 1 target/bench-images >/dev/null
(cd bench/image-wasm && cargo build --release --target wasm32-unknown-unknown)
out="$CARGO_TARGET_DIR/image.wasm"
# The same wasm-opt pass as scripts/build-wasm.sh gives the page's modules.
node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-simd \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/texscope_bench_image_wasm.wasm" -o "$out"
node bench/image-wasm/run.mjs "$out" target/bench-images "$@"
