#!/usr/bin/env bash
# The decode benchmark, native and wasm in Chromium in one run: a 2048x2048 surface of seeded random
# blocks per format (codec::sample, the same bytes on both sides), MB/s of RGBA output, min/median/max
# over RUNS runs, and the wasm/native ratio of the medians.
# Usage: scripts/bench.sh [--side N] [--runs N] [--rounds N]   (defaults 2048, 5 and 1)
# --rounds N alternates the two halves N times (native, Chromium, native, ...) and pools them: on a
# host whose speed drifts (measured on this VM: native BC1 medians 2067-3251 MB/s in three runs a
# minute apart) one half timed minutes after the other skews every ratio; alternating spreads the
# drift over both. Pooled: min of the minima, median of the per-round medians, max of the maxima.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cache/texscope/bin:$HOME/.cargo/bin:$PATH"
side=2048 runs=5 rounds=1
while [ $# -gt 0 ]; do
  case "$1" in
    --side) side=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: scripts/bench.sh [--side N] [--runs N] [--rounds N]" >&2; exit 2 ;;
  esac
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cargo build --release --quiet --bin texscope
bash scripts/build-wasm.sh >/dev/null
node_modules/.bin/vite build --logLevel warn
for r in $(seq "$rounds"); do
  echo "round $r/$rounds: native..." >&2
  target/release/texscope bench --side "$side" --runs "$runs" >> "$out/native.jsonl"
  echo "round $r/$rounds: chromium..." >&2
  node scripts/bench-browser.mjs --side "$side" --runs "$runs" >> "$out/wasm.jsonl"
done
node -e '
const fs = require("fs");
// Pools the rounds of each format: min of minima, median of medians, max of maxima; an error wins.
const read = (f) => {
  const rounds = new Map();
  for (const r of fs.readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l))) {
    rounds.set(r.format, [...(rounds.get(r.format) ?? []), r]);
  }
  const mid = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
  return new Map([...rounds].map(([k, rs]) => [k, rs.find((r) => r.error !== undefined) ?? {
    min: Math.min(...rs.map((r) => r.min)), median: mid(rs.map((r) => r.median)), max: Math.max(...rs.map((r) => r.max)),
  }]));
};
const [n, w] = [read(process.argv[1]), read(process.argv[2])];
const f = (r) => r.error !== undefined ? "n/a" : `${r.min.toFixed(0)} / ${r.median.toFixed(0)} / ${r.max.toFixed(0)}`;
console.log(`| format | native MB/s min / median / max | wasm (Chromium) MB/s min / median / max | wasm/native (medians) |`);
console.log(`|---|---|---|---|`);
for (const [k, a] of n) {
  const b = w.get(k);
  if (a.error !== undefined && (!b || b.error !== undefined)) continue;
  const ratio = a.error === undefined && b && b.error === undefined ? (b.median / a.median).toFixed(2) : "n/a";
  console.log(`| ${k} | ${f(a)} | ${b ? f(b) : "missing"} | ${ratio} |`);
}' "$out/native.jsonl" "$out/wasm.jsonl"
