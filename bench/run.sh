#!/usr/bin/env bash
# run.sh: builds the release preset (fully static hooks, as installed) and runs the benchmark.
#
# Contract: argv passed to viber-bench ([--quick] for a tenth of the runs); writes build/release/
# and build/bench-results.md (the table, also printed); generated inputs go under $TMPDIR and are
# removed after; exit 0 when every case took its expected path (figures over target are reported,
# not failed).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${VIBER_JOBS:-$(nproc)}"

cmake --preset release -DVIBER_BENCH=ON
cmake --build --preset release -j "$jobs" --target viber_bench bench_floor bench_floor_bash \
  plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start
exec build/release/bench/viber-bench --bin-dir build/release/bin --floor build/release/bench/floor \
  --floor-bash build/release/bench/floor-bash \
  --work "${TMPDIR:-/tmp}" --out build/bench-results.md "$@"
