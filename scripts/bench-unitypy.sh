#!/usr/bin/env bash
# Texscope against UnityPy on every shared Unity sample (issue 8): list every texture and decode
# every mip 0 to RGBA with UnityPy, the native CLI and the page's wasm in node; prints a markdown
# table (min/median/max over RUNS runs, and the ratios) for the README.
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
