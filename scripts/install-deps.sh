#!/usr/bin/env bash
# install-deps.sh: installs what viber-hooks needs to build and test on Debian 12 (idempotent).
# Contract: run as root (or with sudo available); argv [--arm64] [--clang] [--windows]: with no
# flag, what the release, debug and asan presets need (what setup-and-demo.sh uses); --arm64 adds
# the linux-arm64 preset's cross toolchain, qemu-user and the arm64 Boost packages; --clang adds
# clang++-14 for the clang preset and scripts/fuzz.sh; --windows adds the windows-x64 preset's
# mingw-w64 and wine; touches only apt state (and dpkg's architecture list for --arm64); exit 1
# on a usage error. Also, when npm is present and online, the Claude Code CLI pinned to 2.1.332
# (npm's global packages) for the plugin validation and end-to-end tests, and beside it, each in
# its own prefix under /opt/viber-hooks/claude-code/ (env VIBER_CLAUDE_VERSIONS_DIR), 2.1.197 (the
# oldest supported) and the newest npm offers when it is newer than the pin.
# Boost comes from the versioned 1.81 packages: the unversioned libboost-*-dev names are 1.74,
# which has no Boost.JSON and conflicts with 1.81.
set -eu

boost=(json program-options filesystem test)
# shfmt (3.6): the shell parser the guards' command model is compared with (tests/oracle).
# python3 runs that comparison and the end-to-end test's scripted model; git makes the end-to-end
# test's project a repository (Debian's minimal install has neither).
packages=(g++ cmake ninja-build make strace ccache clang-format shfmt python3 git)
for b in "${boost[@]}"; do packages+=("libboost-$b""1.81-dev"); done

arm64=no
for arg in "$@"; do
  case "$arg" in
    # Debian's multiarch: the cross compiler, the arm64 Boost (static libraries and CMake files in
    # /usr/lib/aarch64-linux-gnu), and the arm64 libc and libstdc++ the dynamically linked tests
    # load under qemu-user (through /lib/ld-linux-aarch64.so.1).
    --arm64)
      arm64=yes
      packages+=(crossbuild-essential-arm64 qemu-user-static libc6:arm64 libstdc++6:arm64)
      for b in "${boost[@]}"; do packages+=("libboost-$b""1.81-dev:arm64"); done ;;
    # clang++-14, the unversioned clang++ scripts/fuzz.sh calls, and the libFuzzer and sanitizer
    # runtimes it links.
    --clang) packages+=(clang-14 clang libclang-rt-14-dev) ;;
    # mingw-w64 with its -posix g++, wine to run the tests, dpkg-dev for apt-get source and bison
    # for b2's grammar in scripts/build-boost-mingw.sh.
    --windows) packages+=(g++-mingw-w64-x86-64 wine64 dpkg-dev bison) ;;
    *) echo "usage: bash scripts/install-deps.sh [--arm64] [--clang] [--windows]" >&2; exit 1 ;;
  esac
done

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

# A new architecture's packages are unknown to apt until the update below, which a missing
# package always triggers.
if [ "$arm64" = yes ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo_cmd[@]}" dpkg --add-architecture arm64
fi

# The Claude Code CLI for the plugin validation and the end-to-end test (tests/e2e/, SPEC §12):
# the pinned version globally (first on PATH), and beside it, each in its own npm prefix under
# $claude_versions_dir, the oldest version the suite supports and the newest npm offers when that
# is newer than the pin (the e2e test runs every version it finds there). Installed when absent.
# Never fails this script: npm may be absent or offline (those tests are then skipped, and the
# CI's e2e stage says so when npm cannot reach its registry, and fails when it can but the newest
# version is missing).
claude_pin=2.1.332
claude_oldest=2.1.197
claude_versions_dir="${VIBER_CLAUDE_VERSIONS_DIR:-/opt/viber-hooks/claude-code}"
claude_version_of() { # executable -> its version, or nothing
  timeout 60 "$1" --version 2>/dev/null | awk '{print $1; exit}' || true
}
install_claude_beside() { # version: into its own prefix, unless there already
  local version="$1" dir="$claude_versions_dir/$1"
  if [ -x "$dir/node_modules/.bin/claude" ] && [ "$(claude_version_of "$dir/node_modules/.bin/claude")" = "$version" ]; then
    echo "install-deps: claude CLI $version present in $dir"
  elif "${sudo_cmd[@]}" mkdir -p "$dir" &&
    timeout 300 "${sudo_cmd[@]}" npm install --prefix "$dir" --no-audit --no-fund "@anthropic-ai/claude-code@$version" >/dev/null 2>&1 &&
    [ "$(claude_version_of "$dir/node_modules/.bin/claude")" = "$version" ]; then
    echo "install-deps: installed the claude CLI $version in $dir"
  else
    echo "install-deps: could not install the claude CLI $version in $dir (offline?)"
  fi
}
install_claude_cli() {
  local have=""
  if command -v claude >/dev/null 2>&1; then have=$(claude_version_of claude); fi
  if [ "$have" = "$claude_pin" ]; then
    echo "install-deps: claude CLI $claude_pin present"
  elif ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm not found; the claude CLI tests (plugin validation, e2e) will be skipped"
    return 0
  elif timeout 300 "${sudo_cmd[@]}" npm install -g --no-audit --no-fund "@anthropic-ai/claude-code@$claude_pin" >/dev/null 2>&1; then
    echo "install-deps: installed the claude CLI $claude_pin${have:+ (replacing $have)}"
  else
    echo "install-deps: could not install the claude CLI $claude_pin (offline?); the claude CLI tests will be skipped"
    return 0
  fi
  install_claude_beside "$claude_oldest"
  local newest
  newest=$(timeout 60 npm view @anthropic-ai/claude-code version 2>/dev/null) || newest=""
  if [ -n "$newest" ] && [ "$newest" != "$claude_pin" ] &&
    [ "$(printf '%s\n%s\n' "$claude_pin" "$newest" | sort -V | tail -n 1)" = "$newest" ]; then
    install_claude_beside "$newest"
  fi
  return 0
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present${*:+ ($*)}"
  install_claude_cli
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
install_claude_cli
