#!/bin/sh
# Builds the libFuzzer harness with clang-14 (fuzzer, address, undefined) into build-fuzz/ and
# runs it for SECONDS (default 600) on a working copy of fuzz/corpus. New findings land in
# build-fuzz/artifacts/; add each reproducer to fuzz/corpus/ once fixed (ctest replays it).
#   fuzz/run.sh 600
set -eu
SECONDS_TO_RUN=${1:-600}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build-fuzz
mkdir -p "$OUT/work" "$OUT/artifacts"
SOURCES="$ROOT/src/base/*.c $ROOT/src/math/*.c $ROOT/src/model/*.c $ROOT/src/io/*.c"
# shellcheck disable=SC2086
clang-14 -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$ROOT/include" -I"$ROOT/src" $SOURCES "$ROOT/fuzz/fuzz_load.c" \
    -lcjson -lm -o "$OUT/fuzz_load"
cd "$OUT"
exec ./fuzz_load -max_total_time="$SECONDS_TO_RUN" -max_len=16384 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -dict="$ROOT/fuzz/gltf.dict" \
    -artifact_prefix="$OUT/artifacts/" "$OUT/work" "$ROOT/fuzz/corpus"
