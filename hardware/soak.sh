#!/bin/sh
# Soak: one hour of an ADS1115 force panel (860 scans/s, 3.1 million scans, made by
# `forcestage synth`) played SPEED times faster through the kernel emulator into
# `forcestage run --socket`. Samples the service's resident memory every few seconds
# and prints it with the final counters. Needs root (the emulator) and a built forcestage.
#
#   sudo sh hardware/soak.sh [SPEED]        # default 60: the hour in a minute
#
# Environment: BIN (default .build/release/forcestage), SOAK_DIR (default /tmp/forcestage-soak).
set -eu
SPEED=${1:-60}
B=${BIN:-.build/release/forcestage}
DIR=${SOAK_DIR:-/tmp/forcestage-soak}
INTERVAL=${SOAK_INTERVAL:-2}
mkdir -p "$DIR"
REC="$DIR/hour-ads1115.json"
[ -f "$REC" ] || "$B" synth --panel fsr-ads1115 --seed 11 --duration 3600 \
    --artefacts noise,hum,spikes,drift,relaxation -o "$REC" >/dev/null
SOCK="$DIR/soak.sock"
rm -f "$DIR/rss.txt" "$DIR/stderr.txt" "$DIR/status.json"
start=$(date +%s)
"$B" emulate --speed "$SPEED" --end-after-recording "$REC" -- \
    "$B" run --calibration "$REC" --socket "$SOCK" --no-stdout --log-level info 2>"$DIR/stderr.txt" &
EMU=$!
i=0
while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PID=$("$B" status --socket "$SOCK" --json | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
echo "service pid $PID; sampling VmRSS every $INTERVAL s"
while kill -0 "$PID" 2>/dev/null; do
    rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$PID/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$(( $(date +%s) - start )) $rss" >> "$DIR/rss.txt"
    "$B" status --socket "$SOCK" --json > "$DIR/status.tmp" 2>/dev/null && mv "$DIR/status.tmp" "$DIR/status.json"
    sleep "$INTERVAL"
done
wait $EMU || true
echo "wall time $(( $(date +%s) - start )) s"
echo "VmRSS kB (seconds since start, kB): first $(head -1 "$DIR/rss.txt"), last $(tail -1 "$DIR/rss.txt")"
awk 'NR > 2 { if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 } END { print "VmRSS after the first two samples: min " min " kB, max " max " kB, samples " NR }' "$DIR/rss.txt"
echo "last status while running: $(cat "$DIR/status.json")"
echo "final counters: $(grep 'service stopped' "$DIR/stderr.txt")"
