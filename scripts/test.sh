#!/usr/bin/env bash
# Runs every test of the workspace, then (when no arguments narrow the run) a short smoke of
# every fuzz target. Tests that need PostgreSQL, Redis or Caddy start their own throwaway
# servers on loopback; this script only makes sure the binaries are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-test-tools.sh
cargo test --workspace --no-fail-fast "$@"
if [[ $# -eq 0 ]]; then
    scripts/fuzz.sh --smoke
fi
