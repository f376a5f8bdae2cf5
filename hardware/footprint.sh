#!/usr/bin/env bash
# The service's footprint on this machine: binary size (as built and stripped),
# shared libraries (ldd), and resident memory and CPU of `forcestage run` at
# 860 scans/s in the emulator (an ADS1115 recording from `forcestage synth`),
# beside iio_readdev reading the same emulated device. Needs root (the emulator).
#
#   sh hardware/footprint.sh [BINARY] [SECONDS]     # default .build/release/forcestage, 20 s
set -eu
cd "$(dirname "$0")/.."
bin=$(readlink -f "${1:-.build/release/forcestage}")
seconds=${2:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/stripped" && strip "$work/stripped"
echo "binary $bin: $(stat -c %s "$bin") bytes, stripped $(stat -c %s "$work/stripped") bytes, $(ldd "$bin" | wc -l) shared libraries (ldd lines)"
# `run` execs forcestage-service when it is beside the binary: that is the process measured then.
service="$(dirname "$bin")/forcestage-service"
if [ -x "$service" ]; then
    cp "$service" "$work/service-stripped" && strip "$work/service-stripped"
    echo "service $service (run execs it): $(stat -c %s "$service") bytes, stripped $(stat -c %s "$work/service-stripped") bytes, $(ldd "$service" | wc -l) shared libraries (ldd lines), Foundation libraries: $(ldd "$service" | grep -cE 'libFoundation(Essentials)?\.so|libFoundationInternationalization|lib_FoundationICU')"
fi
"$bin" synth --panel fsr-ads1115 --seed 1 --duration $((seconds + 30)) -o "$work/fsr.json" >/dev/null

# Samples one process (the one whose command line starts with $2) after a settling time:
# VmRSS at the end, CPU percent over the window (utime+stime ticks / wall).
measure() {
    top=$1 pattern=$2 label=$3
    sleep 5
    pid=""
    for _ in $(seq 50); do
        # The command itself, not the emulator whose arguments contain it.
        pid=$(ps -eo pid=,args= | awk -v p="$pattern" '{id = $1; $1 = ""; sub(/^ +/, ""); if (index($0, p) == 1) {print id; exit}}')
        [ -n "$pid" ] && break
        sleep 0.2
    done
    [ -n "$pid" ] || { echo "$label: no process matching $pattern" >&2; return 1; }
    hz=$(getconf CLK_TCK)
    t0=$(awk '{print $14 + $15}' "/proc/$pid/stat"); w0=$(date +%s.%N)
    sleep "$seconds"
    t1=$(awk '{print $14 + $15}' "/proc/$pid/stat"); w1=$(date +%s.%N)
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
    hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
    echo "$label: VmRSS $rss kB (peak $hwm kB), CPU $(echo "($t1 - $t0) / $hz / ($w1 - $w0) * 100" | bc -l | xargs printf '%.1f') % over ${seconds} s"
    kill -TERM "$top" 2>/dev/null || true
}

"$bin" emulate --sensor ads1115 "$work/fsr.json" -- "$bin" run --calibration "$work/fsr.json" --exit-on-timeout >/dev/null 2>"$work/run.err" &
measure $! "$bin run --calibration" "forcestage run" || cat "$work/run.err"
wait 2>/dev/null || true
"$bin" emulate --sensor ads1115 "$work/fsr.json" -- iio_readdev -u local: -b 4 ads1015 >/dev/null 2>"$work/readdev.err" &
measure $! "$(command -v iio_readdev) -u local:" "iio_readdev -b 4" || cat "$work/readdev.err"
wait 2>/dev/null || true
