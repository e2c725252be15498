#!/usr/bin/env bash
# install.sh: puts this suite's hooks in place of an installed viber plugin's hooks, and back.
#
# usage: install.sh [--uninstall] [PLUGIN_DIR]
#
# Contract:
#   argv   PLUGIN_DIR: the viber plugin's root, the directory holding .claude-plugin/plugin.json
#          whose "name" is "viber" (under ~/.claude/plugins/). --uninstall: put the original back.
#          Without PLUGIN_DIR the viber plugin is looked for where Claude Code installs plugins:
#          ${CLAUDE_CONFIG_DIR:-$HOME/.claude}/plugins/cache/*/viber/* (the copies Claude Code
#          runs), else plugins/marketplaces/*/ (up to three levels down). One found: it is named
#          and used. Several: they are listed and nothing is done (exit 2): give one. None: how
#          to get viber (/plugin in Claude Code) or to try the hooks with claude --plugin-dir
#          (exit 2). For --uninstall only the ones holding a backup count.
#   env    CLAUDE_CONFIG_DIR, HOME: where Claude Code keeps its plugins.
#   reads  the hooks to install from the tree this script sits in: <tree>/hooks/ when it holds
#          bin/ (an unpacked release archive, an installed tree such as dist/), else
#          <tree>/dist/hooks/ (a checkout after `bash scripts/setup-and-demo.sh`).
#   writes install: PLUGIN_DIR/hooks/ becomes exactly this suite's hooks/ (hooks.json, bin/,
#          content/) plus the plugin's own TypeScript module that hooks.json names
#          (hooks/register.tsx, with its logic in hooks/write/), copied from the plugin's hooks/;
#          the first install moves the plugin's own hooks/ to
#          PLUGIN_DIR/.viber-hooks-backup/hooks (or records that there was none), and a later
#          install keeps that first backup. --uninstall: PLUGIN_DIR/hooks/ is removed and the
#          backup moved back (a rename: every byte, mode and time as it was), then the backup
#          directory is removed. Nothing else under PLUGIN_DIR is touched: the plugin's
#          scripts/config.sh and skills/ stay and the hooks read them from there.
#   exit   0 done; 1 refused (not a viber plugin, nothing to install, nothing to restore), with
#          the reason on stderr; 2 usage, or no single viber plugin found to act on.
set -euo pipefail

me="install.sh"
usage() {
  echo "usage: $me [--uninstall] [PLUGIN_DIR]" >&2
  echo "  PLUGIN_DIR: the installed viber plugin's root (it holds .claude-plugin/plugin.json);" >&2
  echo "  without it, the one viber plugin under ~/.claude/plugins/ is used" >&2
  exit 2
}

mode=install
plugin=""
for arg in "$@"; do
  case "$arg" in
    --uninstall) mode=uninstall ;;
    -h | --help) usage ;;
    -*) echo "$me: unknown option $arg" >&2; usage ;;
    *)
      [ -z "$plugin" ] || usage
      plugin="$arg" ;;
  esac
done

refuse() {
  echo "$me: $*" >&2
  exit 1
}

is_viber_manifest() {
  [ -f "$1" ] && grep -Eq '"name"[[:space:]]*:[[:space:]]*"viber"' "$1"
}

# The viber plugins Claude Code holds, one root a line: the cache copies it runs, else the
# marketplace clones (a marketplace may keep its plugin at its root or a few levels down).
find_plugins() {
  local plugins="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/plugins" manifest found=""
  for manifest in "$plugins"/cache/*/viber/*/.claude-plugin/plugin.json; do
    is_viber_manifest "$manifest" || continue
    found="$found$(cd "$(dirname "$manifest")/.." && pwd -P)"$'\n'
  done
  if [ -z "$found" ]; then
    for manifest in "$plugins"/marketplaces/*/.claude-plugin/plugin.json \
      "$plugins"/marketplaces/*/*/.claude-plugin/plugin.json \
      "$plugins"/marketplaces/*/*/*/.claude-plugin/plugin.json; do
      is_viber_manifest "$manifest" || continue
      found="$found$(cd "$(dirname "$manifest")/.." && pwd -P)"$'\n'
    done
  fi
  printf '%s' "$found" | LC_ALL=C sort -u
}

