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
test -f "$LIBDIR/libsinew.a" || { echo "install: no libsinew.a in $LIBDIR"; exit 1; }
test -L "$LIBDIR/libsinew.so.0" || { echo "install: no versioned libsinew.so.0"; exit 1; }
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

echo "== every installed header as C++17 (-Wall -Werror)"
for h in "$TMP"/prefix/include/sinew/*.h; do
    printf '#include <sinew/%s>\nint main() { return 0; }\n' "$(basename "$h")" >"$TMP/header.cpp"
    c++ -std=c++17 -Wall -Wextra -Werror -I"$TMP/prefix/include" -fsyntax-only "$TMP/header.cpp" ||
        { echo "C++17: sinew/$(basename "$h") does not compile"; exit 1; }
done

# examples/live_tail.c, as the README gives it to embedders, against the installed tree, run
# on a file `sinew tail` wrote.
"$BUILD/bin/sinew" creature fox -o "$TMP/fox.glb" >/dev/null
"$BUILD/bin/sinew" tail "$TMP/fox.glb" -o "$TMP/fox_tail.glb" >/dev/null
echo "== live_tail with pkg-config --static"
# shellcheck disable=SC2046
cc -std=c11 "$SRC/examples/live_tail.c" -o "$TMP/live-pc" \
    $(PKG_CONFIG_PATH="$LIBDIR/pkgconfig" pkg-config --cflags --libs --static sinew)
LD_LIBRARY_PATH="$LIBDIR" "$TMP/live-pc" "$TMP/fox_tail.glb" Walk --seconds 1 >/dev/null
echo "== live_tail linked with libsinew.a (pkg-config --static's other libraries)"
# shellcheck disable=SC2046
cc -std=c11 "$SRC/examples/live_tail.c" -o "$TMP/live-static" \
    $(PKG_CONFIG_PATH="$LIBDIR/pkgconfig" pkg-config --cflags --libs --static sinew |
        sed 's/-lsinew /-l:libsinew.a /')
if ldd "$TMP/live-static" | grep -q libsinew; then
    echo "libsinew.a: the program still loads libsinew.so"; exit 1
fi
"$TMP/live-static" "$TMP/fox_tail.glb" Walk --seconds 1 >/dev/null
echo "== live_tail with a five-line find_package project"
mkdir -p "$TMP/live"
cp "$SRC/examples/live_tail.c" "$TMP/live/"
cat >"$TMP/live/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(live_tail LANGUAGES C)
find_package(sinew REQUIRED)
add_executable(live_tail live_tail.c)
target_link_libraries(live_tail PRIVATE sinew::sinew)
CMAKE
cmake -S "$TMP/live" -B "$TMP/live/build" -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/live/build" >/dev/null
"$TMP/live/build/live_tail" "$TMP/fox_tail.glb" Walk --seconds 1 >/dev/null
echo "install: ok"
