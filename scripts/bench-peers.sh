#!/usr/bin/env bash
# The peer benchmark: Texscope's BCn decoders against the Rust decoders a user could pick instead
# (bcdec_rs, image-rs `dds`, texture2ddecoder) and C bcdec (bcndecode-sys compiles bcdec.h with
# `cc`), natively, on the real BCn blocks of texture2ddecoder's KTX2 test files tiled to SIDE x SIDE.
# The peers live in bench/peers, a crate of its own workspace: none of them is a dependency of the
# texscope library or its tests. Prints a markdown table (bench/peers/src/main.rs says what each
# column is); docs/benchmarks.md ("Against other decoders") keeps one.
# Usage: scripts/bench-peers.sh [--side N] [--runs N] [--samples DIR] [--wall]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# A target directory of its own: sharing the repository's target/ let the peers' build of the
# texscope library without default features stand in for the full one, and `cargo build --bin
# texscope` then failed on the missing features (seen 2026-12-06 with cargo 1.95).
export CARGO_TARGET_DIR="$PWD/target/peers"
cargo build --release --quiet --manifest-path bench/peers/Cargo.toml
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
target/peers/release/texscope-bench-peers "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
