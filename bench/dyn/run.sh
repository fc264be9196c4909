#!/bin/sh
# Runs the dyn benchmark and three-vrm's spring bones on the same chains and prints both
# figures with the ratio. Usage: bench/dyn/run.sh [BUILD_DIR] [chains]
# (default build, 10000 chains). Figures are CPU time, so a busy machine inflates both.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
chains=${2:-10000}
c_out=$("$build/bin/bench_dyn" "$chains" 120)
js_out=$(NODE_PATH="$root/node_modules" node "$here/bench_vrm.mjs" "$chains" 30)
echo "$c_out" | grep -v '^RESULT'
echo "$js_out" | grep -v '^RESULT'
c_ns=$(echo "$c_out" | awk '$1 == "RESULT" && $2 == "sinew_ns_per_joint_step" {print $3}')
js_ns=$(echo "$js_out" | awk '/^RESULT/{print $3}')
awk -v c="$c_ns" -v j="$js_ns" 'BEGIN {
  printf "ns per joint-step: sinew %.1f (goal <= 40) | three-vrm %.1f | sinew is %.1fx faster (goal >= 20x)\n", c, j, j / c }'
