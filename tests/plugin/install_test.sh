#!/usr/bin/env bash
# install_test.sh: scripts/install.sh as a user runs it, from an installed tree (what a release
# archive unpacks to) into a scratch viber plugin: installed twice, then removed, the plugin
# compared byte for byte and mode for mode with what it was; a directory that is not a viber
# plugin is refused and left alone.
# usage: install_test.sh <cmake> <build dir>
set -euo pipefail
cmake_command=$1
build_dir=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/viber-install-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Every entry under a directory: path, type, mode, and a file's checksum or a link's target.
listing() {
  (cd "$1" && find . -mindepth 1 -printf '%P %y %m %l\n' | LC_ALL=C sort | while read -r path type mode target; do
    sum=""
    [ "$type" = f ] && sum="$(sha256sum < "$path" | cut -d' ' -f1)"
    printf '%s %s %s %s %s\n' "$path" "$type" "$mode" "$target" "$sum"
  done)
}

tree="$scratch/tree"
"$cmake_command" --install "$build_dir" --prefix "$tree" >/dev/null
install="$tree/scripts/install.sh"
[ -x "$install" ] || fail "the installed tree holds no executable scripts/install.sh"

# A viber plugin as the marketplace installs it: bash hooks, the plugin's own files.
plugin="$scratch/plugins/viber/2.3.0"
mkdir -p "$plugin/.claude-plugin" "$plugin/hooks/lib" "$plugin/scripts" "$plugin/skills/setup"
printf '{\n  "name": "viber",\n  "version": "2.3.0"\n}\n' > "$plugin/.claude-plugin/plugin.json"
printf '{"hooks":{"PreToolUse":[]}}\n' > "$plugin/hooks/hooks.json"
printf '#!/usr/bin/env bash\necho gate\n' > "$plugin/hooks/plan-gate.sh"
chmod 755 "$plugin/hooks/plan-gate.sh"
printf 'shared() { :; }\n' > "$plugin/hooks/lib/common.sh"
chmod 640 "$plugin/hooks/lib/common.sh"
ln -s plan-gate.sh "$plugin/hooks/gate-link.sh"
printf '#!/usr/bin/env bash\n' > "$plugin/scripts/config.sh"
# The plugin's own module, named by hooks.json, and its logic (seed 000): they stay with hooks/.
printf 'export function register(): void {}\n' > "$plugin/hooks/register.tsx"
mkdir -p "$plugin/hooks/write"
printf 'export const name = 1;\n' > "$plugin/hooks/write/report-name.ts"
before="$(listing "$plugin")"

# 1. Refused: a directory with no plugin manifest, and a plugin that is not viber.
empty="$scratch/not-a-plugin"
mkdir -p "$empty"
status=0
out="$(bash "$install" "$empty" 2>&1)" || status=$?
[ "$status" -eq 1 ] || fail "a directory without .claude-plugin/plugin.json: exit $status, not 1"
grep -q "is not a Claude Code plugin" <<< "$out" || fail "no clear refusal for a non-plugin: $out"
[ -z "$(ls -A "$empty")" ] || fail "the refused directory was written to"
other="$scratch/other-plugin"
mkdir -p "$other/.claude-plugin" "$other/hooks"
printf '{"name": "viberish"}\n' > "$other/.claude-plugin/plugin.json"
other_before="$(listing "$other")"
status=0
out="$(bash "$install" "$other" 2>&1)" || status=$?
[ "$status" -eq 1 ] || fail "a plugin not named viber: exit $status, not 1"
grep -q "is not the viber plugin" <<< "$out" || fail "no clear refusal for another plugin: $out"
[ "$(listing "$other")" = "$other_before" ] || fail "the other plugin was changed"

# 2. Installed: hooks/ is exactly the suite's, the original kept aside, the rest untouched.
bash "$install" "$plugin" > /dev/null || fail "install exited $?"
own_module() { # the suite's hooks/ listing plus the plugin's module and its logic
  { listing "$tree/hooks"; listing "$plugin/.viber-hooks-backup/hooks" | grep -E '^(register\.tsx|write(/| ))'; } | LC_ALL=C sort
}
[ "$(listing "$plugin/hooks")" = "$(own_module)" ] ||
  fail "after install, hooks/ is not exactly the suite's hooks/ and the plugin's register.tsx and write/"
cmp -s "$plugin/hooks/register.tsx" "$plugin/.viber-hooks-backup/hooks/register.tsx" ||
  fail "the plugin's register.tsx did not come along"
[ ! -e "$plugin/hooks/plan-gate.sh" ] || fail "the bash hooks stayed in hooks/"
first_backup="$(listing "$plugin/.viber-hooks-backup")"
grep -q '^hooks/plan-gate.sh f 755' <<< "$first_backup" || fail "the backup lacks the original hooks"

# 3. Installed again: the first backup is kept as it was, nothing nests.
bash "$install" "$plugin" > /dev/null || fail "second install exited $?"
[ "$(listing "$plugin/.viber-hooks-backup")" = "$first_backup" ] ||
  fail "the second install changed the first backup"
[ ! -e "$plugin/hooks/hooks" ] || fail "a second install nested hooks/hooks"
[ "$(listing "$plugin/hooks")" = "$(own_module)" ] ||
  fail "after a second install, hooks/ is not exactly the suite's hooks/ and the plugin's module"

