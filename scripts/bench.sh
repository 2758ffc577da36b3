#!/usr/bin/env bash
# The decode benchmark, native and wasm in Chromium in one run: a 2048x2048 surface of seeded random
# blocks per format (codec::sample, the same bytes on both sides), MB/s of RGBA output, min/median/max
# over RUNS runs, and the wasm/native ratio (native and wasm in turns, see below).
# Usage: scripts/bench.sh [--side N] [--runs N] [--rounds N] [--formats A,B,...]
#   (defaults 2048, 5, 3 and every format)
# Native and wasm take turns format by format (scripts/bench-browser.mjs --native): per format,
# ROUNDS (default 3) turns of `texscope bench` then the page, seconds apart. This VM's speed drifts
# over minutes (native BC1 medians 2067-3251 MB/s in three runs a minute apart), which skewed ratios
# when one half ran minutes after the other. Printed: min of the minima, median of the turns'
# medians, max of the maxima, and the median over turns of each turn's wasm/native ratio; then each
# format's median over BC1's, natively (the median over turns of `texscope bench`'s vs_bc1, BC1
# measured in the same process just before) and in Chromium (median of medians over BC1's).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cache/texscope/bin:$HOME/.cargo/bin:$PATH"
side=2048 runs=5 rounds=3 formats=""
while [ $# -gt 0 ]; do
  case "$1" in
    --side) side=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --formats) formats=$2; shift 2 ;;
    *) echo "usage: scripts/bench.sh [--side N] [--runs N] [--rounds N] [--formats A,B,...]" >&2; exit 2 ;;
  esac
done
# BC1 is every row's baseline: measured whatever the list.
case ",$formats," in ,,|*,BC1,*) ;; *) formats="BC1,$formats" ;; esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet --bin texscope
bash scripts/build-wasm.sh >/dev/null
node_modules/.bin/vite build --logLevel warn
echo "native and chromium, $rounds turns a format..." >&2
node scripts/bench-browser.mjs --native target/release/texscope --side "$side" --runs "$runs" \
  --rounds "$rounds" ${formats:+--formats "$formats"} > "$out/paired.jsonl"
node -e '
const fs = require("fs");
const mid = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const pool = (rs) => rs.find((r) => r.error !== undefined) ?? {
  min: Math.min(...rs.map((r) => r.min)), median: mid(rs.map((r) => r.median)), max: Math.max(...rs.map((r) => r.max)),
};
const f = (r) => r.error !== undefined ? "n/a" : `${r.min.toFixed(0)} / ${r.median.toFixed(0)} / ${r.max.toFixed(0)}`;
console.log(`| format | native MB/s min / median / max | wasm (Chromium) MB/s min / median / max | wasm/native (median of turns) | native / BC1 | Chromium / BC1 |`);
console.log(`|---|---|---|---|---|---|`);
const rows = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const bc1 = rows.find((r) => r.format === "BC1");
const bc1w = bc1 ? pool(bc1.turns.map((t) => t.wasm)) : undefined;
for (const { format, turns } of rows) {
  const [n, w] = [pool(turns.map((t) => t.native)), pool(turns.map((t) => t.wasm))];
  if (n.error !== undefined && w.error !== undefined) continue;
  const ok = n.error === undefined && w.error === undefined;
  const ratio = ok ? mid(turns.map((t) => t.wasm.median / t.native.median)).toFixed(2) : "n/a";
  const vsn = format === "BC1" ? "1" : n.error === undefined ? mid(turns.map((t) => t.native.vs_bc1)).toFixed(2) : "n/a";
  const vsw = bc1w && bc1w.error === undefined && w.error === undefined ? (w.median / bc1w.median).toFixed(2) : "n/a";
  console.log(`| ${format} | ${f(n)} | ${f(w)} | ${ratio} | ${vsn} | ${vsw} |`);
}' "$out/paired.jsonl"
