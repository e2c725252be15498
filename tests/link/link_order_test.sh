#!/usr/bin/env bash
# link_order_test.sh: the release link placed each hook's usual functions first, in the order its
# list (cmake/link-order/<hook>.txt) gives them, and each list still names the hook's functions.
#
# Contract: argv BIN_DIR ORDER_DIR; reads the six hook binaries of BIN_DIR with nm; prints each
# finding; exit 0 when, in every binary, the suite's own functions (viber::…) its list names sit in
# the list's order and at least 90% of them exist in the binary; 1 otherwise (a stale list: run
# scripts/link-order.sh); 2 on a usage error.
set -euo pipefail

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: link_order_test.sh BIN_DIR ORDER_DIR" >&2
  exit 2
fi
bin="$1"
orders="$2"
status=0

for hook in plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start; do
  order="$orders/$hook.txt"
  if [ ! -f "$order" ]; then
    echo "$hook: no list ($order)"
    status=1
    continue
  fi
  # nm prints addresses zero-padded to one width: compared as strings, they compare as addresses.
  found="$(nm --defined-only "$bin/$hook" | awk '
      NR == FNR { if ($0 ~ /^_ZN5viber/ && !($0 in rank)) rank[$0] = FNR; next }
      NF == 3 && ($3 in rank) && !seen[$3]++ { print rank[$3] "\t" $1 "\t" $3 }' "$order" - |
    sort -t "$(printf '\t')" -k1,1n)"
  out_of_order="$(printf '%s\n' "$found" |
    awk -F '\t' '{ at = "@" $2 } # a string: 0000000000306e90 would read as a number
                 NR > 1 && at < last { print "  " $3 " (listed " $1 ") lies before " name; bad++ }
                 { last = at; name = $3 } END { exit bad > 0 }')" || {
    echo "$hook: the listed functions are not in the list's order:"
    echo "$out_of_order" | head -5
    status=1
    continue
  }
  listed="$(grep -c '^_ZN5viber' "$order" || true)"
  present="$(printf '%s\n' "$found" | grep -c . || true)"
  echo "$hook: $present of the $listed functions of ours its list names, in order"
  if [ "$listed" -eq 0 ] || [ $((present * 10)) -lt $((listed * 9)) ]; then
    echo "$hook: the list is stale: run scripts/link-order.sh" >&2
    status=1
  fi
done
exit "$status"
