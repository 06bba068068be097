#!/usr/bin/env bash
# npm run build: the wasm worker and the JS entries into dist/ (see README "Public contract").
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
wasm-pack build --quiet --release --target no-modules --no-pack --no-typescript --out-dir pkg --out-name web_locks
# The post-MVP features current rustc emits; the README's browser floor supports all of them.
node_modules/.bin/wasm-opt -Oz --enable-sign-ext --enable-mutable-globals --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
  pkg/web_locks_bg.wasm -o pkg/web_locks_bg.wasm
node scripts/bundle.mjs
