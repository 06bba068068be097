#!/usr/bin/env bash
# npm run build: the wasm worker and the JS entries into dist/ (see README "Public contract").
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

# The shipped module is built by Debian's rustc-web with core and alloc rebuilt from its
# rust-web-src (-Zbuild-std) with immediate-abort panics: a panic is a bare `unreachable`, so
# no panic message and no `core::fmt` is linked (the precompiled core's panic paths format).
# RUSTC_BOOTSTRAP unlocks the unstable flags on that stable compiler; scripts/setup.sh
# installs it and the wasm-ld of its LLVM. `-Zlocation-detail=none`: no source paths for
# `#[track_caller]` locations nobody prints. Without reference types, wasm-bindgen keeps JS
# values in a JS-side heap rather than a wasm table: ~0.6 KB gzip less for wasm and glue
# together (measured). `optimize_for_size`: core's and alloc's smaller variants (~80 B gzip).
# The linker is that wasm-ld behind scripts/wasm-ld.sh, which leaves js-sys's JSPI task code
# out (201 B gzip).
rustc=/usr/bin/rustc
llvm=$("$rustc" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
RUSTC_BOOTSTRAP=1 RUSTC=$rustc WEB_LOCKS_WASM_LD="wasm-ld-$llvm" \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER="$PWD/scripts/wasm-ld.sh" \
  RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Ctarget-feature=-reference-types" \
  /usr/bin/cargo build --quiet --release --target wasm32-unknown-unknown -Zbuild-std=core,alloc -Zbuild-std-features=optimize_for_size
wasm-bindgen --target no-modules --no-typescript --out-dir pkg --out-name web_locks \
  target/wasm32-unknown-unknown/release/web_locks.wasm
# The post-MVP features current rustc emits; the README's browser floor supports all of them.
# Import, module and export names are minified too: the map goes to pkg/names.json, for the
# glue (scripts/bundle.mjs). The producers and target-features sections only describe the build.
features="--enable-sign-ext --enable-mutable-globals --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-multivalue"
# `--flatten --rereloop` first and `--converge`: ~200 B less gzip than plain -Oz; a second
# flatten/rereloop round: ~90 B less again (a third gives them back). Measured.
node_modules/.bin/wasm-opt $features --flatten --rereloop -Oz --flatten --rereloop -Oz --converge \
  pkg/web_locks_bg.wasm -o pkg/web_locks_bg.wasm
node_modules/.bin/wasm-opt $features --strip-producers --strip-target-features \
  --minify-imports-and-exports-and-modules \
  pkg/web_locks_bg.wasm -o pkg/web_locks_bg.wasm >pkg/names.json
node scripts/bundle.mjs
