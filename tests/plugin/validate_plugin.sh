#!/bin/sh
# validate_plugin.sh: installs the build tree into a scratch prefix and runs
# `claude plugin validate` on it, as it stands inside the viber plugin: hooks.json names the viber
# plugin's own module, hooks/register.tsx, which this suite does not ship, and Claude Code 2.1.3xx
# checks that the module is there (2.1.197 did not), so a one-line stand-in takes its place. Exits
# 77 (ctest's SKIP_RETURN_CODE) when the Claude Code CLI is not on PATH: scripts/install-deps.sh
# installs it where npm and the network allow.
# usage: validate_plugin.sh <cmake> <build dir>
set -eu
cmake_command=$1
build_dir=$2
if ! command -v claude >/dev/null 2>&1; then
    echo "SKIPPED: the claude CLI is not on PATH (npm install -g @anthropic-ai/claude-code)"
    exit 77
fi
prefix=$(mktemp -d)
home=$(mktemp -d)
trap 'rm -rf "$prefix" "$home"' EXIT
"$cmake_command" --install "$build_dir" --prefix "$prefix" >/dev/null
printf 'export function register(): void {}\n' > "$prefix/hooks/register.tsx"
claude --version
# Validation needs no login; a scratch HOME keeps the user's own settings out of it.
HOME=$home claude plugin validate "$prefix"
