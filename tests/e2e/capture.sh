#!/usr/bin/env bash
# capture.sh: refreshes tests/fixtures/real/ (transcripts and hook payloads the real Claude Code CLI
# wrote) from one run of the end-to-end test.
# Contract: argv [build dir (default build/release)] [scenario,... (default: all)]; needs the
# build's hooks (cmake --build --preset release) and the pinned `claude` on PATH
# (scripts/install-deps.sh); runs tests/e2e/e2e.py with --capture, which replaces
# tests/fixtures/real/<scenario>/ only when every check of the run passed; exit status e2e.py's
# (77: no claude CLI).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${1:-build/release}"
only=()
if [ -n "${2:-}" ]; then only=(--only "$2"); fi
exec python3 tests/e2e/e2e.py --build "$build" --capture tests/fixtures/real "${only[@]}"
