#!/usr/bin/env bash
# Fuzzes the service socket's line protocol (Sources/Service/SocketLine.swift) with libFuzzer.
# Usage: bash Fuzz/SocketLine.sh [SECONDS]   (default 60: the CI form; 1800 or more for a long run)
# The seed corpus is Fuzz/SocketLineCorpus (read, never written); new inputs go to a scratch corpus.
# A finding leaves crash-* in the working directory: add it to Fuzz/SocketLineCorpus as a regression input.
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
scratch="${SOCKETLINE_SCRATCH:-${TMPDIR:-/tmp}/forcestage-socketline-fuzz}"
mkdir -p "$scratch/corpus"
swift build -c release --sanitize=fuzzer --package-path "$here/SocketLineFuzz" --scratch-path "$scratch/build"
exec "$scratch/build/release/SocketLineFuzz" "$scratch/corpus" "$here/SocketLineCorpus" \
    -max_total_time="$seconds" -max_len=4096 -print_final_stats=1
