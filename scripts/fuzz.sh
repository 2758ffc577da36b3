#!/usr/bin/env bash
# Fuzzes every target (fuzz/fuzz_targets) for SECONDS each (default 20, as CI runs it), from the
# seeds examples/fuzz_seeds.rs writes plus whatever fuzz/corpus already holds. Stops at the first
# crash, leaving it in fuzz/artifacts/<target>/ (copy it to tests/regressions/<target>/ once fixed).
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
# Installs what is missing: the nightly toolchain (rustup) and cargo-fuzz into
# ~/.cache/texscope/bin (checked first).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${TEXSCOPE_CACHE:-$HOME/.cache/texscope}"
export PATH="$CACHE/bin:$HOME/.cargo/bin:$PATH"
secs="${1:-20}"
shift || true

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked --root "$CACHE"

cargo run --quiet --example fuzz_seeds -- fuzz/corpus
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(cargo +nightly fuzz list); fi
cargo +nightly fuzz build
summary=()
for t in "${targets[@]}"; do
  echo "== fuzz $t for ${secs} s"
  # A target without written seeds (untile reads any bytes) starts from an empty corpus.
  mkdir -p "fuzz/corpus/$t"
  # 10 s per input is a hang; one allocation over 128 MB is a bug (the targets' limits allow
  # 16 MiB); -print_final_stats gives the exec count.
  set +e
  # A fixed seed (FUZZ_SEED, default 1) makes a run repeatable: the same inputs in the same order,
  # so a CI run explores what the last local run explored (within the time it gets), and a crash
  # found by CI is reproduced by running this script again. FUZZ_SEED=0 lets libFuzzer pick.
  cargo +nightly fuzz run "$t" "fuzz/corpus/$t" -- -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=128 -print_final_stats=1 >"fuzz/last-$t.log" 2>&1
  rc=$?
  set -e
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|SUMMARY|Done )|panicked' \
    "fuzz/last-$t.log" | head -20 || true
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "fuzz/last-$t.log" | grep -o '[0-9]*$' || echo '?')
  summary+=("$t: $execs execs in ${secs} s")
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: $t failed (exit $rc); see fuzz/last-$t.log and fuzz/artifacts/$t/" >&2
    exit "$rc"
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
