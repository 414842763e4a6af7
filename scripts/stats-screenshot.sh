#!/usr/bin/env bash
# Renders the relay's /stats page in headless Chromium and saves it as docs/stats.png (or the path given).
# The relay runs in-process with two days of synthetic history and a few live rooms (server/examples/stats_demo.rs).
# Needs Chromium (Debian: apt-get install -y chromium). Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/stats.png}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "stats-screenshot: install chromium first" >&2; exit 1; }

cargo build -q -p fairdeck-relay --example stats_demo
tmp=$(mktemp -d)
demo_pid=""
cleanup() {
    exec 3>&- 2>/dev/null || true
    [ -n "$demo_pid" ] && wait "$demo_pid" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# The demo serves until its standard input closes; fd 3 keeps it open.
mkfifo "$tmp/stdin"
target/debug/examples/stats_demo <"$tmp/stdin" >"$tmp/stdout" &
demo_pid=$!
exec 3>"$tmp/stdin"
for _ in $(seq 100); do
    grep -q '^STATS ' "$tmp/stdout" 2>/dev/null && break
    sleep 0.1
done
url=$(sed -n 's/^STATS //p' "$tmp/stdout")
[ -n "$url" ] || { echo "stats-screenshot: the demo relay did not start" >&2; exit 1; }

"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$tmp/profile" \
    --window-size=860,1180 --screenshot="$out" "$url" 2>"$tmp/chromium.log" \
    || { cat "$tmp/chromium.log" >&2; exit 1; }
echo "saved $out"