if [ -z "$plugin" ]; then
  plugins_dir="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/plugins"
  found="$(find_plugins)"
  if [ -z "$found" ]; then
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
    try="dist"
    [ -d "$here/hooks/bin" ] && try="$here"
    echo "$me: no viber plugin found under $plugins_dir (cache/*/viber/*, marketplaces/)" >&2
    echo "$me: get viber in Claude Code with /plugin (its marketplace), then run this again;" >&2
    echo "$me: or try the hooks without installing: claude --plugin-dir $try" >&2
    exit 2
  fi
  if [ "$mode" = uninstall ]; then
    installed=""
    while IFS= read -r candidate; do
      [ -d "$candidate/.viber-hooks-backup" ] && installed="$installed$candidate"$'\n'
    done <<< "$found"
    [ -n "$installed" ] ||
      refuse "nothing to restore: the suite is not installed in any viber plugin found (${found//$'\n'/ })"
    found="$(printf '%s' "$installed")"
  fi
  if [ "$(printf '%s\n' "$found" | wc -l)" -gt 1 ]; then
    echo "$me: several viber plugins found; give one as the argument:" >&2
    flag=""
    [ "$mode" = uninstall ] && flag="--uninstall "
    while IFS= read -r candidate; do
      echo "  bash $0 $flag$candidate" >&2
    done <<< "$found"
    exit 2
  fi
  plugin="$found"
  echo "$me: the viber plugin found: $plugin"
fi

[ -d "$plugin" ] || refuse "$plugin is not a directory"
plugin="$(cd "$plugin" && pwd -P)"
manifest="$plugin/.claude-plugin/plugin.json"
[ -f "$manifest" ] ||
  refuse "$plugin is not a Claude Code plugin (no .claude-plugin/plugin.json): give the viber plugin's root, the directory that holds .claude-plugin/plugin.json"
grep -Eq '"name"[[:space:]]*:[[:space:]]*"viber"' "$manifest" ||
  refuse "$plugin is not the viber plugin ($manifest does not name \"viber\")"

backup="$plugin/.viber-hooks-backup"
# Marks a backup of a plugin that had no hooks/ at all.
none="$backup/no-hooks"

if [ "$mode" = uninstall ]; then
  [ -d "$backup" ] || refuse "nothing to restore: $plugin holds no backup (.viber-hooks-backup/); the suite is not installed there"
  if [ -e "$backup/hooks" ] || [ -L "$backup/hooks" ]; then
    rm -rf "$plugin/hooks"
    mv "$backup/hooks" "$plugin/hooks"
  elif [ -f "$none" ]; then
    rm -rf "$plugin/hooks"
  else
    refuse "the backup $backup is incomplete (neither hooks/ nor no-hooks): left as it is"
  fi
  rm -rf "$backup"
  echo "$me: restored the viber plugin's own hooks in $plugin"
  echo "$me: restart Claude Code to load them"
  exit 0
fi

# The hooks to install: from the tree this script sits in.
tree="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
source=""
for candidate in "$tree/hooks" "$tree/dist/hooks"; do
  if [ -f "$candidate/hooks.json" ] && [ -d "$candidate/bin" ]; then
    source="$candidate"
    break
  fi
done
[ -n "$source" ] ||
  refuse "no built hooks next to this script ($tree/hooks/bin or $tree/dist/hooks/bin): run it from an unpacked release archive, or run bash scripts/setup-and-demo.sh first"
for hook in plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start; do
  [ -e "$source/bin/$hook" ] || [ -e "$source/bin/$hook.exe" ] ||
    refuse "$source/bin/$hook is missing: the tree is not a complete build"
done
[ "$(cd "$source/.." && pwd -P)" != "$plugin" ] ||
  refuse "$plugin is the tree the hooks come from: give the installed viber plugin's directory"

# The first install keeps the plugin's own hooks; a later one keeps that first backup.
if [ ! -d "$backup" ]; then
  mkdir "$backup.partial"
  if [ -e "$plugin/hooks" ] || [ -L "$plugin/hooks" ]; then
    mv "$plugin/hooks" "$backup.partial/hooks"
  else
    : > "$backup.partial/no-hooks"
  fi
  mv "$backup.partial" "$backup"
  echo "$me: kept the viber plugin's own hooks in $backup"
else
  echo "$me: a backup is already there ($backup): kept as it is"
fi

# Copied beside, then swapped in: an interrupted copy never leaves half a hooks/ in place.
staging="$plugin/.viber-hooks-staging"
rm -rf "$staging"
cp -pR "$source" "$staging"
# hooks.json names the plugin's own module, ./register.tsx beside it (the Write rescue, with its
# logic in write/): it is the plugin's, not this suite's, so it comes along from the plugin's hooks.
for own in register.tsx write; do
  if [ -e "$backup/hooks/$own" ] || [ -L "$backup/hooks/$own" ]; then
    cp -pR "$backup/hooks/$own" "$staging/$own"
  fi
done
rm -rf "$plugin/hooks"
mv "$staging" "$plugin/hooks"
version="$("$plugin/hooks/bin/session-start" --version 2>/dev/null | awk '{print $NF}')" || version=""
echo "$me: installed viber-hooks${version:+ $version} into $plugin/hooks (from $source)"
echo "$me: restart Claude Code to load them; $me --uninstall $plugin puts the original back"
