#!/usr/bin/env bash
# Installs signet and its signet-mcp link on PATH (default prefix ~/.local).
#   scripts/install.sh [--prefix DIR]
# Uses $SIGNET_BINARY, else dist/signet (building it first with npm when it is missing).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${SIGNET_BINARY:-$here/dist/signet}"
if [ ! -x "$binary" ]; then
  echo "building $binary ..." >&2
  (cd "$here" && npm install --no-audit --no-fund && npm run build)
fi
exec "$binary" self-install "$@"
