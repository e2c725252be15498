#!/usr/bin/env bash
# fuzz.sh: build every libFuzzer target of fuzz/ with clang and run each for a while.
#
#   bash scripts/fuzz.sh [--ci] [SECONDS]
#
# --ci builds every target fuzz/CMakeLists.txt defines (eight today) and runs each from a fresh
# corpus, seeded: the command targets (fuzz_kill_guard, fuzz_shell_guard, fuzz_shell_lexer) with
# the labelled commands of tests/corpus/, for SECONDS each (default 60); the others for SECONDS / 2
# each (their inputs are small and structured), fuzz_payload and fuzz_verdict_nudge with the hook
# payloads of examples/ and tests/fixtures/, fuzz_transcript with their transcripts,
# fuzz_file_limit with their plans, fuzz_session_start with a few viber.yml files and the
# manifest (the seeds are written under build/fuzz/seeds/). It fails on any crash, sanitizer
# report, or (the guards) input that takes over 50 ms or grows the resident set by 64 MB
# (fuzz/input_budget.hpp). Needs clang-14 and libclang-rt-14-dev (scripts/install-deps.sh
# installs them). Then, in the release build: the
# differential tests of plan-gate and plan-hints against their plain model on SECONDS * 50
# generated cases (VIBER_DIFF_CASES), the shfmt differential over SECONDS * 10 generated commands
# (when shfmt is there), and the speed layer's differential tests (tests/unit/fast/fast_*_test.cpp)
# for SECONDS / 4 each (VIBER_FAST_TEST_SECONDS): the kernels against their plain references on
# fresh seeds.
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
# Every target fuzz/CMakeLists.txt defines, read from it, so a new one is built and run too (and
# fails here until it has seeds below).
mapfile -t targets < <(sed -nE 's/^viber_add_fuzzer\(([a-z0-9_]+).*/\1/p' fuzz/CMakeLists.txt)
cmake --build "$build" -j2 --target "${targets[@]}"

# Seeds, one directory a kind, each file named by its hash: the command column of both guard
# corpora (escapes read); the hook payloads (stdin), transcripts and plans the examples and the
# fixtures hold, copied as they are; viber.yml files and the manifest for session-start.
seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
python3 - "$seeds" <<'PY'
import sys, hashlib, pathlib
out = pathlib.Path(sys.argv[1])
def seed(kind, data):
    (out / kind).mkdir(parents=True, exist_ok=True)
    (out / kind / hashlib.sha1(data).hexdigest()).write_bytes(data)
for corpus, column in (("tests/corpus/kill-guard.tsv", 1), ("tests/corpus/shell-guard.tsv", 1)):
    for line in open(corpus, encoding="utf-8", errors="surrogateescape"):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) <= column:
            continue
        text = fields[column].replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
        seed("commands", text.encode("utf-8", "surrogateescape"))
for pattern, kind in (("*.json", "payloads"), ("*.jsonl", "transcripts"), ("*.md", "plans")):
    for top in ("examples", "tests/fixtures"):
        for path in pathlib.Path(top).rglob(pattern):
            if path.name != "README.md":
                seed(kind, path.read_bytes()[:65536])
for yml in (b"schema: 1\n", b"schema: 3\n", b"# project config\nschema: 12\nname: demo\n",
            b"schema: 007\r\n", b"schema:\n", b"name: demo\n"):
    seed("session-start", yml)
seed("session-start", pathlib.Path("content/manifest.md").read_bytes())
PY

status=0
for target in "${targets[@]}"; do
  case "$target" in
    fuzz_kill_guard | fuzz_shell_guard | fuzz_shell_lexer) kind=commands time=$seconds ;;
    fuzz_payload | fuzz_verdict_nudge) kind=payloads time=$((seconds / 2)) ;;
    fuzz_transcript) kind=transcripts time=$((seconds / 2)) ;;
    fuzz_file_limit) kind=plans time=$((seconds / 2)) ;;
    fuzz_session_start) kind=session-start time=$((seconds / 2)) ;;
    *) echo "fuzz: $target has no seeds in scripts/fuzz.sh: FAILED"; status=1; continue ;;
  esac
  [ "$time" -gt 0 ] || time=1
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  echo "fuzz: $target for ${time}s from $(ls "$seeds/$kind" | wc -l) seeds ($kind)"
  if ! "$build/fuzz/$target" "$corpus" "$seeds/$kind" -max_total_time="$time" -max_len=65536 \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/$target-" \
      2>"$build/$target.log"; then
    echo "fuzz: $target FAILED (see $build/$target.log and $build/$target-crash-*)"
    status=1
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$build/$target.log" || true
done
# The hooks against the plain model of their decisions (tests/model/), on many more generated
# sessions and plans than the test suite's default, from a seed of its own each run (printed: a
# difference reruns with VIBER_DIFF_SEED=<seed> VIBER_DIFF_CASES=1). VIBER_DIFF_CASES overrides
# the count (default 50 cases a second of SECONDS).
diff_cases=${VIBER_DIFF_CASES:-$((seconds * 50))}
diff_seed=${VIBER_DIFF_SEED:-$(( ($(date +%s) % 100000) * 100000 + 1000000 ))}
diff_targets=(integration_model_differential_test unit_plan_gate_file_limit_model_test)
cmake --preset release >/dev/null
cmake --build --preset release -j2 --target "${diff_targets[@]}"
for target in "${diff_targets[@]}"; do
  echo "fuzz: $target, $diff_cases cases from seed $diff_seed"
  if ! VIBER_DIFF_CASES=$diff_cases VIBER_DIFF_SEED=$diff_seed \
      "build/release/tests/$target" --report_level=short >"$build/$target.log" 2>&1; then
    echo "fuzz: $target FAILED (see $build/$target.log)"
    status=1
  fi
  grep -E 'cases from seed|plans:' "$build/$target.log" || true
done

# The shfmt differential (tests/oracle/shfmt_oracle.py) over more generated commands than CI's
# 2,000: about SECONDS x 10, with a seed of its own each run (printed, so a failure can be
# replayed with VIBER_ORACLE_SEED). Needs a release build's binaries and shfmt.
if command -v shfmt >/dev/null 2>&1 && [ -x build/release/bin/kill-guard ]; then
  seed=${VIBER_ORACLE_SEED:-$RANDOM}
  echo "fuzz: shfmt oracle, $((seconds * 10)) generated commands, seed $seed"
  if ! python3 tests/oracle/shfmt_oracle.py --bin build/release/bin --corpus tests/corpus \
      --count $((seconds * 10)) --seed "$seed" >"$build/shfmt_oracle.log" 2>&1; then
    echo "fuzz: shfmt oracle FAILED (see $build/shfmt_oracle.log)"
    status=1
  fi
  grep '^shfmt_oracle:' "$build/shfmt_oracle.log" || true
else
  echo "fuzz: shfmt oracle skipped (needs shfmt and build/release/bin/kill-guard)"
fi

# The kernels of common/fast/ against their references, longer than ctest runs them.
cmake --preset release >/dev/null
fast_tests=(unit_fast_line_scan_test unit_fast_json_string_test unit_fast_tokens_test)
cmake --build --preset release -j2 --target "${fast_tests[@]}"
for test in "${fast_tests[@]}"; do
  echo "fast: $test for $((seconds / 4))s"
  if ! VIBER_FAST_TEST_SECONDS="$((seconds / 4))" "build/release/tests/$test" --report_level=short; then
    echo "fast: $test FAILED"
    status=1
  fi
done
exit $status
