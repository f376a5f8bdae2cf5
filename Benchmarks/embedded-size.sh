#!/usr/bin/env bash
# Size of the Embedded Swift core on the microcontroller targets, and the stack
# its per-scan entry points take, compared with Benchmarks/embedded-size-reference.json.
# Two figures per target: the core's relocatable object (every public and
# @usableFromInline symbol, whether a firmware calls it or not), and a firmware
# image: hardware/firmware/Firmware.swift (a board's main loop around a
# four-cell pipeline) compiled with the core, one section per function, linked
# by ld.lld with --gc-sections, so it holds what a board really flashes. The
# image's figure is the core's share (the example's own configure/run/main
# and its two sequences are subtracted and shown apart).
#
#   bash Benchmarks/embedded-size.sh            # report and compare
#   bash Benchmarks/embedded-size.sh --update   # rewrite the reference (commit it with the change)
#
# .text is measured on the object EmbeddedBuildTests builds (swiftc -enable-experimental-feature
# Embedded -wmo -Osize). Stack frames come from the same module compiled through LLVM IR with
# clang -fstack-usage for armv7em (swift-frontend has no stack-usage flag of its own); the
# per-scan figure is ForcePipeline.process(scan:into:) plus Classifier.step(force:...), the two
# frames a scan passes through when they are not inlined into each other (and, once per block,
# the baseline tracker's two frames below step and the three of its mean and noise, for the deepest figure). It also lists the
# compiler-runtime helpers the core calls (64-bit shifts and divisions on 32-bit targets).
# Exits 1 when .text grows past the reference on either target (MAX_TEXT_GROWTH_BYTES, default 0),
# or when the example's configure() frame (the stack a board needs to start) grows past it.
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
[ "${1:-}" = "--update" ] && update=1
swiftc=$(command -v swiftc)
bindir=$(dirname "$(readlink -f "$swiftc")")
clang="$bindir/clang"; nm="$bindir/llvm-nm"; lld="$bindir/ld.lld"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t sources < <(find Sources/Core -name "*.swift" | LC_ALL=C sort)
flags=(-enable-experimental-feature Embedded -wmo -Osize -parse-as-library -module-name ForceStageCore)
declare -A text
for target in armv7em-none-none-eabi riscv32-none-none-eabi; do
    "$swiftc" "${flags[@]}" -target "$target" -c "${sources[@]}" -o "$work/$target.o"
    text[$target]=$(size -A "$work/$target.o" | awk '$1 == ".text" { print $2 }')
    helpers=$("$nm" -u "$work/$target.o" | awk '{ print $2 }' | grep -E '^__aeabi_u?l|di3$' | tr '\n' ' ' || true)
    echo "$target: .text ${text[$target]} bytes; 64-bit runtime helpers referenced: ${helpers:-none}"
