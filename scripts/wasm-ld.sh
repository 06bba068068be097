#!/usr/bin/env bash
# The linker of the shipped module (scripts/build.sh): wasm-ld ($WEB_LOCKS_WASM_LD) without
# rustc's `--export __wbg_jspi_task_poll`, js-sys's `#[no_mangle]` entry of JSPI tasks. No
# code here spawns one, and wasm-bindgen deletes that export anyway, but only after linking:
# by then its waker's vtable sits in the data with table indices, which keeps ~0.5 KB of
# task code alive (201 B gzip, measured). Not exported, none of it is linked.
set -euo pipefail
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --export ] && [ "${2:-}" = __wbg_jspi_task_poll ]; then
    shift 2
    continue
  fi
  # (rustup's rustc asks its rust-lld for wasm with `-flavor wasm`; a wasm-ld is one already.)
  if [ "$1" = -flavor ]; then
    shift 2
    continue
  fi
  args+=("$1")
  shift
done
exec "$WEB_LOCKS_WASM_LD" "${args[@]}"
