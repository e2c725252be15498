#!/usr/bin/env bash
# link-order.sh: regenerates cmake/link-order/<hook>.txt, for each hook the functions it runs on
# its usual paths, the most common first. The release link (cmake/ViberStaticLink.cmake) places
# them first and together, so a call touches a few dozen pages of code instead of a hundred spread
# over the binary's 2.5 MB: on a virtual machine each page of code a process maps costs
# microseconds. One list a hook, so no hook's code sits between another's.
#
# Contract: no arguments; needs valgrind (apt-get install valgrind) besides the build's own
# dependencies; builds the release preset, installs it into a scratch plugin tree, replays the
# bundled sample session (scripts/demo.sh) and the benchmark's hook calls with every hook run
# under callgrind, and writes
# cmake/link-order/<hook>.txt for the six hooks (one mangled symbol a line, as ld.lld's
# --symbol-ordering-file reads it); scratch files go under $TMPDIR and are removed; exit 0 when the
# files were written, 1 when the replay failed or made no call of a hook, 2 when valgrind is
# missing.
#
# A list only orders code: a symbol it names that the binary lacks is skipped, and a function it
# misses is linked after the listed ones, so a stale list costs speed, never behaviour. Run this
# after a change to what a hook runs on its usual paths (ctest's link_order,
# tests/link/link_order_test.sh, fails when listed functions of ours no longer exist).
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
cmake --build --preset release -j "$jobs" --target "${hooks[@]}" viber_bench
cmake --install build/release --prefix "$scratch/plugin" > /dev/null

# Each hook-mode call of the replay writes one profile, named by the time it started and the hook,
# so one hook's profiles sort in the replay's order (tool mode, the replay's `--version`, is not
# what a hook's start-up is ordered for).
mkdir -p "$scratch/profiles"
printf '%s\n' '#!/usr/bin/env bash' \
  'if [ $# -eq 1 ]; then' \
  "  exec valgrind -q --tool=callgrind --demangle=no \\" \
  "    --callgrind-out-file=$scratch/profiles/\$(date +%s%N).\$(basename \"\$1\").out \"\$1\"" \
  'fi' 'exec "$@"' > "$scratch/run"
chmod +x "$scratch/run"
VIBER_HOOK_RUNNER="$scratch/run" bash scripts/demo.sh "$scratch/plugin" > "$scratch/demo.log" || {
  cat "$scratch/demo.log" >&2
  echo "link-order: the replay under callgrind failed" >&2
  exit 1
}

# Then the benchmark's hook calls (bench/bench.cpp --calls): the shapes the speed targets name (a
# 20 KB command, a 1 MB transcript, a 5 MB message...) run paths a short sample session does not.
build/release/bench/viber-bench --calls "$scratch/calls.tsv" --work "$scratch" > /dev/null
while IFS="$(printf '\t')" read -r exe input project; do
  (cd "$project" && valgrind -q --tool=callgrind --demangle=no \
    --callgrind-out-file="$scratch/profiles/$(date +%s%N).$(basename "$exe").out" \
    "$exe" < "$input" > /dev/null 2>&1) || {
    echo "link-order: $(basename "$exe") < $input failed under callgrind" >&2
    exit 1
  }
done < "$scratch/calls.tsv"

# Start-up code every call runs that callgrind never shows, found by stepping a hook natively to
# main under gdb: glibc sets up the vDSO only when the kernel maps one (valgrind maps none), it
# reads the cache sizes by the CPU's vendor (callgrind's CPU is no real one), and crtbegin's
# frame_dummy and register_tm_clones run unnamed.
unseen_startup=(frame_dummy register_tm_clones handle_amd handle_intel handle_zhaoxin
  _dl_new_object calloc _dl_setup_hash _dl_add_to_namespace_list __pthread_mutex_lock
  __pthread_mutex_unlock __pthread_mutex_unlock_usercnt _dl_lookup_symbol_x do_lookup_x check_match)

mkdir -p cmake/link-order
rm -f cmake/link-order.txt
for hook in "${hooks[@]}"; do
  profiles="$(ls "$scratch/profiles" | grep -F ".$hook.out" | sort -n || true)"
  if [ -z "$profiles" ]; then
    echo "link-order: the replay made no hook-mode call of $hook" >&2
    exit 1
  fi
  # The functions each of the hook's calls ran (fn= and cfn= lines define a name once, by number,
  # within one profile; a recursive call's name carries 'N; "(below main)" is glibc's start-up),
  # listed by how many of its calls ran them, most first: what every call runs (start-up, the
  # payload, the answer) comes first and the rarer paths last; ties in the order they first ran.
  ran="$scratch/$hook.ran.txt"
  for profile in $profiles; do
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
  { echo _start; printf '%s\n' "${unseen_startup[@]}"; cat "$scratch/by-calls.txt"; } > "$ran"

  # callgrind runs the code on a CPU without AVX-512, so of the string functions and kernels
  # picked at run time by the CPU's features only one variant ran: each variant of a family that
  # ran (the same name once the instruction set is taken out of it) follows the one that ran.
  nm --defined-only "build/release/bin/$hook" | awk 'NF == 3 { print $3 }' |
    awk '!seen[$0]++' > "$scratch/symbols.txt"
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
    ' - "$ran" > "cmake/link-order/$hook.txt" 2> "$scratch/variants.txt"
  echo "link-order: cmake/link-order/$hook.txt lists $(wc -l < "$ran") functions that ran" \
    "and $(cat "$scratch/variants.txt") variants of them"
done
