#!/usr/bin/env bash
# Installs the server binaries the tests start on loopback (PostgreSQL, Redis, Caddy), if missing.
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail
missing=()
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v caddy >/dev/null || missing+=(caddy)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing test tools: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
