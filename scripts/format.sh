#!/usr/bin/env bash
# format.sh: applies the checked-in .clang-format to every C++ source of the checkout.
#
# Contract: argv [--check]; run from anywhere inside the checkout. Without --check, formats the
# files in place (exit 0). With --check, changes nothing, lists each file that differs from
# .clang-format on stdout and exits 1 when there is one (0 when none); it also checks that each
# file's `#pragma GCC diagnostic push`es and pops pair up (none popped before its push, none left
# pushed at the end of the file, so a header cannot change the warnings of what includes it), and
# lists each file that breaks that with its counts (exit 1). Exit 2 when clang-format is missing.
# env CLANG_FORMAT names the binary (default clang-format).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
clang_format="${CLANG_FORMAT:-clang-format}"
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: bash scripts/format.sh [--check]" >&2; exit 2 ;;
esac
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "format: $clang_format not found" >&2
  exit 2
fi

# Tracked and new C++ files, never the build trees.
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' | sort)

if [ "$check" -eq 0 ]; then
  [ ${#files[@]} -eq 0 ] || "$clang_format" -i "${files[@]}"
  exit 0
fi

differ=0
# Warning pragmas balanced in every file: each push has its pop after it, in the same file.
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  awk -v file="$file" '
    /^[[:space:]]*#[[:space:]]*pragma[[:space:]]+(GCC|clang)[[:space:]]+diagnostic[[:space:]]+push/ { pushes++; depth++ }
    /^[[:space:]]*#[[:space:]]*pragma[[:space:]]+(GCC|clang)[[:space:]]+diagnostic[[:space:]]+pop/ {
      pops++; if (--depth < 0) early = early ? early : FNR }
    END {
      if (depth != 0 || early) {
        printf "%s: %d diagnostic push, %d pop%s\n", file, pushes, pops, early ? ", a pop before its push at line " early : ""
        exit 1
      }
    }' "$file" || differ=1
done
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  if ! "$clang_format" "$file" | cmp -s - "$file"; then
    echo "$file"
    differ=1
  fi
done
exit "$differ"