done
# The firmware image: what the board's C side must supply is what stays undefined.
declare -A image
for target in armv7em-none-none-eabi riscv32-none-none-eabi; do
    "$swiftc" -enable-experimental-feature Embedded -enable-experimental-feature Extern -wmo -Osize \
        -module-name Firmware -target "$target" -Xfrontend -function-sections \
        -c "${sources[@]}" hardware/firmware/Firmware.swift -o "$work/fw-$target.o"
    "$lld" --gc-sections -e main --unresolved-symbols=ignore-all -o "$work/fw-$target.elf" "$work/fw-$target.o"
    whole=$(size -A "$work/fw-$target.elf" | awk '$1 == ".text" { print $2 }')
    # Sizes of the example's own functions (demangled names of the Firmware
    # type, its two sequences and main), in decimal.
    own=$("$nm" -S --defined-only "$work/fw-$target.elf" | awk 'NF == 4 && $3 ~ /^[tT]$/ { print $2, $4 }' \
        | swift demangle --simplified | python3 -c '
import re, sys
own = re.compile(r"(static )?(Firmware|Channels|Cells)\.|main$")
print(sum(int(size, 16) for size, name in (line.rstrip("\n").split(" ", 1) for line in sys.stdin) if own.match(name)))')
    image[$target]=$(( whole - own ))
    needs=$("$nm" -u "$work/fw-$target.elf" | awk '{ print $2 }' | tr '\n' ' ')
    echo "$target firmware image: .text $whole bytes, of which the core ${image[$target]} and the example's main loop $own; the board supplies: $needs"
done

"$swiftc" "${flags[@]}" -target armv7em-none-none-eabi -emit-ir "${sources[@]}" -o "$work/core.ll"
(cd "$work" && "$clang" -target armv7em-none-none-eabi -Os -Wno-override-module -fstack-usage -c core.ll -o core-ir.o)
# A frame's size, or nothing where no function of that name is left (shown as ?).
frame() { grep -F "$1" "$work/core-ir.su" | grep -v '\.cold\.' | awk -F'\t' '{ print $2 }' | sort -n | tail -1 || true; }
scan=$(frame 'PipelineV7process4scan4into')
step=$(frame 'ClassifierV4step5force6sample')
block=$(frame 'PipelineV7process5scans4into')
echo "armv7em stack: process(scan:into:) ${scan:-?} B + Classifier.step(force:) ${step:-?} B = $(( ${scan:-0} + ${step:-0} )) B per scan; process(scans:into:) ${block:-?} B"
# Once per block, step hands the block to the baseline tracker, two frames
# deeper, and the tracker its block to the loops of `_meanAndSpread` (the
# microcontrollers' mean and noise; three frames, the last the pairwise sum).
close=$(frame 'ClassifierV11_closeBlock'); track=$(frame 'ClassifierV11_trackBlock')
fit=$(frame 'ClassifierV14_meanAndSpread_7settled'); lanes=$(frame 'ClassifierV14_meanAndSpread5lanes'); sum=$(frame 'ClassifierV12_pairwiseSum')
fitted=$(( ${fit:-0} + ${lanes:-0} + ${sum:-0} ))
echo "armv7em stack once per 16 scans, below step: _closeBlock ${close:-?} B + _trackBlock ${track:-?} B + _meanAndSpread's ${fit:-?} + ${lanes:-?} + ${sum:-?} B; deepest $(( ${scan:-0} + ${step:-0} + ${close:-0} + ${track:-0} + fitted )) B"
# The example's own frames: configuration builds the pipeline value (its
# initialisers inline there), the loop runs it; a board's stack must hold both.
"$swiftc" -enable-experimental-feature Embedded -enable-experimental-feature Extern -wmo -Osize -module-name Firmware \
    -target armv7em-none-none-eabi -emit-ir "${sources[@]}" hardware/firmware/Firmware.swift -o "$work/fw.ll"
(cd "$work" && "$clang" -target armv7em-none-none-eabi -Os -Wno-override-module -fstack-usage -c fw.ll -o fw-ir.o)
fwframe() { grep -F "$1" "$work/fw-ir.su" | grep -v '\.cold\.' | awk -F'\t' '{ print $2 }' | sort -n | tail -1 || true; }
configure=$(fwframe FirmwareAAV9configure)
echo "armv7em firmware stack: main $(grep -P "^fw.ll:main\t" "$work/fw-ir.su" | cut -f2) B, configure() ${configure:-?} B, run(_:) $(fwframe FirmwareAAV3run) B"
# The deepest chain at start: the example's main (holding the pipeline),
# configure() (the validated inputs), assemble (the pipeline's construction)
# and the decoder's initialiser it calls.
holder=$(fwframe FirmwareAAV4main); assemble=$(fwframe FirmwareAAV8assemble); decoder=$(fwframe 13_PanelDecoderV6layout)
echo "armv7em firmware stack at start: main ${holder:-?} + configure() ${configure:-?} + assemble ${assemble:-?} + _PanelDecoder.init ${decoder:-?} = $(( ${holder:-0} + ${configure:-0} + ${assemble:-0} + ${decoder:-0} )) B"
echo "largest frames:"; sort -t$'\t' -k2 -n "$work/core-ir.su" | tail -3 | awk -F'\t' '{ sub(/^core.ll:/, "", $1); printf "  %6d B  %s\n", $2, $1 }'

reference=Benchmarks/embedded-size-reference.json
if [ "$update" = 1 ]; then
    printf '{\n  "armv7em-none-none-eabi": %s,\n  "riscv32-none-none-eabi": %s,\n  "armv7em-none-none-eabi firmware": %s,\n  "riscv32-none-none-eabi firmware": %s,\n  "armv7em-none-none-eabi firmware configure() stack": %s\n}\n' \
        "${text[armv7em-none-none-eabi]}" "${text[riscv32-none-none-eabi]}" \
        "${image[armv7em-none-none-eabi]}" "${image[riscv32-none-none-eabi]}" "${configure:-0}" >"$reference"
    echo "reference rewritten: $reference"
    exit 0
fi
[ -f "$reference" ] || { echo "no $reference: run with --update and commit it"; exit 0; }
allowed=${MAX_TEXT_GROWTH_BYTES:-0}
status=0
for key in armv7em-none-none-eabi riscv32-none-none-eabi "armv7em-none-none-eabi firmware" "riscv32-none-none-eabi firmware"; do
    target=$key
    old=$(python3 -c "import json,sys; print(json.load(open('$reference')).get('$key', 0))")
    case "$key" in *" firmware") new=${image[${key% firmware}]};; *) new=${text[$key]};; esac
    [ "$old" -eq 0 ] && { echo "$key: no reference yet ($new bytes); --update to record it"; continue; }
    if [ "$new" -gt $(( old + allowed )) ]; then
        echo "EMBEDDED SIZE GREW: $target .text $old -> $new bytes (reference $reference; --update with a reason if the growth is wanted)"
        status=1
    elif [ "$new" -ne "$old" ]; then
        echo "$target .text $old -> $new bytes"
    fi
done
# configure()'s frame: the stack a board needs to start, on top of main's (which holds the pipeline).
key="armv7em-none-none-eabi firmware configure() stack"
old=$(python3 -c "import json,sys; print(json.load(open('$reference')).get('$key', 0))")
if [ "$old" -eq 0 ]; then
    echo "$key: no reference yet (${configure:-?} B); --update to record it"
elif [ -z "$configure" ]; then
    echo "EMBEDDED STACK NOT MEASURED: no configure() frame in the firmware's stack usage"
    status=1
elif [ "$configure" -gt "$old" ]; then
    echo "EMBEDDED STACK GREW: configure() $old -> $configure B (reference $reference; --update with a reason if the growth is wanted)"
    status=1
elif [ "$configure" -ne "$old" ]; then
    echo "configure() stack $old -> $configure B"
fi
[ $status -eq 0 ] && echo "embedded .text and configure()'s stack within the reference"
exit $status
