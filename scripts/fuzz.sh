#!/usr/bin/env bash
# fuzz.sh: build the guards' libFuzzer targets with clang and run each for a while.
#
#   bash scripts/fuzz.sh [--ci] [SECONDS]
#
# --ci runs each guard target for SECONDS (default 60) from a fresh corpus seeded with the
# labelled commands of tests/corpus/, and fails on any crash, sanitizer report, or input that
# takes over 50 ms or grows the resident set by 64 MB (fuzz/input_budget.hpp). Needs clang-14 and
# libclang-rt-14-dev (scripts/install-deps.sh installs them). Then the speed layer's differential
# tests (tests/unit/fast_*_test.cpp, in the release build) run for SECONDS each
# (VIBER_FAST_TEST_SECONDS): the kernels against their plain references on fresh seeds.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
for arg in "$@"; do
  case "$arg" in
    --ci) ;;
    [0-9]*) seconds=$arg ;;
    *) echo "usage: scripts/fuzz.sh [--ci] [SECONDS]" >&2; exit 1 ;;
  esac
done

build=build/fuzz
CXX=${CXX:-clang++} cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DVIBER_FUZZ=ON -DVIBER_TESTS=OFF -DVIBER_BENCH=OFF >/dev/null
targets=(fuzz_kill_guard fuzz_shell_guard fuzz_shell_lexer)
cmake --build "$build" -j2 --target "${targets[@]}"

# Seeds: each labelled command of both corpora as one file (the command column, escapes read).
seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
python3 - "$seeds" <<'PY'
import sys, hashlib, pathlib
out = pathlib.Path(sys.argv[1])
for corpus, column in (("tests/corpus/kill-guard.tsv", 1), ("tests/corpus/shell-guard.tsv", 1)):
    for line in open(corpus, encoding="utf-8", errors="surrogateescape"):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) <= column:
            continue
        text = fields[column].replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
        data = text.encode("utf-8", "surrogateescape")
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
PY

status=0
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${seconds}s"
  if ! "$build/fuzz/$target" "$corpus" "$seeds" -max_total_time="$seconds" -max_len=65536 \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/$target-" \
      2>"$build/$target.log"; then
    echo "fuzz: $target FAILED (see $build/$target.log and $build/$target-crash-*)"
    status=1
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$build/$target.log" || true
done

# The kernels of common/fast/ against their references, longer than ctest runs them.
cmake --preset release >/dev/null
fast_tests=(unit_fast_line_scan_test unit_fast_json_string_test)
cmake --build --preset release -j2 --target "${fast_tests[@]}"
for test in "${fast_tests[@]}"; do
  echo "fast: $test for ${seconds}s"
  if ! VIBER_FAST_TEST_SECONDS="$seconds" "build/release/tests/$test" --report_level=short; then
    echo "fast: $test FAILED"
    status=1
  fi
done
exit $status
