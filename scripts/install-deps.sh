#!/usr/bin/env bash
# install-deps.sh: installs what viber-hooks needs to build and test on Debian 12 (idempotent).
# Contract: run as root (or with sudo available); argv none; touches only apt state and, when npm
# is present, its global packages (the optional Claude Code CLI).
# Boost comes from the versioned 1.81 packages: the unversioned libboost-*-dev names are 1.74,
# which has no Boost.JSON and conflicts with 1.81.
set -eu

packages=(
  g++ cmake ninja-build make strace
  libboost-json1.81-dev
  libboost-program-options1.81-dev
  libboost-filesystem1.81-dev
  libboost-test1.81-dev
)

# Optional: the Claude Code CLI, for the test that runs `claude plugin validate` on the installed
# tree (it is skipped without the CLI). Never fails this script: npm may be absent or offline.
install_claude_cli() {
  if command -v claude >/dev/null 2>&1; then
    echo "install-deps: claude CLI present"
  elif ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm not found; the plugin validation test will be skipped"
  elif timeout 300 "${sudo_cmd[@]}" npm install -g @anthropic-ai/claude-code >/dev/null 2>&1; then
    echo "install-deps: installed the claude CLI"
  else
    echo "install-deps: could not install the claude CLI (offline?); the plugin validation test will be skipped"
  fi
  return 0
}

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  install_claude_cli
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
install_claude_cli
