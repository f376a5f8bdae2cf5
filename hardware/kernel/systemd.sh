#!/usr/bin/env bash
# hardware/kernel/systemd.sh - the Debian package under a REAL systemd and udev on
# a REAL kernel: Debian's kernel under QEMU (as run.sh) boots the host's
# /lib/systemd/systemd as PID 1 on the host's / (read-only 9p) under a tmpfs
# overlay; inside, hardware/kernel/systemd-guest.sh installs the package with
# dpkg -i, binds the real ti-ads1015 driver to an i2c-stub ADS1115 (udev applies
# the package's rules to it), starts forcestage.service, asks it for status over
# its socket, feeds a press and reads the events, and stops it.
#
#   bash hardware/kernel/systemd.sh [--timeout SECONDS] [--out DIR] [--deb FILE]
#
# --deb: the package to install (default: built now by hardware/debian/build.sh).
# Prints one line per check ("ok ..." / "FAIL ..."), then the timings.
#
# Exit: 0 every check passed; 1 a check failed (the guest's journal, dmesg, dpkg
# and service logs are in OUT/.fs/); 2 a package or tool is missing; 3 the IIO
# trigger modules failed to build; 4 the guest hung (QEMU killed after --timeout,
# default 600 s; says the last stage reached); 6 the guest stopped before the
# checks finished; 64 usage. Needs root: QEMU's 9p server reads the host tree as
# the caller.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
say() { echo "hardware/kernel/systemd: $*" >&2; }
usage="usage: systemd.sh [--timeout SECONDS] [--out DIR] [--deb FILE]"
TIMEOUT=600; OUT=; DEB=
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2;;
        --out) OUT=${2:?--out needs a folder}; shift 2;;
        --deb) DEB=${2:?--deb needs a .deb file}; shift 2;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
        *) say "unknown option $1; $usage"; exit 64;;
    esac
done
case "$TIMEOUT" in ''|*[!0-9]*) say "--timeout $TIMEOUT is not a whole number of seconds"; exit 64;; esac
# The results folder and this folder go on the kernel command line, which splits at spaces and knows no quoting.
for p in "$OUT" "$HERE"; do
    case "$p" in *[!A-Za-z0-9/._+-]*) say "$p: the guest gets this path on the kernel command line; use only letters, digits and / . _ + -"; exit 64;; esac
done
[ "$(id -u)" = 0 ] || { say "needs root (QEMU's 9p server must read the host tree)"; exit 2; }
[ -x /lib/systemd/systemd ] || { say "/lib/systemd/systemd is missing: apt-get install systemd"; exit 2; }
[ -x /lib/systemd/systemd-udevd ] || { say "systemd-udevd is missing: apt-get install udev"; exit 2; }

prep=$(bash "$HERE/prepare.sh") || exit $?
KREL=$(echo "$prep" | sed -n 's/^KREL=//p'); CACHE=$(echo "$prep" | sed -n 's/^CACHE=//p')
if [ -z "$OUT" ]; then OUT=$(mktemp -d /var/tmp/forcestage-systemd.XXXXXX); else mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); fi
case "$OUT" in /run|/run/*) say "--out $OUT: the guest mounts its own /run over the host's; choose another folder"; exit 64;; esac
case "$PWD$HERE" in /run/*) say "$HERE: the guest mounts its own /run over the host's, which hides this checkout; use one elsewhere"; exit 64;; esac
if [ -z "$DEB" ]; then
    say "building the package (hardware/debian/build.sh)"
    OUT="$OUT/dist" bash "$HERE/../debian/build.sh" >&2
    DEB=$(ls "$OUT"/dist/forcestage_*.deb)
fi
[ -f "$DEB" ] || { say "--deb $DEB: no such file"; exit 64; }
DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")
case "$DEB" in /run/*) say "--deb $DEB: the guest cannot see the host's /run; copy it elsewhere"; exit 64;; esac
FS=$OUT/.fs; rm -rf "$FS"; mkdir -p "$FS"

. "$HERE/qemu.sh"
put krel "$KREL"; put cache "$CACHE"; put cwd "$PWD"; put chip ads1115; put deb "$DEB"; put out "$OUT"; put guest "$HERE/systemd-guest.sh"
# fstab=no: the host's /etc/fstab names the host's disks; show_status=true: every unit on the console log.
boot_guest "initramfs-systemd-$KREL.cpio.gz" \
    "systemd.unit=forcestage-check.target fstab=no systemd.gpt_auto=no systemd.show_status=true"
qrc=0; wait $TP || qrc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
[ -s "$FS/checks" ] && cat "$FS/checks"
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    say "the guest hung: QEMU killed after ${TIMEOUT}s; last stage reached: $(laststage); console log: $CONSOLE"
    exit 4
fi
if [ ! -s "$FS/done" ]; then
    say "the guest stopped before the checks finished (QEMU exit $qrc); last stage reached: $(laststage); console log: $CONSOLE"
    exit 6
fi
at() { grep -a "forcestage-kernel: stage $1 at" "$CONSOLE" | head -1 | sed 's/.* at \([0-9.]*\)s.*/\1/' | tr -d '\r'; }
printf 'kernel=%s accel=%s systemd_at_s=%s checks_at_s=%s checks_done_s=%s qemu_wall_s=%.1f\n' \
    "$KREL" "$ACCEL" "$(at systemd)" "$(at checks)" "$(cat "$FS/done")" "$wall" > "$OUT/timings.txt"
say "$(cat "$OUT/timings.txt"); results in $OUT"
failed=$(grep -c '^FAIL' "$FS/checks" || true)
passed=$(grep -c '^ok' "$FS/checks" || true)
if [ "$failed" != 0 ] || [ "$passed" = 0 ]; then
    say "$failed of $((failed + passed)) checks failed; the guest's journal: $FS/journal.txt, the service's log: $FS/service.log"
    exit 1
fi
say "all $passed checks passed"
