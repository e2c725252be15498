#!/usr/bin/env bash
# demo_replay.sh: installs the build tree into a scratch prefix and replays the README's demo
# (scripts/demo.sh) through it; exit status is the demo's (0 when every step answered as stored).
# usage: demo_replay.sh <cmake> <build dir> <demo.sh>
set -euo pipefail
cmake_command=$1
build_dir=$2
demo=$3
prefix=$(mktemp -d "${TMPDIR:-/tmp}/viber-demo-tree.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
"$cmake_command" --install "$build_dir" --prefix "$prefix" >/dev/null
bash "$demo" "$prefix"
