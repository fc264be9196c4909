#!/bin/sh
# The library as an embedder meets it: `cmake --install` into a fresh prefix, then one
# program built three ways, each run: with find_package(sinew), with pkg-config, and with
# sinew added as a subdirectory of another project.
#   install_test.sh SOURCE_DIR BUILD_DIR
set -eu
SRC=$1
BUILD=$2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sinew-install-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
LIBDIR=$(ls -d "$TMP"/prefix/lib*)
test -f "$LIBDIR/libsinew.so" || { echo "install: no libsinew.so in $LIBDIR"; exit 1; }
test -f "$TMP/prefix/include/sinew/pipeline.h" || { echo "install: no headers"; exit 1; }
# Only the public API is exported.
if nm -D --defined-only "$LIBDIR/libsinew.so" | awk '{print $3}' | grep -v '^sinew_' | grep .; then
    echo "install: libsinew.so exports symbols outside sinew_*"; exit 1
fi

echo "== find_package(sinew)"
cmake -S "$SRC/tests/install/consumer" -B "$TMP/cmake" -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/cmake" >/dev/null
"$TMP/cmake/consumer"

echo "== pkg-config sinew"
# shellcheck disable=SC2046
cc -std=c11 "$SRC/tests/install/consumer/main.c" -o "$TMP/pc-consumer" \
    $(PKG_CONFIG_PATH="$LIBDIR/pkgconfig" pkg-config --cflags --libs sinew)
LD_LIBRARY_PATH="$LIBDIR" "$TMP/pc-consumer"

echo "== add_subdirectory(sinew)"
cmake -S "$SRC/tests/install/subproject" -B "$TMP/sub" -DSINEW_SOURCE="$SRC" >"$TMP/sub.log" ||
    { cat "$TMP/sub.log"; exit 1; }
if grep -q "^CMOCKA_" "$TMP/sub/CMakeCache.txt"; then
    echo "add_subdirectory: sinew looked for cmocka although its tests are off"; exit 1
fi
cmake --build "$TMP/sub" -j2 --target consumer >/dev/null
"$TMP/sub/consumer"
