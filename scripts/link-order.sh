#!/usr/bin/env bash
# link-order.sh: regenerates cmake/link-order.txt, the functions the hooks run on their usual
# paths, in the order they first run. The release link (cmake/ViberStaticLink.cmake) places them
# first and together, so a call touches a few dozen pages of code instead of a hundred spread over
# the binary's 2 MB: on a virtual machine each page of code a process maps costs microseconds.
#
# Contract: no arguments; needs valgrind (apt-get install valgrind) besides the build's own
# dependencies; builds the release preset, installs it into a scratch plugin tree, replays the
# bundled sample session (scripts/demo.sh) with every hook run under callgrind, and writes
# cmake/link-order.txt (one mangled symbol a line, as ld.lld's --symbol-ordering-file reads it);
# scratch files go under $TMPDIR and are removed; exit 0 when the file was written, 1 when the
# replay failed, 2 when valgrind is missing.
#
# The file only orders code: a symbol it names that a binary lacks is skipped, and a function it
# misses is linked after the listed ones, so a stale file costs speed, never behaviour. Run this
# after a change to what a hook runs on its usual paths (tests/integration/link_order_test.sh
# fails when a listed function of ours no longer exists).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! command -v valgrind > /dev/null; then
  echo "link-order: needs valgrind (apt-get install valgrind)" >&2
  exit 2
fi
jobs="${VIBER_JOBS:-$(nproc)}"
hooks=(plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start)

scratch="$(mktemp -d "${TMPDIR:-/tmp}/viber-link-order.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

cmake --preset release > /dev/null
cmake --build --preset release -j "$jobs" --target "${hooks[@]}"
cmake --install build/release --prefix "$scratch/plugin" > /dev/null

# Each hook-mode call of the replay writes one profile, named by the time it started, so they sort
# in the replay's order (tool mode, the replay's `--version`, is not what a hook's start-up is
# ordered for).
mkdir -p "$scratch/profiles"
printf '%s\n' '#!/usr/bin/env bash' \
  'if [ $# -eq 1 ]; then' \
  "  exec valgrind -q --tool=callgrind --demangle=no \\" \
  "    --callgrind-out-file=$scratch/profiles/\$(date +%s%N).out \"\$1\"" \
  'fi' 'exec "$@"' > "$scratch/run"
chmod +x "$scratch/run"
VIBER_HOOK_RUNNER="$scratch/run" bash scripts/demo.sh "$scratch/plugin" > "$scratch/demo.log" || {
  cat "$scratch/demo.log" >&2
  echo "link-order: the replay under callgrind failed" >&2
  exit 1
}

# The functions each call ran (fn= and cfn= lines define a name once, by number, within one
# profile; a recursive call's name carries 'N; "(below main)" is glibc's start-up), listed by how
# many calls ran them, most first: what every call runs (start-up, the payload, the answer) comes
# first and one hook's rarer paths last; ties in the order they first ran.
ran="$scratch/ran.txt"
for profile in $(ls "$scratch/profiles" | sort -n); do
  awk '
    match($0, /^c?fn=\([0-9]+\)/) {
      id = substr($0, RSTART, RLENGTH); sub(/^c?fn=/, "", id)
      name = substr($0, RLENGTH + 2)
      if (name != "") names[id] = name
      if (!(id in names)) next
      name = names[id]; sub(/\047[0-9]+$/, "", name)
      if (name == "(below main)") { print "__libc_start_main_impl"; print "__libc_start_call_main" }
      else if (name !~ /^0x/) print name
    }' "$scratch/profiles/$profile" | awk '!seen[$0]++'
done | awk '
  { if (!($0 in count)) order[++n] = $0; count[$0]++ }
  END { for (i = 1; i <= n; i++) printf "%d\t%d\t%s\n", count[order[i]], i, order[i] }
' | sort -t "$(printf '\t')" -k1,1nr -k2,2n | cut -f3 > "$scratch/by-calls.txt"
{ echo _start; cat "$scratch/by-calls.txt"; } > "$ran"

# callgrind runs the code on a CPU without AVX-512, so of the string functions and kernels picked
# at run time by the CPU's features only one variant ran: each variant of a family that ran (the
# same name once the instruction set is taken out of it) follows the one that ran.
for hook in "${hooks[@]}"; do
  nm --defined-only "build/release/bin/$hook" | awk 'NF == 3 { print $3 }'
done | awk '!seen[$0]++' > "$scratch/symbols.txt"
c++filt < "$scratch/symbols.txt" | paste "$scratch/symbols.txt" - |
  awk -F '\t' '
    function family(name) {
      name = tolower(name)
      gsub(/avx512(bw|vl|f)?|evex512|evex|avx2|avx|sse4_2|sse4_1|ssse3|sse2/, "ISA", name)
      return name
    }
    NR == FNR {
      key = family($2)
      if (key != tolower($2)) { family_of[$1] = key; members[key] = members[key] " " $1 }
      next
    }
    !($0 in listed) {
      listed[$0] = 1; print
      if (!($0 in family_of) || (family_of[$0] in done)) next
      done[family_of[$0]] = 1
      count = split(members[family_of[$0]], variant, " ")
      for (i = 1; i <= count; i++)
        if (!(variant[i] in listed)) { listed[variant[i]] = 1; print variant[i]; variants++ }
    }
    END { print variants + 0 > "/dev/stderr" }
  ' - "$ran" > cmake/link-order.txt 2> "$scratch/variants.txt"
echo "link-order: cmake/link-order.txt lists $(wc -l < "$ran") functions that ran" \
  "and $(cat "$scratch/variants.txt") variants of them"
