#!/bin/sh
# Run after `make test`'s ctest runs: with the shared models present, every test must have run.
# A test skips (exit 77) when the data or the tool it needs is absent; with ../shared/models
# beside the checkout and scripts/setup.sh's packages installed nothing is absent, so a skip
# means a test did not test what it says, and the run fails naming it.
#
# Usage: scripts/no_skips.sh CTEST_LOG MODELS_DIR   (CTEST_LOG: what `ctest -O` wrote)
set -eu
log=$1
models=$2
if [ ! -d "$models" ]; then
    echo "note: $models is absent: the tests on the shared models were skipped"
    exit 0
fi
skipped=$(grep -E '\*\*\*Skipped' "$log" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' || true)
if [ -n "$skipped" ]; then
    echo "error: $models is present, yet these tests skipped:" $skipped >&2
    exit 1
fi
