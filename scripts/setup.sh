#!/usr/bin/env bash
# Installs everything sinew builds and tests with: Debian packages (apt) and the Node packages
# pinned in package.json / web/package.json (npm ci, among them gltf-transform, which the
# tests use to make compressed copies of models). Skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  build-essential cmake pkg-config            # the build
  libcjson-dev libstb-dev libcmocka-dev       # C dependencies
  libdraco-dev libmeshoptimizer-dev           # compressed glTF (Draco, meshopt)
  nodejs npm                                  # reference tests (three.js, glTF-Validator)
  clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32   # the WebAssembly builds
  chromium                                    # browser tests (playwright-core drives it)
  blender python3-numpy                       # Blender import checks
  assimp-utils valgrind                       # assimp info; instruction counts
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm may come from elsewhere (e.g. nodesource); accept any working install.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || filtered+=("$p"); done
  missing=("${filtered[@]}")
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

npm_install() { # folder: npm ci when node_modules is missing or older than the lock file
  local dir=$1
  [ -f "$dir/package-lock.json" ] || return 0
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "setup: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}
npm_install .
npm_install web
echo "setup: ok"
