#!/usr/bin/env bash
# Instruction counts per scan under valgrind's callgrind: deterministic for the
# same binary and inputs, where nanoseconds move by 20 % on a shared machine.
#
#   bash Benchmarks/instructions.sh            # measure and compare with the reference
#   bash Benchmarks/instructions.sh --update   # measure and rewrite Benchmarks/instructions-reference.json
#
# Recordings (synthesized from fixed seeds, so every run measures the same scans):
# Figures are instructions per scan (in Benchmarks/instructions-reference.json too), but
# "quiet classify, per 16-scan block".
#   kiosk   one hour of an HX711 at 80 scans/s with the standard press mix and every artefact
#   panel4  two minutes of a four-cell plate (be:s24/32>>8) at 500 scans/s
#   quiet   ten minutes of an HX711 at 80 scans/s with one press, noise, hum and drift only:
#           its classify figure per 16-scan block is the fast path's cost per quiet block
#   fsr     one hour of an FSR kiosk (fsr-ads1115: an ADS1115 at 860 scans/s, one channel, with
#           the panel's curve calibration), decode+classify, classify and iio_channel_convert only
#   offcentre  ../shared/recordings/panel4-500hz-offcentre-sample.json (20 s of a four-cell plate
#           pressed off centre), decode+classify and decode+classify+gestures only; skipped, saying
#           so, where ../shared is absent
# Loops (Sources/Bench/Loops): decode+classify and classify, batched (block fast path)
# and one scan at a time (the service's path today: it steps one scan at a time);
# libiio's iio_channel_convert per sample plus the scale, and a vectorised sum, as references;
# on the panels with cell positions (panel4, offcentre) also decode+classify+gestures: the
# gesture layer (GestureDriver, as `run` with a profile's regions) with two regions, the plate's
# left half (its own levels, two quick actions) and its right half, no progress.
# Each loop runs once to warm up, then callgrind's counters are zeroed, the loop runs
# once more over the whole recording and the counters are dumped (Benchmarks/Tools/InstructionCounts).
#
# Exits 1 when any loop of ForceStage's own costs more than 5 % above the reference
# (MAX_GROWTH_PERCENT to change), 2 when valgrind or the build is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
update=0
[ "${1:-}" = "--update" ] && update=1
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is missing; install it (apt-get install valgrind, or bash hardware/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

swift build -c release --product forcestage >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 2; }
swift build -c release --package-path Benchmarks --product InstructionCounts >>"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 2; }
bin=$(swift build -c release --show-bin-path)/forcestage
driver=$(swift build -c release --package-path Benchmarks --show-bin-path)/InstructionCounts

"$bin" synth --panel hx711-80 --seed 1 --duration 3600 -o "$work/kiosk.json" >/dev/null
"$bin" synth --panel panel4 --seed 1 --duration 120 -o "$work/panel4.json" >/dev/null
"$bin" synth --panel hx711-80 --seed 1 --duration 600 --presses 1 --artefacts noise,hum,drift -o "$work/quiet.json" >/dev/null
"$bin" synth --panel fsr-ads1115 --seed 1 --duration 3600 -o "$work/fsr.json" >/dev/null

offcentre=()
shared="$root/../shared/recordings/panel4-500hz-offcentre-sample.json"
if [ -f "$shared" ]; then
    offcentre=(--loops "decode+classify,decode+classify+gestures" offcentre="$shared")
else
    echo "instructions.sh: $shared is absent: no offcentre rows" >&2
fi
valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" --dump-instr=no \
    "$driver" kiosk="$work/kiosk.json" panel4="$work/panel4.json" quiet="$work/quiet.json" \
    --loops "decode+classify,classify,iio_channel_convert" fsr="$work/fsr.json" "${offcentre[@]}" \
    >"$work/valgrind.log" 2>&1 || { tail -20 "$work/valgrind.log"; exit 2; }

python3 - "$work" "$root/Benchmarks/instructions-reference.json" "$update" "${MAX_GROWTH_PERCENT:-5}" <<'PY'
import glob, json, os, sys
work, reference_path, update, max_growth = sys.argv[1], sys.argv[2], sys.argv[3] == "1", float(sys.argv[4])
rows = {}
for path in glob.glob(os.path.join(work, "cg.*")):
    name = total = None
    for line in open(path):
        if line.startswith("desc: Trigger: Client Request: "):
            name = line[len("desc: Trigger: Client Request: "):].strip()
        elif line.startswith("summary: "):
            total = int(line.split()[1])
    if name and total is not None:
        recording, loop, scans, blocks = name.split("|")
        rows[(recording, loop)] = (total, int(scans), int(blocks))
if not rows:
    print("instructions.sh: callgrind wrote no dumps", file=sys.stderr)
    sys.exit(2)

figures = {}
print(f"{'recording':9} {'loop':31} {'instructions':>14} {'per scan':>10}")
for (recording, loop), (total, scans, blocks) in sorted(rows.items()):
    per_scan = total / scans
    figures[f"{recording} {loop}"] = round(per_scan, 2)
    print(f"{recording:9} {loop:31} {total:14,d} {per_scan:10.2f}")
quiet = rows.get(("quiet", "classify"))
if quiet:
    per_block = quiet[0] / quiet[2]
    figures["quiet classify, per 16-scan block"] = round(per_block, 1)
    print(f"fast path per quiet 16-scan block (quiet, classify): {per_block:.1f} instructions")
for recording in ("kiosk", "panel4", "fsr"):
    ours = rows.get((recording, "decode+classify")); conv = rows.get((recording, "iio_channel_convert"))
    if ours and conv:
        print(f"{recording}: iio_channel_convert costs {conv[0] / ours[0]:.2f}x decode+classify")
for recording in ("panel4", "offcentre"):
    ours = rows.get((recording, "decode+classify")); gestures = rows.get((recording, "decode+classify+gestures"))
    if ours and gestures:
        print(f"{recording}: decode+classify+gestures costs {(gestures[0] / ours[0] - 1) * 100:+.1f} % over decode+classify")

if update:
    json.dump({"instructionsPerScan": figures}, open(reference_path, "w"), indent=2, sort_keys=True)
    open(reference_path, "a").write("\n")
    print(f"reference rewritten: {os.path.relpath(reference_path)}")
    sys.exit(0)
if not os.path.exists(reference_path):
    print(f"no reference at {reference_path}: run with --update and commit it")
    sys.exit(0)
reference = json.load(open(reference_path))["instructionsPerScan"]
worse = []
for key, value in sorted(figures.items()):
    if "iio_channel_convert" in key or key.endswith(" sum"):
        continue  # references, not ForceStage's code
    old = reference.get(key)
    if old is None:
        print(f"  {key}: new, {value}")
        continue
    growth = (value - old) / old * 100 if old else 0
    if abs(growth) >= 0.5:
        print(f"  {key}: {old} -> {value} ({growth:+.1f} %)")
    if growth > max_growth:
        worse.append(key)
if worse:
    print(f"INSTRUCTION REGRESSION (more than {max_growth:g} % above Benchmarks/instructions-reference.json): " + ", ".join(worse))
    sys.exit(1)
print(f"no loop costs more than {max_growth:g} % above the reference")
PY
