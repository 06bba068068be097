# Sourced by scripts/build.sh and scripts/test.sh: chooses the Rust toolchains, on any OS.
# For the shipped module, sets WEB_LOCKS_RUSTC and WEB_LOCKS_CARGO (the compiler and its
# cargo), WEB_LOCKS_WASM_LD (the linker) and WEB_LOCKS_ROUTE:
#   build-std  a rustc whose sysroot holds the library's source and that knows immediate-abort
#              panics (core and alloc are rebuilt: the release build): the first of
#              $WEB_LOCKS_RUSTC if set, rustup's nightly with rust-src, and every `rustc` on
#              PATH (Debian's rustc-web with rust-web-src is one: scripts/setup.sh installs it
#              where rustup cannot download);
#   std        otherwise, the first `rustc` whose sysroot has the wasm32 target's
#              precompiled libraries (rustup's stable with `rustup target add
#              wasm32-unknown-unknown`): a larger module.
# WEB_LOCKS_ROUTE=std (set beforehand) builds on the precompiled libraries even where the
# release route is available. A WEB_LOCKS_RUSTC that fits neither route is an error.
# For the worker's in-browser tests (src/worker/tests.rs, a std build), sets
# WEB_LOCKS_TEST_RUSTC, WEB_LOCKS_TEST_CARGO, WEB_LOCKS_TEST_FLAGS and WEB_LOCKS_TEST_WASM_LD:
# the first compiler with the precompiled libraries, else the release route's compiler
# rebuilding std into target/ with the flags and linker given (WEB_LOCKS_REBUILD_STD=1
# takes that way even where precompiled libraries exist).
# wasm-bindgen-cli's commands are looked for where `cargo install` puts them, too.
export PATH="$PATH:$HOME/.cargo/bin"
releases() {
  [ -d "$("$1" --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library/core" ] &&
    RUSTC_BOOTSTRAP=1 "$1" -Zunstable-options -Cpanic=immediate-abort --print sysroot >/dev/null 2>&1
}
has_wasm32() { [ -d "$("$1" --print sysroot 2>/dev/null)/lib/rustlib/wasm32-unknown-unknown/lib" ]; }
candidates=()
if [ -n "${WEB_LOCKS_RUSTC:-}" ]; then
  candidates+=("$WEB_LOCKS_RUSTC")
else
  if command -v rustup >/dev/null && nightly=$(rustup which --toolchain nightly rustc 2>/dev/null); then
    candidates+=("$nightly")
  fi
  while IFS= read -r found; do candidates+=("$found"); done < <(type -ap rustc)
fi
release="" precompiled=""
# (`${a[@]+...}`: an empty array under `set -u` in the bash 3.2 of macOS.)
for candidate in ${candidates[@]+"${candidates[@]}"}; do
  if [ -z "$release" ] && releases "$candidate"; then release=$candidate; fi
  if [ -z "$precompiled" ] && has_wasm32 "$candidate"; then precompiled=$candidate; fi
done
WEB_LOCKS_RUSTC=""
if [ -n "$release" ] && [ "${WEB_LOCKS_ROUTE:-}" != std ]; then
  WEB_LOCKS_RUSTC=$release WEB_LOCKS_ROUTE=build-std
elif [ -n "$precompiled" ]; then
  WEB_LOCKS_RUSTC=$precompiled WEB_LOCKS_ROUTE=std
fi
if [ -z "$WEB_LOCKS_RUSTC" ]; then
  echo "build: no Rust toolchain here targets wasm32${candidates[0]+ (tried: ${candidates[*]})}:" \
    "'rustup target add wasm32-unknown-unknown' (or, for the release build," \
    "'rustup toolchain install nightly --component rust-src'); see docs/contributing.md" >&2
  exit 1
fi
# (The cargo beside a compiler, if any: a Debian or rustup toolchain's own.)
cargo_of() { if [ -x "$(dirname "$1")/cargo" ]; then echo "$(dirname "$1")/cargo"; else echo cargo; fi; }
WEB_LOCKS_CARGO=$(cargo_of "$WEB_LOCKS_RUSTC")
# The linker of a compiler: the wasm-ld that rustup ships beside it, or an LLVM one of its
# LLVM version (Debian's lld-<N>: wasm-ld-<N>), or any wasm-ld.
wasm_ld_of() {
  local host llvm candidate
  host=$("$1" -vV | sed -n 's/^host: //p')
  llvm=$("$1" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
  for candidate in "$("$1" --print sysroot)/lib/rustlib/$host/bin/gcc-ld/wasm-ld" "wasm-ld-$llvm" wasm-ld; do
    if command -v "$candidate" >/dev/null; then command -v "$candidate"; return; fi
  done
  echo "build: no wasm-ld for $("$1" -V) (LLVM $llvm): install lld $llvm; see docs/contributing.md" >&2
  return 1
}
WEB_LOCKS_WASM_LD=$(wasm_ld_of "$WEB_LOCKS_RUSTC") || exit 1
# The worker's in-browser tests. Rebuilding std needs RUSTC_BOOTSTRAP, as the release build
# does, and a linker: rustc's default for wasm32 is rust-lld, which only rustup ships (and
# rustup's toolchain is then left to it).
if [ -n "$release" ] && { [ -n "${WEB_LOCKS_REBUILD_STD:-}" ] || [ -z "$precompiled" ]; }; then
  WEB_LOCKS_TEST_RUSTC=$release WEB_LOCKS_TEST_FLAGS="-Zbuild-std=std,panic_abort,test"
  WEB_LOCKS_TEST_WASM_LD=$(wasm_ld_of "$release") || exit 1
else
  WEB_LOCKS_TEST_RUSTC=$precompiled WEB_LOCKS_TEST_FLAGS="" WEB_LOCKS_TEST_WASM_LD=""
fi
WEB_LOCKS_TEST_CARGO=$(cargo_of "$WEB_LOCKS_TEST_RUSTC")
export WEB_LOCKS_RUSTC WEB_LOCKS_CARGO WEB_LOCKS_WASM_LD WEB_LOCKS_ROUTE
export WEB_LOCKS_TEST_RUSTC WEB_LOCKS_TEST_CARGO WEB_LOCKS_TEST_FLAGS WEB_LOCKS_TEST_WASM_LD
