#!/usr/bin/env bash
# npm run build: the wasm worker and the JS entries into dist/ (docs/architecture.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh

# The release build (the one published, and the one the size budget applies to) rebuilds
# core and alloc (-Zbuild-std) with immediate-abort panics: a panic is a bare `unreachable`,
# so no panic message and no `core::fmt` is linked (the precompiled core's panic paths
# format). `-Zlocation-detail=none`: no source paths for `#[track_caller]` locations nobody
# prints. `optimize_for_size`: core's and alloc's smaller variants (~80 B gzip). It needs a
# rustc with the library's source (scripts/toolchain.sh chooses: rustup's nightly with
# rust-src, or Debian's rustc-web with rust-web-src); RUSTC_BOOTSTRAP unlocks the unstable
# flags on a stable one. Without such a rustc, any toolchain with the wasm32 target builds
# the same module on the precompiled core: it works the same, and is larger (printed).
# Without reference types (the release build), wasm-bindgen keeps JS values in a JS-side heap
# rather than a wasm table: less wasm and glue together. The linker is wasm-ld
# behind scripts/wasm-ld.sh, which leaves js-sys's JSPI task code out.
# (The precompiled libraries use reference types, which the module then must too.)
if [ "$WEB_LOCKS_ROUTE" = build-std ]; then
  flags="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Ctarget-feature=-reference-types"
  std=(-Zbuild-std=core,alloc -Zbuild-std-features=optimize_for_size)
else
  flags=""
  std=()
fi
echo "build: $WEB_LOCKS_ROUTE route, $("$WEB_LOCKS_RUSTC" -V), linker $WEB_LOCKS_WASM_LD" >&2
RUSTC_BOOTSTRAP=1 RUSTC=$WEB_LOCKS_RUSTC \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER="$PWD/scripts/wasm-ld.sh" RUSTFLAGS="$flags" \
  "$WEB_LOCKS_CARGO" build --quiet --release --target wasm32-unknown-unknown ${std[@]+"${std[@]}"}
wasm-bindgen --target no-modules --no-typescript --out-dir pkg --out-name web_locks \
  target/wasm32-unknown-unknown/release/web_locks.wasm
# The post-MVP features current rustc emits; the README's browser floor supports all of them.
# Import, module and export names are minified too: the map goes to pkg/names.json, for the
# glue (scripts/bundle.mjs). The producers and target-features sections only describe the build.
features="--enable-sign-ext --enable-mutable-globals --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-multivalue"
# `--flatten --rereloop` first and `--converge`: ~200 B less gzip than plain -Oz; a second
# flatten/rereloop round: ~90 B less again (a third gives them back); then `--monomorphize`
# (functions specialised for their constant arguments) and dead-argument elimination: 28 B
# less; then pointer arithmetic folded into load and store offsets (`--low-memory-unused`:
# no address below 1024 is used, as Rust's wasm32 layout puts its 1 MB stack there, growing
# down, and the data above it), the whole to a fixed point, and once more after the names
# are minified: 151 B less. Measured.
node_modules/.bin/wasm-opt $features --flatten --rereloop -Oz --flatten --rereloop -Oz --converge \
  pkg/web_locks_bg.wasm -o pkg/web_locks_bg.wasm
node_modules/.bin/wasm-opt $features --monomorphize -Oz --dae-optimizing -Oz \
  --low-memory-unused --optimize-added-constants-propagate -Oz --converge \
  pkg/web_locks_bg.wasm -o pkg/web_locks_bg.wasm
node_modules/.bin/wasm-opt $features --strip-producers --strip-target-features \
  --minify-imports-and-exports-and-modules -Oz \
  pkg/web_locks_bg.wasm -o pkg/web_locks_bg.wasm >pkg/names.json
node scripts/bundle.mjs
# (Which route built dist/: scripts/sizes.mjs checks the budget on the release build only.)
echo "$WEB_LOCKS_ROUTE" >pkg/route
