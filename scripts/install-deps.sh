#!/usr/bin/env bash
# install-deps.sh: installs what viber-hooks needs to build and test on Debian 12 (idempotent).
# Contract: run as root (or with sudo available); argv [--windows] (also what the windows-x64
# preset needs); touches only apt state.
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

# --- --windows: the windows-x64 preset (mingw-w64 with its -posix g++, wine to run the tests,
# dpkg-dev for apt-get source and bison for b2's grammar in scripts/build-boost-mingw.sh) -------
for arg in "$@"; do
  case "$arg" in
    --windows) packages+=(g++-mingw-w64-x86-64 wine64 dpkg-dev bison) ;;
    *) echo "usage: bash scripts/install-deps.sh [--windows]" >&2; exit 1 ;;
  esac
done
# --- end --windows -------------------------------------------------------------------------------

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
