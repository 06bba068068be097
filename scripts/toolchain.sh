# Sourced by scripts/build.sh: chooses the Rust toolchain of the shipped module, on any OS.
# Sets WEB_LOCKS_RUSTC and WEB_LOCKS_CARGO (the compiler and its cargo), WEB_LOCKS_WASM_LD
# (the linker) and WEB_LOCKS_ROUTE:
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
WEB_LOCKS_RUSTC=""
# (`${a[@]+...}`: an empty array under `set -u` in the bash 3.2 of macOS.)
if [ "${WEB_LOCKS_ROUTE:-}" != std ]; then
  for candidate in ${candidates[@]+"${candidates[@]}"}; do
    if releases "$candidate"; then WEB_LOCKS_RUSTC=$candidate WEB_LOCKS_ROUTE=build-std; break; fi
  done
fi
if [ -z "$WEB_LOCKS_RUSTC" ]; then
  for candidate in ${candidates[@]+"${candidates[@]}"}; do
    if has_wasm32 "$candidate"; then WEB_LOCKS_RUSTC=$candidate WEB_LOCKS_ROUTE=std; break; fi
  done
fi
if [ -z "$WEB_LOCKS_RUSTC" ]; then
  echo "build: no Rust toolchain here targets wasm32${candidates[0]+ (tried: ${candidates[*]})}:" \
    "'rustup target add wasm32-unknown-unknown' (or, for the release build," \
    "'rustup toolchain install nightly --component rust-src'); see docs/contributing.md" >&2
  exit 1
fi
sysroot=$("$WEB_LOCKS_RUSTC" --print sysroot)
# (The cargo beside that compiler, if any: a Debian or rustup toolchain's own.)
WEB_LOCKS_CARGO=$(dirname "$WEB_LOCKS_RUSTC")/cargo
[ -x "$WEB_LOCKS_CARGO" ] || WEB_LOCKS_CARGO=cargo
# The linker: the wasm-ld that rustup ships beside its compiler, or an LLVM one of the
# compiler's LLVM version (Debian's lld-<N>: wasm-ld-<N>), or any wasm-ld.
host=$("$WEB_LOCKS_RUSTC" -vV | sed -n 's/^host: //p')
llvm=$("$WEB_LOCKS_RUSTC" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
WEB_LOCKS_WASM_LD=""
for candidate in "$sysroot/lib/rustlib/$host/bin/gcc-ld/wasm-ld" "wasm-ld-$llvm" wasm-ld; do
  if command -v "$candidate" >/dev/null; then WEB_LOCKS_WASM_LD=$(command -v "$candidate"); break; fi
done
if [ -z "$WEB_LOCKS_WASM_LD" ]; then
  echo "build: no wasm-ld for $("$WEB_LOCKS_RUSTC" -V) (LLVM $llvm): install lld $llvm; see docs/contributing.md" >&2
  exit 1
fi
export WEB_LOCKS_RUSTC WEB_LOCKS_CARGO WEB_LOCKS_WASM_LD WEB_LOCKS_ROUTE
