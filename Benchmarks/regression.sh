#!/usr/bin/env bash
# The regression run: what a CI job or a release check runs before shipping.
#
#   bash Benchmarks/regression.sh
#
# 1. Accuracy: synthesizes the fixed-seed corpus and runs `forcestage evaluate` on it
#    with a minimum F1 and a minimum fraction of peeks and pops within
#    max(2 scans, 10 ms); then Benchmarks/score-sets.sh scores every labelled set
#    (the shared samples, real/ and validation/ beside the checkout, the own corpus
#    and the scenario corpus) and compares every recording with the committed
#    reference (Benchmarks/reference-sets.json): any drop in F1 or in-target
#    share, or a false event or miss more, fails and prints what moved.
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

echo "== accuracy: the fixed-seed synthesized corpus against --min-f1 and --min-within, beside the comparison classifiers"
swift build -c release --product forcestage >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)/forcestage
"$bin" synth --corpus "$work/corpus" >/dev/null || exit 1
if ! "$bin" evaluate "$work"/corpus/*.json --compare --min-f1 "$MIN_F1" --min-within "$MIN_WITHIN" >"$work/eval.txt"; then
    failed+=("evaluate: below --min-f1 $MIN_F1 or --min-within $MIN_WITHIN")
fi
tail -6 "$work/eval.txt"

echo "== accuracy: every labelled set against Benchmarks/reference-sets.json (Benchmarks/score-sets.sh)"
if [ "${UPDATE_REFERENCE:-}" = 1 ]; then
    bash Benchmarks/score-sets.sh --bin "$bin" --update || failed+=("score-sets: could not score every set")
elif ! bash Benchmarks/score-sets.sh --bin "$bin" --check; then
    failed+=("accuracy: worse than Benchmarks/reference-sets.json on some recording (listed above)")
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
