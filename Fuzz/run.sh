#!/usr/bin/env bash
# Builds the libFuzzer targets (release, -sanitize=fuzzer) and runs them.
#   Fuzz/run.sh --short            every target 30 s (CI)
#   Fuzz/run.sh --seconds N [T..]  each named target (default: all) N seconds
# Each run first replays the committed regressions (Fuzz/regressions/TARGET),
# then fuzzes from the committed seeds (Fuzz/corpus/TARGET) plus a working
# corpus in Fuzz/.work/TARGET (not committed). A finding is written to
# Fuzz/findings/ and the script exits 1: copy it into Fuzz/regressions/TARGET
# once fixed.
set -euo pipefail
cd "$(dirname "$0")"
seconds=30
if [[ "${1:-}" == "--short" ]]; then shift; seconds=30
elif [[ "${1:-}" == "--seconds" ]]; then seconds="$2"; shift 2; fi
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(recording channel-format profile)

swift build -c release --sanitize=fuzzer
bin="$(swift build -c release --sanitize=fuzzer --show-bin-path)"

status=0
for t in "${targets[@]}"; do
  case "$t" in
    recording)      exe=FuzzRecording;     maxlen=65536 ;;
    channel-format) exe=FuzzChannelFormat; maxlen=64 ;;
    profile)        exe=FuzzProfile;       maxlen=16384 ;;
    *) echo "unknown target $t (recording, channel-format, profile)" >&2; exit 64 ;;
  esac
  mkdir -p ".work/$t" findings
  regressions=(regressions/"$t"/*)
  if [[ -e "${regressions[0]}" ]]; then
    echo "== $t: ${#regressions[@]} regression inputs"
    "$bin/$exe" -rss_limit_mb=2048 -timeout=10 "${regressions[@]}" || status=1
  fi
  echo "== $t: fuzzing ${seconds}s"
  set +e
  "$bin/$exe" -max_total_time="$seconds" -max_len="$maxlen" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="findings/$t-" ".work/$t" "corpus/$t" > ".work/$t.log" 2>&1
  rc=$?
  set -e
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|SUMMARY)|Fatal error|ERROR" ".work/$t.log" || true
  if [[ $rc -ne 0 ]]; then status=1; echo "== $t: FINDING (exit $rc), see Fuzz/findings/ and Fuzz/.work/$t.log"; fi
done
exit $status
