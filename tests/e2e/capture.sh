#!/usr/bin/env bash
# capture.sh: refreshes tests/fixtures/real/<version>/ (transcripts and hook payloads the real Claude
# Code CLI wrote, one directory per installed version) from one run of the end-to-end test.
# Contract: argv [build dir (default build/release)] [scenario,... (default: all)]; needs the
# build's hooks (cmake --build --preset release) and the pinned `claude` on PATH
# (scripts/install-deps.sh, which also installs the oldest supported and the newest version
# beside it); runs tests/e2e/e2e.py with --capture, which replaces
# tests/fixtures/real/<version>/<scenario>/ only when every check of that version passed; exit
# status e2e.py's (77: no claude CLI).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${1:-build/release}"
only=()
if [ -n "${2:-}" ]; then only=(--only "$2"); fi
exec python3 tests/e2e/e2e.py --build "$build" --capture tests/fixtures/real "${only[@]}"
