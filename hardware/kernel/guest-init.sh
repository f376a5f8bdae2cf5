# hardware/kernel/guest-init.sh - runs INSIDE the QEMU guest, chrooted into the
# host's read-only tree (started by the initramfs's init). $1 is the results
# folder (writable, the same path as on the host); $1/.fs/ holds the request
# written by run.sh and receives the answer:
#   krel, cache, cwd, chip  one line each: the kernel release, the module cache,
#            the folder to run in, the chip (read)
#   command  the shell command to run (read)
#   stdout, stderr, rc, times, dmesg.txt (written); failure: "CODE message" when setup failed.
# Sets up: IIO core, i2c-stub with an ADS1115 at 0x48 bound to ti-ads1015, i2c-dev,
# configfs + iio-trig-hrtimer, iio-trig-sysfs with sysfstrig0, tracefs, uinput
# (/dev/uinput) and evdev (/dev/input/eventN); then runs
# the command with FORCESTAGE_IIO_DEVICE, FORCESTAGE_I2C_BUS, FORCESTAGE_SYSFS_TRIGGER,
# FORCESTAGE_KERNEL_OUT and FORCESTAGE_KERNEL_FEEDER in its environment.
OUT=$1; FS=$OUT/.fs
get() { IFS= read -r "$1" < "$FS/$2"; }
get KREL krel; get CACHE cache; get CWD cwd; get CHIP chip
up() { cut -d' ' -f1 /proc/uptime; }
mark() { echo "forcestage-kernel: stage $*"; }
failed() { echo "$1 $2" > "$FS/failure"; mark "FAILED: $2"; dmesg > "$FS/dmesg.txt"; exit "$1"; }
MP="modprobe -d $CACHE/kroot-$KREL"
mark "modules at $(up)s"
for m in "i2c-stub chip_addr=0x48" i2c-dev ti-ads1015 industrialio-configfs iio-trig-hrtimer iio-trig-sysfs uinput evdev; do
    $MP $m 2>"$FS/modprobe.err" || failed 6 "modprobe $m failed: $(head -1 "$FS/modprobe.err")"
done
# Loopback: Foundation's run loop (forcestage emulate, Process) wakes itself over 127.0.0.1 UDP.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || failed 6 "cannot bring up the loopback interface"
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
. "$(dirname "$0")/guest-chip.sh"
find_stub_bus || failed 5 "i2c-stub made no bus named 'SMBus stub...' (buses: $(cat /sys/bus/i2c/devices/i2c-*/name | tr '\n' ','))"
mark "binding $CHIP at 0x48 on i2c-$BUS at $(up)s"
bind_chip "$CHIP" || failed 5 "ti-ads1015 did not bind to the $CHIP at 0x48 on i2c-$BUS: $(dmesg | grep -i -m1 -E 'ads1015|0048' || echo 'no driver message in dmesg')"
add_sysfs_trigger || failed 6 "iio-trig-sysfs: add_trigger made no sysfstrig0"
mark "command at $(up)s ($DEV, i2c-$BUS, $TRIG)"
T1=$(up)
(cd "$CWD" && env FORCESTAGE_IIO_DEVICE="$DEV" FORCESTAGE_I2C_BUS="$BUS" FORCESTAGE_SYSFS_TRIGGER="$TRIG" \
    FORCESTAGE_KERNEL_OUT="$OUT" FORCESTAGE_KERNEL_FEEDER="$(dirname "$0")/feed.py" \
    /bin/sh -c "$(cat "$FS/command")" >"$FS/stdout" 2>"$FS/stderr" </dev/null)
rc=$?
T2=$(up)
dmesg > "$FS/dmesg.txt"
echo "command_start=$T1 command_end=$T2" > "$FS/times"
echo "$rc" > "$FS/rc"
mark "command exit $rc at ${T2}s"
