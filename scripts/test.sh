#!/usr/bin/env bash
# test.sh: the second command: builds a preset and runs every test with ctest; or, given a hook's
# name, builds that hook and its tests only (release preset) and runs them (ctest -L <hook>: its
# unit and integration tests, those of the libraries it links, the suite-wide ones that run it).
#
# Contract: argv [release|asan|debug|clang|linux-arm64|windows-x64] (default release; asan =
# AddressSanitizer + UndefinedBehaviorSanitizer; clang = the release build with clang++-14;
# linux-arm64 = cross-compiled for arm64, every test run under qemu-user; windows-x64 =
# cross-compiled with mingw-w64, every test run under wine; see "Under wine" below);
# installs what the preset needs first
# (scripts/install-deps.sh with the preset's flag: root or sudo only when something is missing;
# not when env VIBER_DEPS_INSTALLED=1);
# writes build/<preset>/; env VIBER_JOBS sets the parallelism of the build and of ctest (default:
# the number of cores), VIBER_WERROR=ON makes every warning an error, VIBER_SKIP_E2E=1 leaves out
# the end-to-end test (label e2e: the real Claude Code CLI; the CI runs it in a stage of its own,
# .ci/run); prints each test case a
# platform skipped, with its reason; exit status is ctest's (0 when every test passed), 1 on a
# usage error. argv plan-gate|plan-hints|kill-guard|shell-guard|verdict-nudge|session-start: the
# release preset, target tests-<hook> built, ctest -L <hook> run (the long tests left out).
#
# The default run leaves out the tests labelled `long`: the full-size shfmt oracle
# (shfmt_oracle_long: every corpus row and 2,000 generated commands) and the model differentials
# at 2,000 cases (*_model_*_test_long), which the default run samples instead (shfmt_oracle: 180
# rows and 120 commands; the differentials 300 sessions and 1,000 plans). On a 2-core machine the
# release preset's ctest part takes about 80 s, 46 s of it the end-to-end test (the build from a
# fresh clone about 3.5 minutes), the long tests under a minute more. env VIBER_LONG=1 runs the long tests only (the
# CI's long stage, after the release stage built the tree); VIBER_LONG=all runs every test.
#
# Under wine (windows-x64) no test passes on a retry unless it is allowed to: a test that fails
# runs once more alone; the stage passes only when every such test passed its second try and is
# listed, with the reason it may, in tests/wine-retry.txt, or its first try printed Boost.Test's
# passing report (every case passed; wine did not end the process) or printed nothing at all (wine
# never started the program). Each test that passed only on its
# second try is named on stdout and in build/windows-x64/second-try.txt (the CI summary prints
# it), listed or not.
set -euo pipefail

usage="usage: bash scripts/test.sh [release|asan|debug|clang|linux-arm64|windows-x64 | plan-gate|plan-hints|kill-guard|shell-guard|verdict-nudge|session-start]"
preset="${1:-release}"
hook=""
case "$preset" in
  plan-gate | plan-hints | kill-guard | shell-guard | verdict-nudge | session-start)
    hook="$preset"
    preset=release
    deps=()
    ;;
  release | debug) deps=() ;;
  asan | clang) deps=(--clang) ;;
  linux-arm64) deps=(--arm64) ;;
  windows-x64) deps=(--windows) ;;
  *) echo "$usage" >&2; exit 1 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${VIBER_JOBS:-$(nproc)}"

# CI installs every platform's packages once, first, and says so (VIBER_DEPS_INSTALLED=1).
if [ "${VIBER_DEPS_INSTALLED:-}" != 1 ]; then bash scripts/install-deps.sh "${deps[@]}"; fi

# --- windows-x64: Boost for mingw (cached), then one wine prefix initialised once -------------
if [ "$preset" = windows-x64 ]; then
  bash scripts/build-boost-mingw.sh
  export WINEDEBUG=-all WINEPREFIX="$root/build/wine-prefix"
  # A prefix is about 700 MB (wine copies its DLLs into it). One that wineboot left half-written
  # (a full disk, an interrupted run) fails every test with "could not load kernel32.dll", so it
  # is checked by running a program, made again once when that fails, and the stage stops with
  # wineboot's own output and the free space when it still fails.
  wine_works() { timeout 120 /usr/lib/wine/wine64 cmd /c exit </dev/null >/dev/null 2>&1; }
  wine_init() {
    /usr/lib/wine/wineserver64 -k >/dev/null 2>&1 || true
    rm -rf "$WINEPREFIX"
    mkdir -p "$WINEPREFIX"
    timeout 600 /usr/lib/wine/wine64 wineboot --init >"$root/build/wine-prefix.log" 2>&1 || true
    timeout 120 /usr/lib/wine/wineserver64 -w || true
  }
  if [ ! -f "$WINEPREFIX/system.reg" ] || ! wine_works; then wine_init; fi
  if ! wine_works; then wine_init; fi
  if ! wine_works; then
    echo "test.sh: wine cannot run a program in $WINEPREFIX; wineboot said:" >&2
    tail -n 20 "$root/build/wine-prefix.log" >&2
    df -h "$root/build" >&2
    exit 1
  fi
  # One persistent wine server (and wine's own services, started by a first program) outside
  # ctest: a server started by a test would inherit that test's output pipe and ctest would wait
  # for it to exit.
  /usr/lib/wine/wineserver64 -p </dev/null >/dev/null 2>&1 || true # already running: fine
  /usr/lib/wine/wine64 cmd /c exit </dev/null >/dev/null 2>&1 || true
  trap '/usr/lib/wine/wineserver64 -k >/dev/null 2>&1 || true' EXIT
