#!/usr/bin/env bash
# The service's CPU against iio_readdev's, over the same period: the
# target (the service at 860 scans/s within 1.5x iio_readdev's CPU, <= 2 threads
# on the hot path). Two emulators play the same ADS1115 recording at 860
# scans/s side by side (each in its own namespace, so each reader has its own
# device), one under `forcestage run`, one under `iio_readdev -b 4`; after a
# settling time both processes' utime+stime (/proc/PID/stat) are read at the
# start and the end of one window, so the shared machine's load falls on both
# alike; so is each one's scheduler time in nanoseconds (/proc/PID/task/*/schedstat,
# summed over its threads), which 10 ms ticks resolve only over long windows.
# Also prints each process's thread count (/proc/PID/status). Each process is
# found among its own emulator's descendants by executable, so other emulators
# and readers running on a shared machine are never measured.
# Needs root (the emulator) and iio_readdev (bash hardware/setup.sh).
#
#   bash hardware/service-cpu.sh [BINARY] [SECONDS]   # default .build/release/forcestage, 20 s
#
# Exits 2 when a tool is missing or a process does not start.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(readlink -f "${1:-.build/release/forcestage}")
seconds=${2:-20}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 1 ] && [ "$seconds" -le 3600 ] || { echo "service-cpu.sh: SECONDS must be 1 to 3600" >&2; exit 2; }
[ -x "$bin" ] || { echo "service-cpu.sh: $bin is not an executable (swift build -c release)" >&2; exit 2; }
command -v iio_readdev >/dev/null || { echo "service-cpu.sh: iio_readdev is missing (bash hardware/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$bin" synth --panel fsr-ads1115 --seed 1 --duration $((seconds + 30)) -o "$work/fsr.json" >/dev/null

"$bin" emulate --sensor ads1115 "$work/fsr.json" -- "$bin" run --calibration "$work/fsr.json" --exit-on-timeout >/dev/null 2>"$work/run.err" &
pids+=($!)
"$bin" emulate --sensor ads1115 "$work/fsr.json" -- iio_readdev -u local: -b 4 ads1015 >/dev/null 2>"$work/readdev.err" &
pids+=($!)

# The process among this run's own emulator ($1: its pid) whose executable is named $2: other
# emulators and readers on a shared machine (another run of this script) are never picked.
descendants() { local p; for p in $(ps -o pid= --ppid "$1"); do echo "$p"; descendants "$p"; done; }
find_pid() {
    local p
    for _ in $(seq 50); do
        for p in $(descendants "$1"); do
            [ "$(basename "$(readlink "/proc/$p/exe" 2>/dev/null)")" = "$2" ] && { echo "$p"; return 0; }
        done
        sleep 0.2
    done
    return 1
}
sleep 5
# `run` execs forcestage-service when it is beside the binary: match either program.
service=$(find_pid "${pids[0]}" forcestage-service || find_pid "${pids[0]}" "$(basename "$bin")") \
    || { echo "service-cpu.sh: the service did not start" >&2; cat "$work/run.err" >&2; exit 2; }
readdev=$(find_pid "${pids[1]}" iio_readdev) \
    || { echo "service-cpu.sh: iio_readdev did not start" >&2; cat "$work/readdev.err" >&2; exit 2; }
echo "measuring pid $service ($(readlink "/proc/$service/exe")): $(tr '\0' ' ' <"/proc/$service/cmdline" | cut -c1-100)"
echo "measuring pid $readdev ($(readlink "/proc/$readdev/exe")): $(tr '\0' ' ' <"/proc/$readdev/cmdline" | cut -c1-100)"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Nanoseconds on a CPU, summed over the threads (the scheduler's own count, not 10 ms ticks).
ns() { cat /proc/"$1"/task/*/schedstat | awk '{t += $1} END {printf "%d", t}'; }
s0=$(ticks "$service"); r0=$(ticks "$readdev"); sn0=$(ns "$service"); rn0=$(ns "$readdev"); w0=$(date +%s.%N)
sleep "$seconds"
s1=$(ticks "$service"); r1=$(ticks "$readdev"); sn1=$(ns "$service"); rn1=$(ns "$readdev"); w1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
threads() { awk '/^Threads/ {print $2}' "/proc/$1/status"; }
python3 - "$s0" "$s1" "$r0" "$r1" "$w0" "$w1" "$hz" "$(threads "$service")" "$(threads "$readdev")" "$seconds" "$sn0" "$sn1" "$rn0" "$rn1" <<'PY'
import sys
s0, s1, r0, r1, w0, w1, hz = map(float, sys.argv[1:8])
st, rt, window = sys.argv[8], sys.argv[9], sys.argv[10]
sn0, sn1, rn0, rn1 = map(int, sys.argv[11:15])
wall = w1 - w0
service, readdev = (s1 - s0) / hz, (r1 - r0) / hz
print(f"same {wall:.1f} s window, 860 scans/s each (CPU = utime+stime over wall, {1 / hz * 1000:.0f} ms ticks):")
print(f"  forcestage service: {service:.2f} s CPU, {service / wall * 100:.2f} % of a core, {st} threads")
print(f"  iio_readdev -b 4:   {readdev:.2f} s CPU, {readdev / wall * 100:.2f} % of a core, {rt} threads")
if readdev > 0:
    print(f"  service / iio_readdev: {service / readdev:.2f}x (target: <= 1.5x)")
else:
    print("  iio_readdev used under one tick: no ratio (try more SECONDS)")
sn, rn = (sn1 - sn0) / 1e9, (rn1 - rn0) / 1e9
print(f"same window, scheduler time (/proc/PID/task/*/schedstat, ns): service {sn:.3f} s ({sn / wall * 100:.2f} %),"
      f" iio_readdev {rn:.3f} s ({rn / wall * 100:.2f} %)" + (f", {sn / rn:.2f}x" if rn > 0 else ""))
PY
