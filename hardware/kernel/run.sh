#!/usr/bin/env bash
# hardware/kernel/run.sh - runs a command against a REAL Linux IIO stack: Debian's
# kernel under QEMU (software emulation; FORCESTAGE_KERNEL_ACCEL=kvm for KVM) with
# the host's / shared read-only, an ADS1115 on i2c-stub bound to the real
# ti-ads1015 driver, the hrtimer and sysfs triggers, /dev/uinput and evdev. The way `forcestage
# emulate` runs a command against the imitation.
#
#   bash hardware/kernel/run.sh [--timeout SECONDS] [--out DIR] [--chip NAME] -- COMMAND [ARG...]
#
# --chip is the i2c device bound at 0x48 (default ads1115; ads1015 works too).
#
# The command runs in the guest from the current folder with the host's
# binaries; it sees FORCESTAGE_IIO_DEVICE (/sys/bus/iio/devices/iio:deviceN),
# FORCESTAGE_I2C_BUS, FORCESTAGE_SYSFS_TRIGGER (sysfstrig0's folder),
# FORCESTAGE_KERNEL_FEEDER (feed.py: puts values into the chip) and
# FORCESTAGE_KERNEL_OUT, the only writable host folder (--out, default a new
# folder under /var/tmp). Its stdout and stderr come back on ours; the guest's
# console log stays in OUT/console.log, timings in OUT/timings.txt.
#
# Exit: the command's own status, or
#   2 a package or tool is missing (bash hardware/setup.sh --kernel installs them)
#   3 the IIO trigger modules failed to build
#   4 the guest hung: QEMU killed after --timeout (default 300 s); says the last stage reached
#   5 ti-ads1015 did not bind to the stub chip
#   6 the guest failed before running the command (a module, a mount, the triggers)
# Needs root: QEMU's 9p server reads the host tree as the caller.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
say() { echo "hardware/kernel/run: $*" >&2; }
TIMEOUT=300; OUT=; CHIP=ads1115
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2;;
        --out) OUT=${2:?--out needs a folder}; shift 2;;
        --chip) CHIP=${2:?--chip needs an i2c device name}; shift 2;;
        --) shift; break;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
        *) say "unknown option $1; usage: run.sh [--timeout SECONDS] [--out DIR] -- COMMAND [ARG...]"; exit 64;;
    esac
done
[ $# -gt 0 ] || { say "no command; usage: run.sh [--timeout SECONDS] [--out DIR] -- COMMAND [ARG...]"; exit 64; }
case "$CHIP" in ''|*[!a-z0-9_-]*) say "--chip $CHIP: an i2c device name is lower-case letters, digits, - and _"; exit 64;; esac
case "$TIMEOUT" in ''|*[!0-9]*) say "--timeout $TIMEOUT is not a whole number of seconds"; exit 64;; esac
[ "$(id -u)" = 0 ] || { say "needs root (QEMU's 9p server must read the host tree)"; exit 2; }

# The guest mounts its own /run, /proc, /sys and /dev over the host's; /tmp shows the
# host's through a writable overlay, so a checkout there works.
for p in "$PWD" "$HERE"; do
    case "$p" in /run|/run/*|/proc/*|/sys/*|/dev/*) say "$p: the guest mounts its own /run, /proc, /sys and /dev over the host's, which hides this folder; run from a folder elsewhere"; exit 64;; esac
done
prep=$(bash "$HERE/prepare.sh") || exit $?
KREL=$(echo "$prep" | sed -n 's/^KREL=//p'); CACHE=$(echo "$prep" | sed -n 's/^CACHE=//p')
if [ -z "$OUT" ]; then OUT=$(mktemp -d /var/tmp/forcestage-kernel.XXXXXX); else mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); fi
FS=$OUT/.fs; rm -rf "$FS"; mkdir -p "$FS"
# The command as words for the guest's /bin/sh (dash): each in single quotes ('\'' for
# a quote), which keeps spaces and non-ASCII letters as they are.
for a in "$@"; do printf "'%s' " "${a//\'/\'\\\'\'}"; done > "$FS/command"

. "$HERE/qemu.sh"
put krel "$KREL"; put cache "$CACHE"; put cwd "$PWD"; put chip "$CHIP"; put out "$OUT"; put guest "$HERE/guest-init.sh"
boot_guest "initramfs-$KREL.cpio.gz" ""
peak=0
while kill -0 $TP 2>/dev/null; do
    q=$(pgrep -P $TP 2>/dev/null | head -1 || true)
    h=$( [ -n "$q" ] && awk '/VmHWM/{print $2}' "/proc/$q/status" 2>/dev/null || true)
    [ -n "$h" ] && [ "$h" -gt "$peak" ] && peak=$h
    sleep 0.25
done
qrc=0; wait $TP || qrc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    ls=$(laststage)
    say "the guest hung: QEMU killed after ${TIMEOUT}s; last stage reached: ${ls:-none (the kernel never reached the initramfs)}; console log: $CONSOLE"
    exit 4
fi
if [ -s "$FS/failure" ]; then
    code=$(cut -d' ' -f1 "$FS/failure"); say "$(cut -d' ' -f2- "$FS/failure"); console log: $CONSOLE, dmesg: $FS/dmesg.txt"; exit "$code"
fi
if [ ! -s "$FS/rc" ]; then
    ls=$(laststage)
    say "the guest stopped before the command finished (QEMU exit $qrc: $(head -c 300 "$FS/qemu.log" | tr '\n' ' ')); last stage reached: ${ls:-none}; console log: $CONSOLE"
    exit 6
fi
cat "$FS/stdout"; cat "$FS/stderr" >&2
rc=$(cat "$FS/rc")
. "$FS/times"
end_up=$(grep -a 'forcestage-kernel: stage guest done at' "$CONSOLE" | tail -1 | sed 's/.* at \([0-9.]*\)s.*/\1/' | tr -d '\r')
[ -n "$end_up" ] || end_up=$command_end
boot=$(printf '%.1f' "$(echo "$command_start + ($wall - $end_up)" | bc)")
cmd=$(printf '%.1f' "$(echo "$command_end - $command_start" | bc)")
printf 'kernel=%s accel=%s boot_s=%s command_s=%s qemu_wall_s=%.1f qemu_peak_rss_mib=%d module_build_s=%s\n' \
    "$KREL" "$ACCEL" "$boot" "$cmd" "$wall" $((peak / 1024)) "$(cat "$CACHE/kroot-$KREL/lib/modules/$KREL/extra/.build-seconds" 2>/dev/null || echo '?')" > "$OUT/timings.txt"
say "$(cat "$OUT/timings.txt"); results in $OUT"
exit "$rc"