fi
# --- end windows-x64 ---------------------------------------------------------------------------

configure=(--preset "$preset")
if [ -n "${VIBER_WERROR:-}" ]; then configure+=("-DVIBER_WERROR=$VIBER_WERROR"); fi
cmake "${configure[@]}"
status=0
ctest_args=(--preset "$preset" -j "$jobs")
if [ -n "$hook" ]; then
  cmake --build --preset "$preset" -j "$jobs" --target "tests-$hook"
  ctest_args+=(--label-regex "^$hook\$")
else
  cmake --build --preset "$preset" -j "$jobs"
fi
# One label regex (ctest 3.25 keeps only the last --label-exclude).
excluded=()
case "${VIBER_LONG:-}" in
  1) ctest_args+=(--label-regex '^long$') ;;
  all) ;;
  *) excluded+=(long) ;;
esac
if [ "${VIBER_SKIP_E2E:-}" = 1 ]; then excluded+=(e2e); fi
if [ ${#excluded[@]} -gt 0 ]; then
  ctest_args+=(--label-exclude "^($(IFS='|'; echo "${excluded[*]}"))\$")
fi
second_try="build/$preset/second-try.txt"
failed_log="build/$preset/Testing/Temporary/LastTestsFailed.log"
rm -f "$second_try" "$failed_log"
failed=()
ctest "${ctest_args[@]}" || status=$?

# A case a platform cannot run says so when it is skipped (support/strace.cpp and the like); the
# list is repeated at the end, where it is seen, rather than left in the log.
log="build/$preset/Testing/Temporary/LastTest.log"
skipped=""
if [ -f "$log" ]; then skipped=$(grep '^SKIPPED[: ]' "$log" | sort -u | sed -E 's/^SKIPPED:? /  /' || true); fi

# Under wine a program now and then never starts: clean-clone runs saw one trivial test time out
# at 120 s, and another end at once with "wine client error: recvmsg: Connection reset by peer",
# each then passing alone. So a test that failed runs once more, alone, and tells which it was: a
# failure or hang of the test's own making happens again; a test that passes the second time is
# named, and counts as passed only when tests/wine-retry.txt lists it with its reason (a blanket
# retry would let a flaky test pass unseen).
if [ "$preset" = windows-x64 ] && [ "$status" -ne 0 ] && [ -s "$failed_log" ]; then
  mapfile -t failed < <(cut -d: -f2- "$failed_log")
  # The first try's output, before the second tries write their own log.
  first_log="build/$preset/first-try.log"
  cp "$log" "$first_log"
fi
# True when test $1's first try printed Boost.Test's passing report ("has passed with": every case
# ran and passed) and still failed: the program finished and wine did not end its process (clean-
# clone runs saw that time out at 120 s, each time in another test). Its second try counts, named.
report_passed() {
  awk -v name="$1" '
    $0 == "" { next }
    index($0, " Test: " name) && substr($0, length($0) - length(name) + 1) == name { inside = 1; next }
    inside && $0 == "<end of output>" { exit }
    inside && /has passed with:/ { found = 1 }
    END { exit !found }' "$first_log"
}
# True when test $1's first try printed nothing at all, not even Boost.Test's opening line: wine
# never started the program (a clean-clone run saw a test end so in 0.01 s, then pass five times
# alone). Its second try is its first run; it counts, named.
never_started() {
  awk -v name="$1" '
    index($0, " Test: " name) && substr($0, length($0) - length(name) + 1) == name { inside = 1; next }
    inside && /^-+$/ && !opened { opened = 1; next }
    inside && opened && $0 == "<end of output>" { empty = 1; exit }
    inside && opened && $0 != "" { exit }
    END { exit !empty }' "$first_log"
}
# More than a few failures is no program that failed to start: nothing runs again.
if [ ${#failed[@]} -gt 5 ]; then
  echo "windows-x64: ${#failed[@]} tests failed: none runs again"
elif [ ${#failed[@]} -gt 0 ]; then
  echo "windows-x64: ${#failed[@]} test(s) failed; each runs once more, alone"
  status=0
  : >"$second_try"
  for name in "${failed[@]}"; do
    if ! ctest --preset "$preset" --no-tests=error -R "^$(printf '%s' "$name" | sed 's/[][\.^$*+?(){}|]/\\&/g')\$"; then
      echo "windows-x64: $name FAILED again"
      status=1
      continue
    fi
    reason=$(awk -v name="$name" '$1 == name { $1 = ""; sub(/^[ \t]+/, ""); print; exit }' \
      tests/wine-retry.txt)
    if [ -n "$reason" ]; then
      echo "windows-x64: $name passed only on its second try (listed in tests/wine-retry.txt: $reason)"
      printf '%s\tlisted\n' "$name" >>"$second_try"
    elif report_passed "$name"; then
      echo "windows-x64: $name passed on its second try; its first printed its passing report and wine did not end it"
      printf '%s\tfirst try passed its cases, wine did not end it\n' "$name" >>"$second_try"
    elif never_started "$name"; then
      echo "windows-x64: $name passed on its second try; its first printed nothing (wine never started it)"
      printf '%s\tfirst try printed nothing, wine never started it\n' "$name" >>"$second_try"
    else
      echo "windows-x64: $name passed only on its second try, and tests/wine-retry.txt does not list it: FAILED"
      printf '%s\tnot listed: fails the stage\n' "$name" >>"$second_try"
      status=1
    fi
  done
fi

if [ -n "$skipped" ]; then
  echo "skipped on $preset:"
  echo "$skipped"
fi
exit "$status"
