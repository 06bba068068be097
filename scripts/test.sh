#!/usr/bin/env bash
# npm test: everything, in order of speed. Fails on the first failure.
# npm run test:unit (`scripts/test.sh unit`): the quick inner loop, no browser: formatting and
# lints, the Rust tests, the build and its size, the JS units and type declarations, Node.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== test: %s\n' "$*"; }
unit=$([ "${1:-}" = unit ] && echo 1 || true)

step "rustfmt, clippy"
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings

step "core: spec tests, property tests against the reference model; the service's simulation, several builds per origin (native)"
cargo test --quiet

if [ -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown/lib" ]; then
  step "clippy for the wasm32 worker (the shipped no_std module, and the std test build)"
  cargo clippy --target wasm32-unknown-unknown --lib -- -D warnings
  cargo clippy --target wasm32-unknown-unknown --all-targets --no-default-features -- -D warnings
else
  echo "(rustup has no wasm32 target here: the worker's clippy pass is skipped)"
fi

step "build dist/"
bash scripts/build.sh

step "download size per page (gzip), against the budget"
node scripts/sizes.mjs --check

if [ -z "$unit" ]; then
  step "worker protocol + core in wasm, inside a SharedWorker in headless Chromium (wasm-bindgen-test-runner)"
  # (A std build: rustup's precompiled wasm32 libraries, or std rebuilt into target/ by the
  # release build's compiler: scripts/toolchain.sh.)
  (
    source scripts/toolchain.sh
    echo "test: $("$WEB_LOCKS_TEST_RUSTC" -V)${WEB_LOCKS_TEST_FLAGS:+, $WEB_LOCKS_TEST_FLAGS}" >&2
    if [ -n "$WEB_LOCKS_TEST_FLAGS" ]; then
      export RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=$WEB_LOCKS_TEST_WASM_LD
    fi
    RUSTC=$WEB_LOCKS_TEST_RUSTC CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver} \
      "$WEB_LOCKS_TEST_CARGO" test --target wasm32-unknown-unknown --lib --no-default-features $WEB_LOCKS_TEST_FLAGS
  )
fi

step "JS units (deadlock detector, scopes included) and TypeScript declarations (DOM, Node, bare ES, node10 resolution; TypeScript 5.9 and 5.4)"
node --test tests/js/
# (By path: both packages provide a `tsc` command. 5.4's DOM lib declares LockManager with
# a LockGrantedCallback of its own, without a type parameter, as TypeScript did before 5.9.)
# (node10 resolution reads no `exports` and has no self-reference: the package is found
# through a node_modules link, and its subpaths' declarations through `typesVersions`.)
mkdir -p tests/types/node10/node_modules
ln -sfn ../../../.. tests/types/node10/node_modules/navigator-locks-polyfill
for typescript in typescript typescript-5.4; do
  for project in tests/types tests/types/node tests/types/node16 tests/types/bare tests/types/node10; do
    node "node_modules/$typescript/bin/tsc" -p "$project/tsconfig.json"
  done
done

step "Node: every entry imports; the local lock manager in Node, jsdom, happy-dom, Vitest"
node --test --test-timeout=300000 --test-concurrency=1 --test-force-exit tests/node/
[ -n "$unit" ] && exit 0

step "end to end in headless Chromium: native reference and polyfill, Vite build, demo screenshots"
node --test --test-timeout=300000 --test-concurrency=1 tests/e2e/

# The same behavioural suites where SharedWorker is missing (removed from every page by an
# init script: tests/e2e/harness/browser.mjs): a tab hosts the lock worker (src/service/tabs.rs).
# (tab-host.test.mjs always runs without it.)
NO_SHARED_WORKER_SUITES="tests/e2e/api.test.mjs tests/e2e/locks.test.mjs tests/e2e/lifecycle.test.mjs tests/e2e/workers.test.mjs
  tests/e2e/install.test.mjs tests/e2e/storage.test.mjs tests/e2e/faults.test.mjs tests/e2e/recovery.test.mjs tests/e2e/scopes.test.mjs tests/e2e/builds.test.mjs
  tests/e2e/hosts.test.mjs tests/e2e/realms.test.mjs"
