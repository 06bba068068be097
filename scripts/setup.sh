#!/usr/bin/env bash
# One idempotent setup for a fresh machine: wasm32 target, Debian's rustc-web for the shipped
# module, wasm-bindgen-cli matching Cargo.lock, Chromium + chromedriver and Firefox
# ESR and WebKitGTK's driver with Xvfb (when not present), npm packages, and, into npm's
# cache, the Node suite's server-side runtimes and the fixture projects' tools.
# Every step is skipped when what it installs is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '\n== setup: %s\n' "$*"; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"

apt_updated=""
apt_install() { # apt_install pkg... : installs the missing ones
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "$apt_updated" ]; then $SUDO apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
}

# 1. The wasm32 target's precompiled libraries (rustup's), for the worker's in-browser tests
# (a std build) and clippy's wasm32 pass. Where rustup cannot download them, those tests
# rebuild std with step 2's compiler, into target/ (scripts/toolchain.sh): setup writes
# nothing outside the project and the user's own tool folders.
if [ -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown/lib" ]; then
  log "wasm32 target present"
elif command -v rustup >/dev/null && timeout 45 rustup target add wasm32-unknown-unknown; then
  log "wasm32 target added by rustup"
else
  log "rustup cannot download the wasm32 target: the worker's tests will rebuild std"
fi

# 2. The compiler of the shipped module (scripts/build.sh): Debian's rustc-web with its library
# source, to rebuild core and alloc with immediate-abort panics, and the wasm-ld of its LLVM.
apt_install rustc-web cargo-web rust-web-src
llvm=$(/usr/bin/rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
apt_install "lld-$llvm"
log "shipped module: $(/usr/bin/rustc -V), wasm-ld-$llvm"

# 3. wasm-bindgen-cli (wasm-bindgen and wasm-bindgen-test-runner) at exactly the version in
# Cargo.lock.
want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" = "$want" ]; then log "wasm-bindgen-cli $want present"
else log "installing wasm-bindgen-cli $want"; cargo install -q wasm-bindgen-cli --version "$want" --force; fi

# 4. Browsers for the tests (Debian's; never a downloaded one): Chromium and its driver,
# Firefox ESR for the second browser's end-to-end run (driven over WebDriver BiDi), and
# WebKitGTK's WebKitWebDriver for the third (its MiniBrowser, which has no headless mode,
# runs under Xvfb).
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then log "chromium present"
else log "installing chromium"; apt_install chromium chromium-driver; fi
if command -v firefox-esr >/dev/null; then log "firefox-esr present"
else log "installing firefox-esr"; apt_install firefox-esr; fi
if command -v WebKitWebDriver >/dev/null && command -v Xvfb >/dev/null && command -v xauth >/dev/null; then log "webkit2gtk-driver and xvfb present"
else log "installing webkit2gtk-driver, xvfb"; apt_install webkit2gtk-driver xvfb xauth; fi
ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1 || { echo "setup: no MiniBrowser in /usr/lib/*/webkit2gtk-4.1/" >&2; exit 1; }

# 5. npm packages (playwright-core, esbuild, ...), exactly as locked.
if [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then log "npm packages present"
else
  log "installing npm packages"
  # npm ci refuses a lock file without entries for other platforms' optional packages
  # (rollup's), which this registry does not serve; npm install then uses the lock as is.
  npm ci --no-audit --no-fund --loglevel=silent || npm install --no-audit --no-fund
fi

# 6. Into npm's cache, for npm test's offline use: the server-side runtimes the Node suite
# imports the package in, and the fixture projects' tools (Vite, webpack, Parcel, Next, ...).
node tests/node/runtimes.mjs
node tests/fixtures.mjs
log "done"
