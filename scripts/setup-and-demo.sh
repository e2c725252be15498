#!/usr/bin/env bash
# setup-and-demo.sh: the first command for a new user: installs the dependencies, builds the
# release preset, installs the plugin tree under dist/ and replays the bundled examples through it.
#
# Contract: argv none; run from anywhere inside the checkout, as root or with sudo available (for
# apt-get); writes build/release/ and dist/ (replaced whole); env VIBER_JOBS sets the build's
# parallelism (default: the number of cores); exit 0 when everything built and every demo step
# answered as expected.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${VIBER_JOBS:-$(nproc)}"

echo "== dependencies"
bash scripts/install-deps.sh

echo "== build the six hooks (release preset: optimized, fully static; scripts/test.sh builds the rest)"
cmake --preset release
cmake --build --preset release -j "$jobs" \
  --target plan-gate plan-hints kill-guard shell-guard verdict-nudge session-start

echo "== install the plugin tree under dist/"
rm -rf dist
cmake --install build/release --prefix dist
find dist -type f | sort

echo "== demo"
bash scripts/demo.sh "$root/dist"
