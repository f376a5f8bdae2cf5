/// The checks the real-kernel suite runs inside ONE boot of the guest (each boot
/// costs ~15-25 s under software emulation). Arguments: the forcestage binary.
/// Everything lands in FORCESTAGE_KERNEL_OUT for the tests to compare with the
/// emulator on the host. Every step logs one "== step" line with the guest's uptime.
let realKernelGuestScript = #"""
set -u
FS=$1; O=$FORCESTAGE_KERNEL_OUT; D=$FORCESTAGE_IIO_DEVICE; B=$FORCESTAGE_I2C_BUS; F=$FORCESTAGE_KERNEL_FEEDER
T=/sys/kernel/tracing; EV=$T/events/smbus/smbus_result
step() { echo "== $1 at $(cut -d' ' -f1 /proc/uptime)s" >> "$O/steps.txt"; }
waitbuf() { for k in $(seq 3000); do [ "$(cat "$D/buffer/enable")" = "$1" ] && return 0; sleep 0.02; done; return 1; }
# feed ERR MODE ARGS: the feeder (feed.py MODE ARGS, stderr to ERR) in the background (FP),
# returning once python is running; it then waits for buffer/enable. Started after the reader,
# python's start-up in the guest could outlast the reader's 3 s timeout, which ended a recording
# empty (seen once in CI). The wait is long (python's start-up is all it waits for) and ends early.
feed() { e=$1; shift; rm -f "$O/feed.ready"; FORCESTAGE_FEED_READY="$O/feed.ready" python3 "$F" "$@" 2> "$e" & FP=$!
         for k in $(seq 3000); do [ -e "$O/feed.ready" ] && return 0; kill -0 $FP 2>/dev/null || return 1; sleep 0.02; done; return 1; }
# waitnode ERR: the uinput node `run --uinput` logs in ERR, once logged (or the run ended: empty).
waitnode() { N=; for k in $(seq 1200); do
                 N=$(sed -n 's/.*uinput\.device=\(\/dev\/input\/event[0-9]*\).*/\1/p' "$1" | head -1)
                 [ -n "$N" ] && return 0; kill -0 $P 2>/dev/null || return 1; sleep 0.05
             done; return 1; }
# waitev KIND COUNT: removal.events holds COUNT KIND events (or the run ended).
waitev() { for k in $(seq 1200); do [ "$(grep -c "\"event\":\"$1\"" "$O/removal.events")" -ge "$2" ] && return 0
                                    kill -0 $P 2>/dev/null || return 1; sleep 0.05; done; return 1; }
# waitevtest OUT: evtest (E) has printed "Testing ...": it holds the device open and reads.
waitevtest() { for k in $(seq 1200); do grep -q '^Testing' "$1" && return 0; kill -0 $E 2>/dev/null || return 1; sleep 0.05; done; return 1; }
state() { echo "enable=$(cat $D/buffer/enable) length=$(cat $D/buffer/length) watermark=$(cat $D/buffer/watermark) voltage0_en=$(cat $D/scan_elements/in_voltage0_en) timestamp_en=$(cat $D/scan_elements/in_timestamp_en) trigger=$(cat $D/trigger/current_trigger) conversion_hz=$(cat $D/in_voltage0_sampling_frequency)"; }

step iio_info
iio_info > "$O/iio_info.txt" 2>&1
for f in "$D"/scan_elements/*; do echo "${f##*/}=$(cat "$f")"; done > "$O/scan_elements.txt"

step no-trigger
"$FS" record --device ads1015 --channel voltage0 --duration 1 -o "$O/notrigger.json" > "$O/notrigger.out" 2>&1
echo $? > "$O/notrigger.rc"

step lockstep
state > "$O/sequence-before.txt"
feed "$O/lockstep.feed" lockstep "$O/values.txt"
"$FS" record --device ads1015 --channel voltage0 --trigger sysfs --rate 860 --timeout-ms 3000 --exit-on-timeout \
    -o "$O/lockstep.json" > "$O/lockstep.out" 2>&1 &
P=$!
waitbuf 1 && state > "$O/sequence-during.txt"
wait $FP; wait $P; echo $? > "$O/lockstep.rc"
state > "$O/sequence-after.txt"

