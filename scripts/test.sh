#!/usr/bin/env bash
# Runs every test of the workspace. Tests that need PostgreSQL, Redis or Caddy start their own
# throwaway servers on loopback; this script only makes sure the binaries are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-test-tools.sh
exec cargo test --workspace "$@"
