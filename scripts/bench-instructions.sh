#!/usr/bin/env bash
# Instructions a block of two texscope builds' decoders, counted by callgrind: deterministic where
# timings on a shared or throttled machine vary 2x from run to run (docs/benchmarks.md, "ASTC:
# fewer multiplies a texel"). Each count is `texscope bench --runs 3` minus `--runs 1` (so the
# bench's set-up cancels out), less BC1's two runs (the bench always decodes BC1 too, counted the
# same way), over two runs of the surface's blocks.
#   bash scripts/bench-instructions.sh [--side N] OLD_TEXSCOPE NEW_TEXSCOPE FORMAT...
# Prints one line a format: instructions a block of each build and NEW/OLD. Needs valgrind
# (apt-get install valgrind); not part of npm test.
set -euo pipefail
side=512
if [ "${1:-}" = "--side" ]; then
  side=$2
  shift 2
fi
if [ $# -lt 3 ]; then
  echo "usage: bash scripts/bench-instructions.sh [--side N] OLD_TEXSCOPE NEW_TEXSCOPE FORMAT..." >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed" >&2; exit 2; }
old=$1 new=$2
shift 2

# Instructions of `texscope bench --side $side --runs $2 --format $3` run by binary $1.
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" bench --side "$side" --runs "$2" \
    --format "$3" 2>&1 >/dev/null | grep -o 'refs: *[0-9,]*' | tr -dc 0-9
}

# Blocks of FORMAT on the surface: ASTC_WxH footprints, 4x4 for every other block format.
blocks() {
  local w=4 h=4
  if [[ $1 =~ ^ASTC_([0-9]+)x([0-9]+) ]]; then
    w=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]}
  fi
  echo $(((side + w - 1) / w * ((side + h - 1) / h)))
}

# Instructions of two more runs of format $2 by binary $1.
runs2() { echo $(($(count "$1" 3 "$2") - $(count "$1" 1 "$2"))); }
bc1_old=$(runs2 "$old" BC1)
bc1_new=$(runs2 "$new" BC1)

printf '%-14s %12s %12s %8s\n' format old new new/old
for f in "$@"; do
  n=$(blocks "$f")
  if [ "$f" = BC1 ]; then
    a=$((bc1_old / 2 / n)) b=$((bc1_new / 2 / n))
  else
    a=$((($(runs2 "$old" "$f") - bc1_old) / 2 / n))
    b=$((($(runs2 "$new" "$f") - bc1_new) / 2 / n))
  fi
  printf '%-14s %12s %12s %8s\n' "$f" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')"
done
