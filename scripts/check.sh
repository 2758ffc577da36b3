#!/usr/bin/env bash
# Everything `npm test` checks, in order, stopping at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${TEXSCOPE_CACHE:-$HOME/.cache/texscope}/bin:$HOME/.cargo/bin:$PATH"

step() { echo; echo "== $*"; }
step "page lint (eslint)";                     node_modules/.bin/eslint --max-warnings 0 .
step "cargo fmt --check";                      cargo fmt --check
step "clippy (native, all targets)";           cargo clippy --all-targets -- -D warnings
step "clippy (wasm32 lib, as built)";          cargo clippy --lib --target wasm32-unknown-unknown --no-default-features -- -D warnings
step "clippy (wasm32 lib, full module)";       cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features full -- -D warnings
step "clippy (wasm32 lib, relaxed SIMD)";      cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features full,relaxed-simd -- -D warnings
step "cargo test";                             cargo test
step "wasm build";                             bash scripts/build-wasm.sh
# After the wasm build: the worker's wasm API is typed by the www/pkg*/texscope.d.ts it writes.
step "page types (tsc --noEmit, checkJs)";     node_modules/.bin/tsc -p tsconfig.json
step "page build (vite)";                      node_modules/.bin/vite build --logLevel warn
step "browser tests";                          node --test --test-concurrency=1 tests/browser/
