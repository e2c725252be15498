#!/usr/bin/env bash
# demo.sh: replays the sample session of examples/ through an installed plugin tree and prints
# each hook's decision, checked against the decision stored with the step.
#
# Contract: argv [--keep DIR] [PLUGIN_ROOT] (PLUGIN_ROOT default: dist/ of this checkout, as
# setup-and-demo.sh installs it; --keep DIR: lay the session out in DIR, which must be absent or
# empty, and keep it, so each step's payload can be explained afterwards); env VIBER_HOOK_RUNNER,
# a command the hooks run through (the emulator of a cross build's hooks, e.g.
# qemu-aarch64-static; unset: the hooks run directly); reads examples/session.tsv,
# examples/payloads, examples/transcripts, examples/plans;
# writes only a scratch directory under $TMPDIR (removed on exit), or DIR; runs
# PLUGIN_ROOT/hooks/bin/* with the scratch project as cwd and CLAUDE_PLUGIN_ROOT pointing at a
# scratch tree holding the plugin files the suite reads but does not ship (scripts/config.sh
# turning planning.plain-plan-review on, skills/setup/templates/viber.yml at schema 2), so
# PLUGIN_ROOT itself stays exactly the installed layout; exit 0 when every step answered as
# expected, 1 otherwise, 2 on a usage or setup error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
examples="$root/examples"
keep=""
if [ "${1:-}" = --keep ]; then
  [ -n "${2:-}" ] || { echo "usage: demo.sh [--keep DIR] [PLUGIN_ROOT]" >&2; exit 2; }
  keep="$2"
  shift 2
fi
plugin="${1:-$root/dist}"
bin="$plugin/hooks/bin"
read -r -a runner <<< "${VIBER_HOOK_RUNNER:-}"

for hook in plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start; do
  if [ ! -x "$bin/$hook" ]; then
    echo "demo: $bin/$hook is missing; install the plugin tree first (bash scripts/setup-and-demo.sh)" >&2
    exit 2
  fi
done

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  if [ -n "$(ls -A "$keep")" ]; then
    echo "demo: $keep is not empty; --keep lays the session out in an absent or empty directory" >&2
    exit 2
  fi
  scratch="$(cd "$keep" && pwd)"
  plugin="$(cd "$plugin" && pwd)"
  bin="$plugin/hooks/bin"
else
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/viber-demo.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
fi

# The plugin files the viber plugin owns (docs/contract.md), as stubs. The directory is named like the
# plugin's install directory, so session-start's banner shows the version.
version="$("${runner[@]}" "$bin/session-start" --version | awk '{print $NF}')"
plugin_files="$scratch/plugins/viber/$version"
mkdir -p "$plugin_files/scripts" "$plugin_files/skills/setup/templates"
printf '%s\n' '#!/usr/bin/env bash' '# Stub of the viber plugin'"'"'s config reader: the plain plan review is on.' \
  "echo 'planning.plain-plan-review: true'" > "$plugin_files/scripts/config.sh"
printf '%s\n' 'schema: 2' 'planning:' '  plain-plan-review: false' > "$plugin_files/skills/setup/templates/viber.yml"

# The project the session works in: a git checkout whose .claude/viber.yml is one schema behind.
project="$scratch/project"
mkdir -p "$project/.git" "$project/.claude/plans" "$project/src/report"
printf '%s\n' 'schema: 1' 'planning:' '  plain-plan-review: true' > "$project/.claude/viber.yml"
mkdir -p "$scratch/transcripts" "$scratch/payloads"

# Reviewer verdicts carry a timestamp a minute ahead, so the plan files written during the demo
# are older than the PASS (plan-gate's tamper check).
later="$(date -u -d "@$(( $(date +%s) + 60 ))" +%Y-%m-%dT%H:%M:%S.000Z)"

fill() { # template -> stdout, placeholders replaced
  sed -e "s|@PROJECT@|$project|g" -e "s|@LATER@|$later|g" -e "s|@TRANSCRIPT@|$2|g" "$1"
}

# The decision an answer line stands for.
decision_of() {
  local line="$1"
  case "$line" in
    '') echo silent ;;
    *'"permissionDecision":"deny"'*) echo deny ;;
    *'"permissionDecision":"allow"'*) echo allow ;;
    *'"decision":"block"'*) echo block ;;
    *'"additionalContext":'*) echo context ;;
    *'"systemMessage":'*) echo message ;;
    *) echo other ;;
  esac
}

# The first line of a string member of the answer, for display only (the check above and the
# needles below never depend on it).
first_line_of() {
  local value
  value="$(printf '%s' "$1" | sed -n -E "s/.*\"$2\":\"(([^\"\\\\]|\\\\.)*)\".*/\\1/p")"
  value="${value%%\\n*}"
  value="$(printf '%s' "$value" | sed -e 's/\\"/"/g' -e 's/\\\\/\\/g' -e 's/\\t/ /g')"
  if [ "${#value}" -gt 150 ]; then
    # Cut at the last space before the 147th character, so no word is cut in two.
    value="${value:0:147}"
    value="${value% *}..."
  fi
  # The scratch project is removed on exit: show its place, not its path.
  printf '%s' "${value//"$project"/<project>}"
}