step scan-layout
for chans in "voltage0" "voltage0 timestamp"; do
    tag=$(echo "$chans" | tr ' ' '-')
    echo sysfstrig0 > "$D/trigger/current_trigger"
    feed "$O/layout-$tag.feed" lockstep "$O/layout-values.txt"
    timeout 60 iio_readdev -T 5000 -b 4 -s 8 ads1015 $chans > "$O/layout-$tag.bin" 2> "$O/layout-$tag.err" &
    P=$!
    wait $FP; wait $P; cat "$O/layout-$tag.feed" >> "$O/layout.feed"
    waitbuf 0
    echo > "$D/trigger/current_trigger"
done

step run-press
feed "$O/run-press.feed" lockstep "$O/press-values.txt"
"$FS" run --device ads1015 --calibration "$O/test-panel.json" --trigger sysfs --rate 250 --exit-on-timeout --timeout-ms 3000 \
    > "$O/run-press.events" 2> "$O/run-press.err" &
P=$!
waitbuf 1
wait $FP; wait $P; echo $? > "$O/run-press.rc"

step tail
# 4 scans a refill (libiio sets the watermark to 4) and 1003 values fed: the stream stops 3 scans below
# the watermark, which the kernel's poll never reports; --exit-on-timeout must still keep them.
feed "$O/tail.feed" lockstep "$O/tail-values.txt"
"$FS" record --device ads1015 --channel voltage0 --trigger sysfs --rate 860 --timeout-ms 3000 --exit-on-timeout \
    -o "$O/tail.json" > "$O/tail.out" 2>&1 &
P=$!
waitbuf 1; cat "$D/buffer/watermark" > "$O/tail-watermark.txt"
wait $FP; wait $P; echo $? > "$O/tail.rc"

step run-tail
feed "$O/run-tail.feed" lockstep "$O/tail-press-values.txt"
"$FS" run --device ads1015 --calibration "$O/test-panel.json" --trigger sysfs --rate 860 --scans-per-refill 4 \
    --exit-on-timeout --timeout-ms 3000 > "$O/run-tail.events" 2> "$O/run-tail.err" &
P=$!
waitbuf 1; cat "$D/buffer/watermark" > "$O/run-tail-watermark.txt"
wait $FP; wait $P; echo $? > "$O/run-tail.rc"

step uinput
# A stand-in actuator (uinput with FF_RUMBLE, its requests logged), then run --uinput with
# [uinput] and [haptics], evtest (Debian's, from the host tree) reading the device it makes.
python3 "$(dirname "$F")/ff-actuator.py" "$O/actuator.log" > "$O/actuator.node" 2> "$O/actuator.err" &
A=$!
for k in $(seq 1200); do [ -s "$O/actuator.node" ] && break; kill -0 $A 2>/dev/null || break; sleep 0.05; done
cat > "$O/uinput-panel.toml" <<EOF
schema = 1
name = "kernel-panel"

[match]
name = "ads1015"

[levels]
peek_newtons = 1.0
pop_newtons = 2.5

[uinput]
name = "ForceStage kernel panel"
peek = "BTN_LEFT"
pop = "KEY_ENTER"
max_newtons = 5
fuzz_newtons = 0.03

[haptics]
device = "$(cat "$O/actuator.node")"
duration_ms = 20

[[channel]]
id = "voltage0"
zero_raw = 100
newtons_per_count = 0.0005
EOF
# The feeder first (python running before the service starts), holding the panel at rest (raw 100,
# 0 N) about 250 scans a second from the moment the service enables the buffer, so its 3 s timeout
# never runs out, until uinput.go exists; only then the press. uinput.go is made once evtest reads
# the service's device: no press can come before evtest is reading, however slow the guest.
rm -f "$O/uinput.go"
feed "$O/uinput.feed" phases "hold:100:$O/uinput.go" "$O/press-values.txt"
"$FS" run --device ads1015 --profile "$O/uinput-panel.toml" --uinput --trigger sysfs --rate 250 --exit-on-timeout --timeout-ms 3000 \
    > "$O/uinput.events" 2> "$O/uinput.err" &
P=$!
waitnode "$O/uinput.err"
echo "$N" > "$O/uinput.node"
if [ -n "$N" ]; then
    timeout 90 stdbuf -oL evtest "$N" > "$O/evtest.txt" 2> "$O/evtest.err" &
    E=$!
    waitevtest "$O/evtest.txt"
