#!/usr/bin/env bash
# commands_test.sh: every command README.md and docs/guide.md print runs as printed from the
# checkout after `bash scripts/setup-and-demo.sh`: the code lines of both (indented four spaces,
# or inside ``` fences) are read, each path they name under the checkout (dist/, scripts/,
# examples/, tests/, docs/, ...) must exist once the build is installed into dist/, and the
# harmless ones (a hook binary run on the checkout's own files) are run and must exit 0. A stale
# path (`hooks/bin/plan-gate` for `dist/hooks/bin/plan-gate`) fails.
# usage: commands_test.sh <cmake> <build dir> <source dir>
set -euo pipefail
cmake_command=$1
build_dir=$2
source_dir=$3
scratch=$(mktemp -d "${TMPDIR:-/tmp}/viber-docs-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# A checkout after the first command: the source's entries, and dist/ installed from this build.
checkout="$scratch/checkout"
mkdir -p "$checkout"
for entry in "$source_dir"/* "$source_dir"/.[!.]*; do
  name=$(basename "$entry")
  [ "$name" = dist ] || [ "$name" = .git ] || ln -s "$entry" "$checkout/$name"
done
"$cmake_command" --install "$build_dir" --prefix "$checkout/dist" > /dev/null

# The code lines of a markdown file, continuation lines (ending in \) joined.
code_lines() {
  awk '
    /^[[:space:]]*```/ { fenced = !fenced; next }
    fenced || /^    / {
      line = $0; sub(/^[[:space:]]+/, "", line)
      if (pending != "") line = pending " " line
      if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; next }
      pending = ""
      print line
    }' "$1"
}

# The checkout's top-level directories a path may start with.
roots='dist|scripts|examples|tests|docs|bench|common|content|hooks|fuzz|cmake|build'
checked=0
ran=0
for doc in README.md docs/guide.md; do
  while IFS= read -r line; do
    # Each word that is a path under the checkout: placeholders and globs are not paths.
    for word in $line; do
      word=${word#[\'\"\(\`]}
      word=${word%[\'\"\)\`,;:.]}
      [[ "$word" =~ ^(\./)?($roots)/ ]] || continue
      [[ "$word" == *[\<\>\*\$\[]* ]] && continue
      checked=$((checked + 1))
      [ -e "$checkout/$word" ] || fail "$doc: '$word' does not exist after the install ($line)"
    done
    # Run the harmless: a hook binary of dist/ reading only the checkout's files.
    [[ "$line" =~ (^|\|\ *)dist/hooks/bin/[a-z-]+\ --[a-z] ]] || continue
    [[ "$line" =~ \<[A-Za-z-]+\>|~|/tmp/ ]] && continue
    command=${line%%  #*}
    ran=$((ran + 1))
    status=0
    out=$(cd "$checkout" && env -u VIBER_HOOKS_LOG -u CLAUDE_PLUGIN_ROOT bash -c "$command" 2>&1 < /dev/null) || status=$?
    [ "$status" -eq 0 ] || fail "$doc: '$command' exited $status: $out"
  done < <(code_lines "$source_dir/$doc")
done

[ "$checked" -gt 10 ] || fail "only $checked paths found in the docs' code: the extraction is broken"
[ "$ran" -gt 3 ] || fail "only $ran commands run: the extraction is broken"
if [ "$failures" -ne 0 ]; then
  echo "commands_test: $failures failures ($checked paths checked, $ran commands run)"
  exit 1
fi
echo "commands_test: $checked paths named by README.md and docs/guide.md exist, $ran commands ran"