# 4. Removed: the plugin is byte for byte, mode for mode what it was.
bash "$install" --uninstall "$plugin" > /dev/null || fail "uninstall exited $?"
after="$(listing "$plugin")"
if [ "$after" != "$before" ]; then
  fail "after uninstall the plugin differs from the original"
  diff <(echo "$before") <(echo "$after") || true
fi
status=0
bash "$install" --uninstall "$plugin" > /dev/null 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "a second uninstall: exit $status, not 1"

# 5. A plugin with no hooks/ at all gets none back.
bare="$scratch/bare-viber"
mkdir -p "$bare/.claude-plugin"
printf '{"name":"viber"}\n' > "$bare/.claude-plugin/plugin.json"
bare_before="$(listing "$bare")"
bash "$install" "$bare" > /dev/null || fail "install into a plugin without hooks/ exited $?"
[ -x "$bare/hooks/bin/plan-gate" ] || [ -e "$bare/hooks/bin/plan-gate.exe" ] ||
  fail "no hooks installed into the plugin without hooks/"
bash "$install" --uninstall "$bare" > /dev/null || fail "uninstall from the bare plugin exited $?"
[ "$(listing "$bare")" = "$bare_before" ] || fail "the bare plugin is not as it was"

# 6. No directory given: the viber plugin is found under a scratch HOME's ~/.claude/plugins/.
home="$scratch/home"
plugins="$home/.claude/plugins"
mkdir -p "$home"
run_found() { env -u CLAUDE_CONFIG_DIR HOME="$home" bash "$install" "$@"; }
viber_at() {
  mkdir -p "$1/.claude-plugin" "$1/hooks"
  printf '{"name": "viber", "version": "%s"}\n' "$(basename "$1")" > "$1/.claude-plugin/plugin.json"
  printf '{"hooks":{}}\n' > "$1/hooks/hooks.json"
}
#   none: how to get viber, and claude --plugin-dir; exit 2, nothing written.
status=0
out="$(run_found 2>&1)" || status=$?
[ "$status" -eq 2 ] || fail "no viber plugin under HOME: exit $status, not 2"
grep -q "no viber plugin found under $plugins" <<< "$out" || fail "none found not said: $out"
grep -q "/plugin" <<< "$out" || fail "none found does not say how to get viber: $out"
grep -q "claude --plugin-dir" <<< "$out" || fail "none found does not name claude --plugin-dir: $out"
[ ! -e "$home/.claude" ] || fail "a search with nothing found wrote under HOME"
#   a marketplace clone alone counts, and another plugin does not.
mkdir -p "$plugins/cache/m/other/1.0.0/.claude-plugin"
printf '{"name":"other"}\n' > "$plugins/cache/m/other/1.0.0/.claude-plugin/plugin.json"
market="$plugins/marketplaces/viber-market/plugins/viber"
viber_at "$market"
status=0
out="$(run_found 2>&1)" || status=$?
[ "$status" -eq 0 ] || fail "one viber plugin in a marketplace: exit $status, not 0: $out"
grep -q "the viber plugin found: $market" <<< "$out" || fail "the one found is not named: $out"
[ "$(listing "$market/hooks")" = "$(listing "$tree/hooks")" ] ||
  fail "the one found did not get the suite's hooks"
#   one in the cache (the copy Claude Code runs) is preferred over the marketplace clone.
cached="$plugins/cache/viber-market/viber/2.3.0"
viber_at "$cached"
cached_before="$(listing "$cached")"
status=0
out="$(run_found 2>&1)" || status=$?
[ "$status" -eq 0 ] || fail "one viber plugin in the cache: exit $status, not 0: $out"
grep -q "the viber plugin found: $cached" <<< "$out" || fail "the cached one is not named: $out"
[ "$(listing "$cached/hooks")" = "$(listing "$tree/hooks")" ] ||
  fail "the cached one did not get the suite's hooks"
#   --uninstall with no directory: the one holding a backup, in the cache.
run_found --uninstall > /dev/null 2>&1 || fail "uninstall with no directory exited $?"
[ "$(listing "$cached")" = "$cached_before" ] || fail "uninstall with no directory did not restore"
#   two: listed, nothing done, exit 2.
second="$plugins/cache/viber-market/viber/2.4.0"
viber_at "$second"
second_before="$(listing "$second")"
status=0
out="$(run_found 2>&1)" || status=$?
[ "$status" -eq 2 ] || fail "two viber plugins: exit $status, not 2"
grep -q "several viber plugins found" <<< "$out" || fail "two found not said: $out"
for candidate in "$cached" "$second"; do
  grep -q "$candidate\$" <<< "$out" || fail "$candidate is not listed: $out"
done
[ "$(listing "$cached")" = "$cached_before" ] || fail "with two found, $cached was changed"
[ "$(listing "$second")" = "$second_before" ] || fail "with two found, $second was changed"

if [ "$failures" -ne 0 ]; then
  echo "install_test: $failures failures"
  exit 1
fi
echo "install_test: install twice, uninstall, byte-for-byte restore, refusals, and finding zero, one and two viber plugins as expected"
