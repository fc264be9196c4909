#!/bin/sh
# Builds a libFuzzer harness with clang-14 (fuzzer, address, undefined) into build-fuzz/ and
# runs it for SECONDS (default 600) on a working copy of fuzz/corpus. New findings land in
# build-fuzz/artifacts-HARNESS/; add each reproducer to fuzz/corpus/ once fixed (ctest
# replays it through both harnesses).
#   fuzz/run.sh load 900        the loader, the model view, posing, the writer
#   fuzz/run.sh pipeline 900    `sinew tail` as the library runs it, then write and reload
set -eu
HARNESS=${1:-load}
SECONDS_TO_RUN=${2:-600}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build-fuzz
case $HARNESS in
load) MODULES="base math model io" ;;
pipeline) MODULES="base math model io dyn metrics bake rig pipeline" ;;
*) echo "fuzz/run.sh: unknown harness '$HARNESS' (load or pipeline)" >&2; exit 2 ;;
esac
SOURCES=""
for m in $MODULES; do SOURCES="$SOURCES $ROOT/src/$m/*.c"; done
mkdir -p "$OUT/work-$HARNESS" "$OUT/artifacts-$HARNESS"
FLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I$ROOT/include -I$ROOT/src"
# io's one C++ file (its shim over libdraco) is compiled apart and linked in with libstdc++;
# without UBSan's vptr check, whose runtime only a C++ link brings.
# shellcheck disable=SC2086
clang++-14 -std=c++11 $FLAGS -fno-sanitize=vptr -c "$ROOT/src/io/draco_shim.cpp" \
    -o "$OUT/draco_shim.o"
# shellcheck disable=SC2086
clang-14 -std=c11 -D_POSIX_C_SOURCE=200809L -DSINEW_COMPRESSION=1 -ffp-contract=off $FLAGS \
    -fsanitize=fuzzer $SOURCES "$ROOT/fuzz/fuzz_$HARNESS.c" "$OUT/draco_shim.o" \
    -ldraco -lmeshoptimizer -lstdc++ -lcjson -lm -o "$OUT/fuzz_$HARNESS"
cd "$OUT"
exec ./fuzz_"$HARNESS" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=20 -print_final_stats=1 -dict="$ROOT/fuzz/gltf.dict" \
    -artifact_prefix="$OUT/artifacts-$HARNESS/" "$OUT/work-$HARNESS" "$ROOT/fuzz/corpus"
