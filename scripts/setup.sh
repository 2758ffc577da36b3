#!/usr/bin/env bash
# Installs what building and testing Texscope need, skipping whatever is already there:
#   the wasm32 target, rustfmt + clippy, wasm-bindgen-cli (pinned to the wasm-bindgen crate's
#   version, cached under ~/.cache/texscope), npm packages, and with --test Debian chromium and
#   UnityPy 1.25.4 (the independent reader tests/unity_census.rs compares Unity pixels against).
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130 # must equal the `=` pin of wasm-bindgen in Cargo.toml
CACHE="${TEXSCOPE_CACHE:-$HOME/.cache/texscope}"
export PATH="$CACHE/bin:$HOME/.cargo/bin:$PATH"
want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

say() { echo "setup: $*"; }

if ! command -v cargo >/dev/null; then
  say "cargo is missing: install Rust from https://rustup.rs first"; exit 1
fi
if ! command -v npm >/dev/null; then
  say "node/npm is missing: install Node.js 20 or newer first"; exit 1
fi

if command -v rustup >/dev/null; then
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if (( want_test )); then
    for c in rustfmt clippy; do
      if ! rustup component list --installed | grep -q "^$c"; then
        say "adding $c"; rustup component add "$c"
      fi
    done
  fi
fi

if [[ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION into $CACHE (takes a few minutes once)"
  # No --locked: the CLI's own lockfile pins a webpki-roots release the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --root "$CACHE"
fi

if [[ ! -x node_modules/.bin/vite || ! -x node_modules/.bin/wasm-opt || ! -d node_modules/playwright-core \
      || ! -x node_modules/.bin/tsc || ! -x node_modules/.bin/eslint ]]; then
  say "installing npm packages"
  npm ci --no-audit --no-fund
fi

if (( want_test )) && [[ ! -x /usr/bin/chromium ]]; then
  say "installing Debian chromium for the browser tests"
  sudo=""
  [[ "$(id -u)" != 0 ]] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver
fi
UNITYPY_VERSION=1.25.4 # the version of shared/samples/unity/unitypy_census.json
if (( want_test )) && ! python3 -c "import UnityPy" 2>/dev/null; then
  if ! command -v python3 >/dev/null; then
    say "python3 is missing: the Unity per-pixel test needs it (with UnityPy $UNITYPY_VERSION)"; exit 1
  fi
  say "installing UnityPy $UNITYPY_VERSION with pip (Unity per-pixel reference)"
  # Debian's python refuses system-wide pip installs (PEP 668): then into the user's site.
  python3 -m pip install --quiet "unitypy==$UNITYPY_VERSION" ||
    python3 -m pip install --quiet --user --break-system-packages "unitypy==$UNITYPY_VERSION"
fi
say "ok"
