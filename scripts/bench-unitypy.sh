#!/usr/bin/env bash
# Texscope against UnityPy on every shared Unity sample (issues 8, 19): list every texture and
# export every mip 0 as PNG with UnityPy and the native CLI (plus RGBA8 without an encoder, natively
# and with the page's wasm in node); prints a markdown table (min/median/max over RUNS runs, the
# ratios, the PNG encoder's share and the LZMA floor) for docs/benchmarks.md.
# usage: scripts/bench-unitypy.sh [RUNS=5]
# Needs python3 with unitypy==1.25.4 (scripts/setup.sh --test installs it) and node.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
samples=../shared/samples/unity
[ -d "$samples" ] || samples=/work/shared/samples/unity
cargo build --quiet --release --bin texscope
[ -f www/pkg/texscope_bg.wasm ] || bash scripts/build-wasm.sh
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); uptime:$(uptime); $(nproc) cores"
python3 scripts/bench_unitypy.py "$samples" "${CARGO_TARGET_DIR:-target}/release/texscope" "$runs"
echo "done $(date -u '+%H:%M UTC'); uptime:$(uptime)"
