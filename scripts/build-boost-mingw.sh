#!/usr/bin/env bash
# build-boost-mingw.sh: builds Boost 1.81's compiled libraries for Windows x86-64 (mingw-w64) from
# Debian's boost1.81 source package, static, into a cache (idempotent).
#
# Contract: argv none; env VIBER_BOOST_MINGW_CACHE (default <repo>/build/boost-mingw) is the cache
# directory, reusable across CI runs; VIBER_JOBS the build parallelism (default: the core count).
# Needs root (or sudo) only the first time, to add a deb-src line (a file under
# /etc/apt/sources.list.d/ naming the same archive as the machine's apt sources) and run
# apt-get update. Writes <cache>/src (the unpacked source package), <cache>/prefix (headers, the
# libraries json, program_options, filesystem and unit_test_framework, and Boost's CMake package
# files: the windows-x64 preset points CMAKE_PREFIX_PATH there). Prints the prefix last.
# Exit 0 when the prefix is complete.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${VIBER_BOOST_MINGW_CACHE:-$root/build/boost-mingw}"
jobs="${VIBER_JOBS:-$(nproc)}"
prefix="$cache/prefix"
stamp="$prefix/.viber-boost-mingw-1.81"
compiler=x86_64-w64-mingw32-g++-posix # the win32-thread variant has no std::thread

if [ -f "$stamp" ]; then
  echo "build-boost-mingw: cached in $prefix"
  echo "$prefix"
  exit 0
fi
command -v "$compiler" >/dev/null || {
  echo "build-boost-mingw: $compiler missing: run bash scripts/install-deps.sh --windows" >&2
  exit 1
}
mkdir -p "$cache/src"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

# The source package comes from the archive the machine already uses: every deb822 stanza or
# one-line entry of the Debian archive, with deb-src in place of deb.
ensure_deb_src() {
  if apt-get source --print-uris boost1.81 >/dev/null 2>&1; then return 0; fi
  local tmp
  tmp="$(mktemp)"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed -e 's/^Types:.*$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$tmp"
    "${sudo_cmd[@]}" install -m 0644 "$tmp" /etc/apt/sources.list.d/viber-deb-src.sources
  else
    grep -hE '^deb[[:space:]]' /etc/apt/sources.list 2>/dev/null | sed -e 's/^deb[[:space:]]/deb-src /' >"$tmp"
    [ -s "$tmp" ] || { echo "build-boost-mingw: no apt source to mirror" >&2; rm -f "$tmp"; exit 1; }
    "${sudo_cmd[@]}" install -m 0644 "$tmp" /etc/apt/sources.list.d/viber-deb-src.list
  fi
  rm -f "$tmp"
  # apt-get update takes the lock other installers hold; wait for it.
  if command -v flock >/dev/null; then
    flock /tmp/apt.lock "${sudo_cmd[@]}" apt-get update -q
  else
    "${sudo_cmd[@]}" apt-get update -q
  fi
}

src="$(find "$cache/src" -maxdepth 1 -type d -name 'boost1.81-*' | head -n 1)"
if [ -z "$src" ] || [ ! -f "$src/bootstrap.sh" ]; then
  ensure_deb_src
  (cd "$cache/src" && apt-get source -q boost1.81)
  src="$(find "$cache/src" -maxdepth 1 -type d -name 'boost1.81-*' | head -n 1)"
fi
[ -n "$src" ] && [ -f "$src/bootstrap.sh" ] || { echo "build-boost-mingw: no source tree" >&2; exit 1; }

if [ ! -x "$src/b2" ]; then
  # Debian's source package drops the generated b2 grammar; its rules regenerate it with bison.
  if [ ! -f "$src/tools/build/src/engine/jamgram.cpp" ]; then
    command -v bison >/dev/null || {
      echo "build-boost-mingw: bison missing: run bash scripts/install-deps.sh --windows" >&2
      exit 1
    }
    (cd "$src/tools/build" && bison -y -d -o src/engine/jamgram.cpp src/engine/jamgram.y)
  fi
  (cd "$src" && ./bootstrap.sh --with-toolset=gcc >"$cache/bootstrap.log" 2>&1) || {
    cat "$cache/bootstrap.log" >&2
    exit 1
  }
fi

cat >"$cache/user-config.jam" <<EOF
using gcc : mingw : $compiler : <archiver>x86_64-w64-mingw32-ar <ranlib>x86_64-w64-mingw32-ranlib ;
EOF

(cd "$src" && ./b2 -q -j "$jobs" --user-config="$cache/user-config.jam" \
  --build-dir="$cache/b2-build" --prefix="$prefix" --layout=system \
  --with-json --with-program_options --with-filesystem --with-test \
  toolset=gcc-mingw target-os=windows architecture=x86 address-model=64 binary-format=pe \
  abi=ms threadapi=win32 link=static runtime-link=static threading=multi variant=release \
  cxxstd=20 install) >"$cache/b2.log" 2>&1 || {
  tail -n 60 "$cache/b2.log" >&2
  exit 1
}
touch "$stamp"
echo "build-boost-mingw: built into $prefix"
echo "$prefix"
