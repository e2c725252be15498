#!/usr/bin/env bash
# link_order_test.sh: the release link placed the hooks' usual functions first, in the order
# cmake/link-order.txt lists them, and that list still names the suite's functions.
#
# Contract: argv BIN_DIR ORDER_FILE; reads the six hook binaries of BIN_DIR with nm; prints each
# finding; exit 0 when, in every binary, the suite's own listed functions (viber::…) sit in the
# list's order, and at least 90% of them exist in some binary; 1 otherwise (a stale list: run
# scripts/link-order.sh); 2 on a usage error.
set -euo pipefail

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -f "$2" ]; then
  echo "usage: link_order_test.sh BIN_DIR ORDER_FILE" >&2
  exit 2
fi
bin="$1"
order="$2"
status=0
found="$(mktemp)"
trap 'rm -f "$found"' EXIT

for hook in plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start; do
  # nm prints addresses zero-padded to one width: compared as strings, they compare as addresses.
  out_of_order="$(nm --defined-only "$bin/$hook" | awk '
      NR == FNR { if ($0 ~ /^_ZN5viber/ && !($0 in rank)) rank[$0] = FNR; next }
      NF == 3 && ($3 in rank) { print rank[$3] "\t" $1 "\t" $3 }' "$order" - |
    sort -t "$(printf '\t')" -k1,1n | tee -a "$found" |
    awk -F '\t' '{ at = "@" $2 } # a string: 0000000000306e90 would read as a number
                 NR > 1 && at < last { print "  " $3 " (listed " $1 ") lies before " name; bad++ }
                 { last = at; name = $3 } END { exit bad > 0 }')" || {
    echo "$hook: the listed functions are not in the list's order:"
    echo "$out_of_order" | head -5
    status=1
    continue
  }
  held="$(nm --defined-only "$bin/$hook" |
    awk 'NR == FNR { rank[$0] = 1; next } NF == 3 && ($3 in rank)' "$order" - | wc -l)"
  echo "$hook: $held listed functions, in order"
done

listed="$(grep -c '^_ZN5viber' "$order" || true)"
present="$(cut -f3 "$found" | sort -u | wc -l)"
echo "the suite's listed functions: $listed, of which $present exist in some hook"
if [ "$listed" -eq 0 ] || [ $((present * 10)) -lt $((listed * 9)) ]; then
  echo "the list is stale: run scripts/link-order.sh" >&2
  status=1
fi
exit "$status"
