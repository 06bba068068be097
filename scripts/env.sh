# Sourced by the build scripts: use the toolchain that can target wasm32.
# rustup's when it has the target; otherwise Debian's, set up by scripts/setup.sh.
# WEB_LOCKS_OFFLINE_WASM=1 prefers Debian's even where rustup has the target.
if { [ -n "${WEB_LOCKS_OFFLINE_WASM:-}" ] ||
  [ ! -d "$(rustc --print sysroot 2>/dev/null)/lib/rustlib/wasm32-unknown-unknown/lib" ]; } &&
  ls /usr/lib/rustlib/wasm32-unknown-unknown/lib/libstd-*.rlib >/dev/null 2>&1; then
  export PATH="/usr/bin:$PATH"
fi
export PATH="$PATH:$HOME/.cargo/bin"
