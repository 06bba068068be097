#!/usr/bin/env bash
# One idempotent setup for a fresh machine: wasm32 target, Debian's rustc-web for the shipped
# module, wasm-bindgen-cli matching Cargo.lock, wasm-pack, Chromium + chromedriver and Firefox
# ESR and WebKitGTK's driver with Xvfb (when not present), npm packages, and the Node suite's
# server-side runtimes (npm packages, into npm's cache).
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

# 1. A Rust toolchain that targets wasm32-unknown-unknown.
rustup_has_wasm() { [ -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown/lib" ]; }
debian_has_wasm() { ls /usr/lib/rustlib/wasm32-unknown-unknown/lib/libstd-*.rlib >/dev/null 2>&1; }
# WEB_LOCKS_OFFLINE_WASM=1 skips rustup (to exercise the offline route on any machine).
if [ -z "${WEB_LOCKS_OFFLINE_WASM:-}" ] && rustup_has_wasm || debian_has_wasm; then
  log "wasm32 target present"
elif [ -z "${WEB_LOCKS_OFFLINE_WASM:-}" ] && timeout 45 rustup target add wasm32-unknown-unknown; then
  log "wasm32 target added by rustup"
else
  log "rustup cannot download; building the wasm32 std offline from Debian's rust-web-src"
  apt_install rustc-web cargo-web rust-web-src lld
  [ -e /usr/local/bin/rust-lld ] || $SUDO ln -s /usr/bin/lld /usr/local/bin/rust-lld
  tmp=$(mktemp -d)
  (cd "$tmp" && /usr/bin/cargo new -q --lib stdbuild && cd stdbuild &&
    RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld PATH=/usr/bin:$PATH \
      /usr/bin/cargo build -q --release --target wasm32-unknown-unknown \
      -Zbuild-std=std,panic_abort,panic_unwind,test,proc_macro)
  $SUDO mkdir -p /usr/lib/rustlib/wasm32-unknown-unknown/lib
  find "$tmp/stdbuild/target/wasm32-unknown-unknown/release/deps" -name '*.rlib' ! -name 'libstdbuild-*' \
    -exec $SUDO cp {} /usr/lib/rustlib/wasm32-unknown-unknown/lib/ \;
  rm -rf "$tmp"
  debian_has_wasm
fi

# 2. The compiler of the shipped module (scripts/build.sh): Debian's rustc-web with its library
# source, to rebuild core and alloc with immediate-abort panics, and the wasm-ld of its LLVM.
apt_install rustc-web cargo-web rust-web-src
llvm=$(/usr/bin/rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
apt_install "lld-$llvm"
log "shipped module: $(/usr/bin/rustc -V), wasm-ld-$llvm"

# 3. wasm-bindgen-cli at exactly the version in Cargo.lock, and wasm-pack.
want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/[^0-9.]/,""); print}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" = "$want" ]; then log "wasm-bindgen-cli $want present"
else log "installing wasm-bindgen-cli $want"; cargo install -q wasm-bindgen-cli --version "$want" --force; fi
if command -v wasm-pack >/dev/null; then log "wasm-pack present"
else log "installing wasm-pack"; cargo install -q wasm-pack --locked; fi

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

# 6. The server-side runtimes the Node suite imports the package in (npm packages, into npm's
# cache: npm test runs them offline).
node tests/node/runtimes.mjs
log "done"