summary_of() { # hook, answer line
  case "$(decision_of "$2")" in
    deny | allow) first_line_of "$2" permissionDecisionReason ;;
    block) first_line_of "$2" reason ;;
    context | message)
      if [ "$1" = session-start ]; then
        printf '%s | context: manifest.md (%s characters)' "$(first_line_of "$2" systemMessage)" "$manifest_characters"
      else
        first_line_of "$2" additionalContext
      fi ;;
  esac
}

# What session-start adds as context: the installed manifest, its trailing newlines cut.
manifest_characters="$(printf '%s' "$(cat "$plugin/hooks/content/manifest.md")" | wc -m | tr -d ' ')"

echo "viber-hooks demo: the sample session of examples/, through $bin"
if [ -n "$keep" ]; then
  echo "  project $project (.claude/viber.yml at schema 1)"
  echo "  CLAUDE_PLUGIN_ROOT $plugin_files (config.sh: planning.plain-plan-review: true; template at schema 2)"
else
  echo "  in a scratch git project whose .claude/viber.yml is at schema 1, with the viber plugin's own files"
  echo "  as stubs (config.sh: planning.plain-plan-review: true; setup template at schema 2); --keep DIR keeps them"
fi
echo "  legend: silent = prints nothing (the call goes on); deny = the tool call is refused; block = the agent's"
echo "  stop is sent back; context = text added for the model. R1 chain, R2 git that moves the shared tree,"
echo "  R3 rm, R4 file write through Bash, R5 inline code (shell-guard's rules for viber:task-coder)"

steps=0
unexpected=0
while IFS=$'\t' read -r step hooks expects payload fragments plan what; do
  case "$step" in '' | '#'*) continue ;; esac
  steps=$((steps + 1))

  transcript="$scratch/transcripts/$step.jsonl"
  : > "$transcript"
  if [ "$fragments" != - ]; then
    IFS='+' read -r -a parts <<< "$fragments"
    for part in "${parts[@]}"; do fill "$examples/transcripts/$part.jsonl" "" >> "$transcript"; done
  fi
  if [ "$plan" != - ]; then
    mkdir -p "$(dirname "$project/${plan#*>}")"
    cp "$examples/plans/${plan%%>*}" "$project/${plan#*>}"
  fi
  input="$scratch/payloads/$step.json"
  fill "$examples/payloads/$payload" "$transcript" > "$input"

  event="$(grep -o '"hook_event_name":"[A-Za-z]*"' "$input" | cut -d'"' -f4)"
  tool="$(grep -o '"tool_name":"[A-Za-z]*"' "$input" | cut -d'"' -f4 || true)"
  printf '\n[%s] %s%s  %s\n' "$step" "$event" "${tool:+ $tool}" "$what"

  IFS=',' read -r -a hook_list <<< "$hooks"
  IFS=',' read -r -a expect_list <<< "$expects"
  for i in "${!hook_list[@]}"; do
    hook="${hook_list[$i]}"
    expect="${expect_list[$i]:-silent}"
    status=0
    answer="$(cd "$project" && CLAUDE_PLUGIN_ROOT="$plugin_files" timeout 10 "${runner[@]}" "$bin/$hook" < "$input")" || status=$?
    decision="$(decision_of "$answer")"
    ok=yes
    [ "$status" -eq 0 ] || ok=no
    [ "$decision" = "${expect%%:*}" ] || ok=no
    if [ "$expect" != "${expect%%:*}" ]; then
      IFS='|' read -r -a needles <<< "${expect#*:}"
      for needle in "${needles[@]}"; do
        grep -qF -- "$needle" <<< "$answer" || ok=no
      done
    fi
    printf '     %-14s %-8s %s\n' "$hook" "$decision" "$(summary_of "$hook" "$answer")"
    if [ "$ok" = no ]; then
      unexpected=$((unexpected + 1))
      printf '     %-14s NOT AS EXPECTED: wanted %s (exit status %s)\n' "" "$expect" "$status"
    fi
  done
done < "$examples/session.tsv"

echo
if [ -n "$keep" ]; then
  echo "demo: the session is laid out in $scratch (payloads/<step>.json, transcripts/, project/; the plan"
  echo "  files are as the session ended). Explain a step, e.g. the first plan-gate call:"
  echo "    (cd $project && CLAUDE_PLUGIN_ROOT=$plugin_files $bin/plan-gate --explain $scratch/payloads/21.json)"
fi
if [ "$unexpected" -eq 0 ]; then
  echo "demo: $steps steps, all as expected"
else
  echo "demo: $steps steps, $unexpected answers not as expected"
  exit 1
fi
