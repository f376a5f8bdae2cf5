#!/usr/bin/env bash
# The regression run: what a CI job or a release check runs before shipping.
#
#   bash Benchmarks/regression.sh
#
# 1. Accuracy: synthesizes the fixed-seed corpus, runs `forcestage evaluate` on it
#    with a minimum F1 and a minimum fraction of peeks and pops within
#    max(2 scans, 10 ms), and compares every recording with the committed
#    reference (Benchmarks/reference-evaluation.json), printing what moved.
# 2. Allocations: the package-benchmark thresholds (zero allocations on the
#    per-scan path), `swift package benchmark thresholds check`.
# 3. Instructions: instructions per scan under callgrind (Benchmarks/instructions.sh)
#    against Benchmarks/instructions-reference.json; more than 5 % above it fails.
# 4. Embedded size: the core's .text for armv7em and riscv32, as an object and in a
#    linked firmware image (Benchmarks/embedded-size.sh)
#    against Benchmarks/embedded-size-reference.json; any growth fails.
#
# Exits non-zero when any of them regresses. Environment:
#   MIN_F1 (default 0.999), MIN_WITHIN (default 0.99),
#   UPDATE_REFERENCE=1 rewrites the reference instead of comparing (commit it
#   with the change that moved it).
set -u
cd "$(dirname "$0")/.."
MIN_F1=${MIN_F1:-0.999}
MIN_WITHIN=${MIN_WITHIN:-0.99}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=()

echo "== accuracy: fixed-seed synthesized corpus"
swift build -c release --product forcestage >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)/forcestage
"$bin" synth --corpus "$work/corpus" >/dev/null || exit 1
if ! "$bin" evaluate "$work"/corpus/*.json --compare --min-f1 "$MIN_F1" --min-within "$MIN_WITHIN" >"$work/eval.txt"; then
    failed+=("evaluate: below --min-f1 $MIN_F1 or --min-within $MIN_WITHIN")
fi
tail -6 "$work/eval.txt"
"$bin" evaluate "$work"/corpus/*.json --json >"$work/eval.json" || true
if [ "${UPDATE_REFERENCE:-}" = 1 ]; then
    cp "$work/eval.json" Benchmarks/reference-evaluation.json
    echo "reference rewritten: Benchmarks/reference-evaluation.json"
else
    if ! python3 - "$work/eval.json" Benchmarks/reference-evaluation.json <<'EOF'
import json, sys
now = {r["recording"]: r for r in json.load(open(sys.argv[1]))["recordings"]}
ref = {r["recording"]: r for r in json.load(open(sys.argv[2]))["recordings"]}
worse = False
for name in sorted(set(now) | set(ref)):
    a, b = ref.get(name), now.get(name)
    if a is None or b is None:
        print(f"  {name}: {'new' if a is None else 'missing'} recording")
        worse = True
        continue
    for key in ("f1", "withinTargetFraction", "falseEvents", "misses"):
        if a[key] != b[key]:
            better = b[key] > a[key] if key in ("f1", "withinTargetFraction") else b[key] < a[key]
            worse |= not better
            print(f"  {name}: {key} {a[key]:.4g} -> {b[key]:.4g} ({'better' if better else 'WORSE'})")
    if a["latencyScans"] != b["latencyScans"]:
        print(f"  {name}: latency scans {a['latencyScans']} -> {b['latencyScans']}")
if not worse:
    print("  no recording is worse than the reference")
sys.exit(1 if worse else 0)
EOF
    then
        failed+=("evaluate: worse than Benchmarks/reference-evaluation.json on some recording")
    fi
fi

echo "== allocations: package-benchmark thresholds (Benchmarks/Thresholds)"
if ! FORCESTAGE_BENCH_CI=1 swift package --package-path Benchmarks --disable-sandbox benchmark thresholds check --path "$PWD/Benchmarks/Thresholds" --no-progress >"$work/bench.txt" 2>&1; then
    grep -v "validity error\|DTD\|rsion=\|^ *^" "$work/bench.txt" | tail -40
    failed+=("benchmark thresholds: see the deviations above")
else
    grep -E "EQUAL|BETTER|WORSE" "$work/bench.txt" || tail -5 "$work/bench.txt"
fi

echo "== instructions per scan: callgrind (Benchmarks/instructions.sh)"
if ! bash Benchmarks/instructions.sh >"$work/instructions.txt" 2>&1; then
    cat "$work/instructions.txt"
    failed+=("instructions: see Benchmarks/instructions.sh's report above")
else
    tail -4 "$work/instructions.txt"
fi

echo "== embedded size: the core's .text on armv7em and riscv32, object and firmware image (Benchmarks/embedded-size.sh)"
if ! bash Benchmarks/embedded-size.sh >"$work/embedded.txt" 2>&1; then
    cat "$work/embedded.txt"
    failed+=("embedded size: see Benchmarks/embedded-size.sh's report above")
else
    cat "$work/embedded.txt"
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "REGRESSION:"
    printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "regression run passed"
