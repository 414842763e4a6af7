#!/usr/bin/env bash
# Fuzzes the envelope and message decoders, the deck readers, the encrypted channel (two
# handshaken ends over a hostile relay) and the engine on both suites (games the input scripts,
# with a cheater's messages rewritten; every limited format played to its end) with cargo-fuzz
# on the nightly toolchain.
#
#   scripts/fuzz.sh --smoke              every target for 20,000 executions or 25 s, whichever ends first (CI)
#   scripts/fuzz.sh --long TARGET        one target for 10 million executions
#   scripts/fuzz.sh --runs N [TARGET…]   every target (or those named) for N executions
#   scripts/fuzz.sh --time S [TARGET…]   every target (or those named) for S seconds
#
# Targets: envelope message deck channel engine_ristretto255 engine_modp2048 draft_ristretto255
# draft_modp2048 (docs/PERFORMANCE.md, "Fuzzing", says what each checks). Corpora grow in
# fuzz/corpus/TARGET and crashes land in fuzz/artifacts/TARGET; the script fails on the first crash. Builds use no sanitizer:
# the code under test is safe Rust, and AddressSanitizer would cut executions per second by 3–4×.
# Debug assertions and overflow checks stay on, so an arithmetic overflow is a crash.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

usage() {
    sed -n '7,10p' "$0" | sed 's/^# //' >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
smoke=0
case "$1" in
    --smoke) limit=(-runs=20000 -max_total_time=25); smoke=1; shift ;;
    --long) [[ $# -eq 2 ]] || usage; limit=(-runs=10000000); shift ;;
    --runs) [[ $# -ge 2 ]] || usage; limit=(-runs="$2"); shift 2 ;;
    --time) [[ $# -ge 2 ]] || usage; limit=(-max_total_time="$2"); shift 2 ;;
    *) usage ;;
esac
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(envelope message deck channel engine_ristretto255 engine_modp2048 draft_ristretto255 draft_modp2048)

if ! rustup toolchain list | grep '^nightly' >/dev/null; then
    echo "fuzzing needs the nightly toolchain: rustup toolchain install nightly" >&2
    exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

# The sample decks of every format start the deck readers' corpus (the first byte picks the
# reader, in the order of the target's file names).
mkdir -p corpus/deck
for pair in 0:cod 1:dek 2:dec 3:mwDeck 4:dck 5:txt; do
    index=${pair%%:*} ext=${pair#*:}
    { printf "\\x0$index"; cat "../client/tests/decks/burn.$ext"; } >"corpus/deck/sample-$ext"
done

for target in "${targets[@]}"; do
    echo "== fuzz $target: ${limit[*]}"
    mkdir -p "corpus/$target"
    # The channel and the engine spend most of their time in curve arithmetic, where tracing
    # comparisons halves the executions per second and guides nothing; their builds live apart
    # so neither flag set rebuilds the other's.
    # A smoke builds every target once, without tracing: one build of the whole tree instead of two, for runs
    # too short for the traced comparisons to find anything the corpus does not already reach.
    case "$target" in
        channel | engine_* | draft_*) build=(--no-trace-compares --target-dir target/no-cmp) ;;
        *) if [[ $smoke == 1 ]]; then build=(--no-trace-compares --target-dir target/no-cmp); else build=(); fi ;;
    esac
    cargo +nightly fuzz run --release --debug-assertions --sanitizer none "${build[@]}" "$target" -- \
        "${limit[@]}" -print_final_stats=1
done
