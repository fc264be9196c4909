#!/bin/sh
# Builds sinew's spring-chain runtime for WebAssembly: src/dyn + src/math + src/base and the
# export shim, with Debian's clang-14, wasi-libc and libclang-rt-14-dev-wasm32.
#   web/wasm/dyn/build.sh [OUT_DIR]     (default: build-dyn/wasm) -> OUT_DIR/sinew_dyn.wasm
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/build-dyn/wasm}
mkdir -p "$out"
tmp="$out/sinew_dyn.wasm.tmp.$$"
trap 'rm -f "$tmp"' EXIT
${CLANG:-clang-14} --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -O2 -std=c11 \
    -Wall -Wextra -Wno-unused-parameter -I"$root/include" -I"$root/src" \
    -Wl,--export=malloc -Wl,--export=free \
    "$here/dyn_wasm.c" "$root"/src/dyn/*.c "$root/src/math/math.c" "$root/src/base/base.c" \
    -o "$tmp"
mv "$tmp" "$out/sinew_dyn.wasm"
trap - EXIT
echo "$out/sinew_dyn.wasm"
