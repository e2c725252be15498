#!/usr/bin/env bash
# test.sh: the second command: builds a preset and runs every test with ctest.
#
# Contract: argv [release|asan|debug|windows-x64] (default release; asan = AddressSanitizer +
# UndefinedBehaviorSanitizer; windows-x64 = cross-compiled with mingw-w64, Boost built by
# scripts/build-boost-mingw.sh, every test run under wine with WINEPREFIX build/wine-prefix);
# writes build/<preset>/; env VIBER_JOBS sets the parallelism of the
# build and of ctest (default: the number of cores); exit status is ctest's (0 when every test
# passed), 1 on a usage error.
set -euo pipefail

preset="${1:-release}"
case "$preset" in
  release | asan | debug | windows-x64) ;;
  *) echo "usage: bash scripts/test.sh [release|asan|debug|windows-x64]" >&2; exit 1 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${VIBER_JOBS:-$(nproc)}"

# --- windows-x64: Boost for mingw (cached), then one wine prefix initialised once -------------
if [ "$preset" = windows-x64 ]; then
  bash scripts/build-boost-mingw.sh
  export WINEDEBUG=-all WINEPREFIX="$root/build/wine-prefix"
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    mkdir -p "$WINEPREFIX"
    /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
    /usr/lib/wine/wineserver64 -w || true
  fi
  # One persistent wine server (and wine's own services, started by a first program) outside
  # ctest: a server started by a test would inherit that test's output pipe and ctest would wait
  # for it to exit.
  /usr/lib/wine/wineserver64 -p </dev/null >/dev/null 2>&1 || true # already running: fine
  /usr/lib/wine/wine64 cmd /c exit </dev/null >/dev/null 2>&1 || true
  trap '/usr/lib/wine/wineserver64 -k >/dev/null 2>&1 || true' EXIT
fi
# --- end windows-x64 ---------------------------------------------------------------------------

cmake --preset "$preset"
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs"