fi
touch "$O/uinput.go"
kill -0 $P 2>/dev/null || kill $FP 2>/dev/null      # the service is gone: nothing will read the press
wait $FP; wait $P; echo $? > "$O/uinput.rc"
[ -n "$N" ] && { wait $E; echo $? > "$O/evtest.rc"; }
ls /dev/input > "$O/uinput-after.txt"
kill -TERM $A; wait $A; echo $? > "$O/actuator.rc"

step uinput-emulated
# docs/service.md's try-it-without-a-sensor: the emulator replays the press recording into run --uinput
# with the default key map. --start-after holds the recording's first scan back until emu.go exists,
# made once evtest reads the device: no press can come before. The service's refill waits meanwhile
# (--timeout-ms 60000, a bound on evtest's start-up, not a race with it); --end-after-recording ends
# it once every scan is read.
rm -f "$O/emu.go"
timeout 150 "$FS" emulate --start-after "$O/emu.go" --end-after-recording "$O/test-panel.json" -- \
    "$FS" run --calibration "{recording}" --uinput --exit-on-timeout --timeout-ms 60000 \
    > "$O/emu-uinput.events" 2> "$O/emu-uinput.err" &
P=$!
waitnode "$O/emu-uinput.err"
echo "$N" > "$O/emu-uinput.node"
if [ -n "$N" ]; then
    timeout 150 stdbuf -oL evtest "$N" > "$O/emu-evtest.txt" 2> "$O/emu-evtest.err" &
    E=$!
    waitevtest "$O/emu-evtest.txt"
fi
touch "$O/emu.go"
wait $P; echo $? > "$O/emu-uinput.rc"
[ -n "$N" ] && wait $E

step removal
# Each change waits for the run's event that shows it took the one before (not a fixed sleep,
# which a starved guest can outlast): the press classified, then the removal; lost, then the
# return; recovered, then the next press; its pop, then the release; that release, then SIGTERM.
# A 1 s refill timeout, not 300 ms: one timeout is "lost" here, and a guest starved for 300 ms
# could otherwise lose the sensor before the removal.
python3 "$F" set 8000
"$FS" run --device ads1015 --calibration "$O/test-panel.json" --trigger hrtimer:250 --timeout-ms 1000 --timeouts-before-lost 1 \
    > "$O/removal.events" 2> "$O/removal.err" &
P=$!
waitev pop 1
echo 0x48 > "/sys/bus/i2c/devices/i2c-$B/delete_device"
waitev lost 1
python3 "$F" set 100
echo ads1115 0x48 > "/sys/bus/i2c/devices/i2c-$B/new_device"
waitev recovered 1; sleep 0.5
python3 "$F" set 8000; waitev pop 2
python3 "$F" set 100; waitev release 2
kill -TERM $P; wait $P; echo $? > "$O/removal.rc"
state > "$O/removal-after.txt"
ls /sys/kernel/config/iio/triggers/hrtimer > "$O/removal-hrtimers.txt"

step hrtimer
echo "adapter_nr == $B && addr == 0x48 && read_write == 1 && command == 0" > "$EV/filter"
echo mono > "$T/trace_clock"; echo 4096 > "$T/buffer_size_kb"; echo > "$T/trace"; echo 1 > "$EV/enable"
python3 "$F" ramp 8 &
R=$!
"$FS" record --device ads1015 --channel voltage0 --trigger hrtimer:860 --duration 3 -o "$O/hrtimer.json" > "$O/hrtimer.out" 2>&1
echo $? > "$O/hrtimer.rc"
echo 0 > "$EV/enable"
kill $R 2>/dev/null; wait $R 2>/dev/null
grep 'smbus_result' "$T/trace" > "$O/hrtimer-trace.txt"
grep -c 'smbus_result' "$O/hrtimer-trace.txt" > "$O/hrtimer-kernel-reads.txt"
state > "$O/hrtimer-after.txt"
ls /sys/kernel/config/iio/triggers/hrtimer > "$O/hrtimer-left.txt"

step end
dmesg | grep -cE 'WARNING:|BUG:|Oops' > "$O/kernel-warnings.txt"
exit 0
"""#
