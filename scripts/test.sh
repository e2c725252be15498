#!/usr/bin/env bash
# test.sh: the second command: builds a preset and runs every test with ctest.
#
# Contract: argv [release|asan|debug] (default release; asan = AddressSanitizer +
# UndefinedBehaviorSanitizer); writes build/<preset>/; env VIBER_JOBS sets the parallelism of the
# build and of ctest (default: the number of cores); exit status is ctest's (0 when every test
# passed), 1 on a usage error.
set -euo pipefail

preset="${1:-release}"
case "$preset" in
  release | asan | debug) ;;
  *) echo "usage: bash scripts/test.sh [release|asan|debug]" >&2; exit 1 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${VIBER_JOBS:-$(nproc)}"

cmake --preset "$preset"
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs"
