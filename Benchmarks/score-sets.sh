#!/usr/bin/env bash
# Benchmarks/score-sets.sh - scores the classifier on every labelled set and prints one
# table, a row per set and a column per measure:
#
#   bash Benchmarks/score-sets.sh [--check | --update] [--bin FORCESTAGE] [--keep DIR]
#
# The sets:
#   shared      ../shared/recordings/*.json            independent generators' samples
#   real        ../shared/recordings/real/*.json       real sensors, recorded by others
#   validation  ../shared/recordings/validation/*.json independent generators, other seeds
#   corpus      `forcestage synth --corpus`            the project's own fixed-seed corpus
#   scenarios   `forcestage synth --corpus --scenario all`  the own real-sensor scenario corpus
# `../shared` is found beside this checkout; where it is absent (a user's clone) its three
# sets are skipped, saying so.
#
# Columns: recordings, labels, F1, false events, missed labels, the share of presses whose
# peek and pop came within max(2 scans, 10 ms) of the label (in-target), the lowest
# recording's in-target share, and the `stuck` reports.
#
# --check compares every recording of every set with Benchmarks/reference-sets.json and
# exits 1 when any is worse: a lower F1 or in-target share, more false events or misses.
# --update rewrites that reference (commit it with the change that moved it, saying why).
# --bin uses that forcestage instead of building the release one; --keep DIR keeps the
# synthesized corpora and the evaluations there.
# Exit: 0, 1 worse than the reference, 64 a bad argument, 2 a build or synthesis failure.
set -u
cd "$(dirname "$0")/.."
mode=show; bin=; keep=
while [ $# -gt 0 ]; do
    case "$1" in
        --check) mode=check; shift;;
        --update) mode=update; shift;;
        --bin) bin=${2:?--bin needs a forcestage binary}; shift 2;;
        --keep) keep=${2:?--keep needs a folder}; shift 2;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
        *) echo "Benchmarks/score-sets.sh: unknown option $1; see --help" >&2; exit 64;;
    esac
done
reference=Benchmarks/reference-sets.json
if [ -n "$keep" ]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
if [ -z "$bin" ]; then
    swift build -c release --product forcestage >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 2; }
    bin=$(swift build -c release --show-bin-path)/forcestage
fi
[ -x "$bin" ] || { echo "Benchmarks/score-sets.sh: $bin is not an executable" >&2; exit 64; }

shared=$(cd .. && pwd)/shared/recordings
sets=()
if [ -d "$shared" ]; then
    sets+=(shared real validation)
else
    echo "Benchmarks/score-sets.sh: no $shared beside this checkout: the shared, real and validation sets are skipped" >&2
fi
sets+=(corpus scenarios)

rm -rf "$work/corpus" "$work/scenarios"
"$bin" synth --corpus "$work/corpus" >/dev/null || exit 2
"$bin" synth --corpus "$work/scenarios" --scenario all >/dev/null || exit 2
for set in "${sets[@]}"; do
    case "$set" in
        shared) files=("$shared"/*.json);;
        real) files=("$shared"/real/*.json);;
        validation) files=("$shared"/validation/*.json);;
        corpus) files=("$work"/corpus/*.json);;
        scenarios) files=("$work"/scenarios/*.json);;
    esac
    # evaluate exits 1 below its --min-f1/--min-within thresholds (none given here); its JSON is all we read.
    "$bin" evaluate "${files[@]}" --json >"$work/$set.json" 2>"$work/$set.err" || true
    [ -s "$work/$set.json" ] || { echo "Benchmarks/score-sets.sh: evaluate failed on the $set set: $(tail -1 "$work/$set.err")" >&2; exit 2; }
done

python3 - "$mode" "$reference" "$work" "${sets[@]}" <<'EOF'
import json, sys
mode, reference, work, sets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
now = {s: json.load(open(f"{work}/{s}.json")) for s in sets}

print(f"{'set':<11} {'recs':>4} {'labels':>6} {'F1':>6} {'false':>5} {'missed':>6} {'in-target':>9} {'lowest':>7}  {'stuck':>5}")
for s in sets:
    o, recs = now[s]["overall"], now[s]["recordings"]
    lowest = min(recs, key=lambda r: r["withinTargetFraction"])
    print(f"{s:<11} {len(recs):>4} {o['labels']:>6} {o['f1']:>6.4f} {o['falseEvents']:>5} {o['misses']:>6} "
          f"{100 * o['withinTargetFraction']:>8.1f}% {100 * lowest['withinTargetFraction']:>6.1f}%  {o['stuckReports']:>5}"
          f"   (lowest: {lowest['recording']})")

keys = ("f1", "withinTargetFraction", "falseEvents", "misses")
if mode == "update":
    try:
        ref = json.load(open(reference))
    except FileNotFoundError:
        ref = {}
    for s in sets:
        ref[s] = {r["recording"]: {k: r[k] for k in keys} for r in now[s]["recordings"]}
    with open(reference, "w") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"reference rewritten: {reference} ({', '.join(sets)})")
elif mode == "check":
    ref = json.load(open(reference))
    worse = False
    for s in sets:
        if s not in ref:
            print(f"  {s}: no reference; run with --update"); worse = True; continue
        a_set, b_set = ref[s], {r["recording"]: r for r in now[s]["recordings"]}
        for name in sorted(set(a_set) | set(b_set)):
            a, b = a_set.get(name), b_set.get(name)
            if a is None or b is None:
                print(f"  {s}/{name}: {'new' if a is None else 'missing'} recording"); worse = True; continue
            for k in keys:
                if a[k] != b[k]:
                    better = b[k] > a[k] if k in ("f1", "withinTargetFraction") else b[k] < a[k]
                    worse |= not better
                    print(f"  {s}/{name}: {k} {a[k]:.4g} -> {b[k]:.4g} ({'better' if better else 'WORSE'})")
    print("  no recording of any set is worse than the reference" if not worse else f"  worse than {reference}")
    sys.exit(1 if worse else 0)
EOF