step "end to end in headless Chromium without SharedWorker: the behavioural suites, native reference and polyfill"
E2E_SHARED_WORKER=none node --test --test-timeout=300000 --test-concurrency=1 $NO_SHARED_WORKER_SUITES

# (Tests that need Chromium's DevTools protocol, such as a service worker's stop, are skipped
# there; a tab crashes by its content process's end: tests/e2e/harness/browser.mjs.)
step "end to end in headless Firefox ESR (WebDriver BiDi): the behavioural suites, native reference and polyfill"
E2E_BROWSER=firefox node --test --test-timeout=300000 --test-concurrency=1 \
  tests/e2e/api.test.mjs tests/e2e/locks.test.mjs tests/e2e/lifecycle.test.mjs tests/e2e/workers.test.mjs \
  tests/e2e/install.test.mjs tests/e2e/storage.test.mjs tests/e2e/faults.test.mjs tests/e2e/recovery.test.mjs tests/e2e/scopes.test.mjs tests/e2e/builds.test.mjs \
  tests/e2e/hosts.test.mjs tests/e2e/realms.test.mjs tests/e2e/tab-host.test.mjs tests/e2e/startup.test.mjs tests/e2e/spec-departures.test.mjs
step "end to end in headless Firefox ESR without SharedWorker: the behavioural suites"
E2E_BROWSER=firefox E2E_SHARED_WORKER=none node --test --test-timeout=300000 --test-concurrency=1 $NO_SHARED_WORKER_SUITES

# (WebDriver classic: no DevTools protocol either, and no console events; each browser
# context is a MiniBrowser of its own, under an Xvfb the suite starts: tests/e2e/harness/webkit.mjs.)
step "end to end in WebKitGTK's MiniBrowser (WebDriver classic): the behavioural suites, native reference and polyfill"
E2E_BROWSER=webkit node --test --test-timeout=300000 --test-concurrency=1 \
  tests/e2e/api.test.mjs tests/e2e/locks.test.mjs tests/e2e/lifecycle.test.mjs tests/e2e/workers.test.mjs \
  tests/e2e/install.test.mjs tests/e2e/storage.test.mjs tests/e2e/faults.test.mjs tests/e2e/recovery.test.mjs tests/e2e/scopes.test.mjs tests/e2e/builds.test.mjs \
  tests/e2e/hosts.test.mjs tests/e2e/realms.test.mjs tests/e2e/tab-host.test.mjs tests/e2e/startup.test.mjs tests/e2e/spec-departures.test.mjs
step "end to end in WebKitGTK's MiniBrowser without SharedWorker: the behavioural suites"
E2E_BROWSER=webkit E2E_SHARED_WORKER=none node --test --test-timeout=300000 --test-concurrency=1 $NO_SHARED_WORKER_SUITES

# The build on the precompiled libraries (docs/contributing.md): any toolchain with the
# wasm32 target, no rebuilt core. Its module, larger, passes the lock suites and meets the
# other builds; dist/ is then built again as released.
step "the build on a toolchain's precompiled wasm32 libraries (WEB_LOCKS_ROUTE=std): Chromium lock and builds suites"
if (WEB_LOCKS_ROUTE=std && source scripts/toolchain.sh) >/dev/null 2>&1; then
  WEB_LOCKS_ROUTE=std bash scripts/build.sh
  node scripts/sizes.mjs --check
  node --test --test-timeout=300000 --test-concurrency=1 tests/e2e/locks.test.mjs tests/e2e/builds.test.mjs
  bash scripts/build.sh
else
  echo "(no toolchain here has the precompiled wasm32 libraries: skipped)"
fi
