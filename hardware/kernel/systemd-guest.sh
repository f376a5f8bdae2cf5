# hardware/kernel/systemd-guest.sh - runs INSIDE the QEMU guest booted by
# hardware/kernel/systemd.sh, as forcestage-check.service under systemd (PID 1),
# with systemd-udevd running, on the host's / under a tmpfs overlay. $1 is the
# results folder; $1/.fs/ gives krel, cache, cwd, chip and deb (the package), one line each.
# Installs the package, binds the real ti-ads1015 driver to an i2c-stub chip,
# starts forcestage.service against it and checks it as a user would; writes one
# line per check to $1/.fs/checks ("ok NAME: detail" or "FAIL NAME: detail"),
# the logs beside it, then powers the guest off.
OUT=$1; FS=$OUT/.fs
get() { IFS= read -r "$1" < "$FS/$2"; }
get KREL krel; get CACHE cache; get CWD cwd; get CHIP chip; get DEB deb
up() { cut -d' ' -f1 /proc/uptime; }
mark() { echo "forcestage-kernel: stage $*"; }
CH=$FS/checks; : > "$CH"
ok() { echo "ok $*" >> "$CH"; mark "ok $*"; }
bad() { echo "FAIL $*" >> "$CH"; mark "FAIL $*"; }
# expect NAME WANT GOT: one check, the value it saw in its line either way.
expect() { if [ "$3" = "$2" ]; then ok "$1: $3"; else bad "$1: wanted '$2', got '$3'"; fi; }
finish() {
    journalctl -b --no-pager -o short-monotonic > "$FS/journal.txt" 2>&1
    journalctl -u forcestage.service --no-pager -o cat > "$FS/service.log" 2>&1
    dmesg > "$FS/dmesg.txt"
    echo "$(up)" > "$FS/done"
    mark "checks done at $(up)s"
    sync
    systemctl --force --force poweroff
    exit 0
}
S=/run/forcestage/events.sock
T=/run/forcestage-check; mkdir -p "$T"
mark "checks at $(up)s"

# -- 1. systemd and udev ------------------------------------------------------------
expect "PID 1 is systemd" systemd "$(cat /proc/1/comm)"
expect "systemd-udevd is active" active "$(systemctl is-active systemd-udevd.service)"

# -- 2. the package ------------------------------------------------------------------
# man-db's trigger would re-index every manual page over 9p under software emulation (minutes);
# without this file it skips the index (the overlay's copy only; the host's stays).
rm -f /var/lib/man-db/auto-update
if dpkg -i "$DEB" > "$FS/dpkg.log" 2>&1; then ok "dpkg -i $(basename "$DEB")"; else bad "dpkg -i: $(tail -1 "$FS/dpkg.log")"; finish; fi
expect "the service user exists (postinst)" forcestage "$(getent passwd forcestage | cut -d: -f1)"
expect "systemd knows forcestage.service (postinst's daemon-reload)" loaded "$(systemctl show -P LoadState forcestage.service)"

# -- 3. the real driver, and udev's rules on its device ------------------------------
mark "modules at $(up)s"
for m in "i2c-stub chip_addr=0x48" i2c-dev ti-ads1015 iio-trig-sysfs; do
    modprobe $m 2> "$T/modprobe.err" || { bad "modprobe $m: $(head -1 "$T/modprobe.err")"; finish; }
done
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
. "$(dirname "$0")/guest-chip.sh"
find_stub_bus || { bad "i2c-stub made no bus"; finish; }
bind_chip "$CHIP" || { bad "ti-ads1015 did not bind to the $CHIP on i2c-$BUS"; finish; }
udevadm settle --timeout 30
NODE=/dev/${DEV##*/}
udevadm info --query=all --path="$DEV" > "$FS/udev-device.txt" 2>&1
expect "udev: $NODE group and mode (60-forcestage-iio.rules)" "forcestage 660" "$(stat -c '%G %a' "$NODE")"
expect "udev: buffer/enable group-writable (forcestage-iio-permissions)" "forcestage rw" \
    "$(stat -c %G "$DEV/buffer/enable") $(stat -c %A "$DEV/buffer/enable" | cut -c5-6)"
expect "udev: trigger/current_trigger group-writable" "forcestage rw" \
    "$(stat -c %G "$DEV/trigger/current_trigger") $(stat -c %A "$DEV/trigger/current_trigger" | cut -c5-6)"
# The sysfs trigger is made by root, as a board's setup would; the service attaches it by name.
add_sysfs_trigger || { bad "iio-trig-sysfs made no sysfstrig0"; finish; }

# -- 4. a profile, the options a board adds, and the unit started -------------------
mkdir -p /etc/forcestage /etc/systemd/system/forcestage.service.d
cat > /etc/forcestage/panel.toml <<EOF
schema = 1
name = "kernel-panel"

[match]
name = "ads1015"

[levels]
peek_newtons = 1.0
pop_newtons = 2.5

[[channel]]
id = "voltage0"
zero_raw = 100
newtons_per_count = 0.0005
EOF
cat > /etc/systemd/system/forcestage.service.d/kernel.conf <<EOF
[Service]
Environment="FORCESTAGE_OUTPUTS=--device ads1015 --trigger sysfstrig0 --rate 250"
EOF
systemctl daemon-reload
# A press: 20 scans up to 3.5 N, 250 held, 20 down, at the profile's 0.0005 N a count over 100.
awk 'BEGIN { for (i = 0; i < 20; i++) print 100 + int(i / 20 * 7000); for (i = 0; i < 250; i++) print 7100;
             for (i = 0; i < 20; i++) print 7100 - int(i / 20 * 7000); for (i = 0; i < 250; i++) print 100 }' > "$T/press.txt"
export FORCESTAGE_IIO_DEVICE=$DEV FORCESTAGE_I2C_BUS=$BUS FORCESTAGE_SYSFS_TRIGGER=$TRIG
# Scans flow from the moment the service enables the buffer (it reports READY=1 only then, and
# its watchdog wants the scan count rising): baseline until go, the press, baseline until stop.
python3 "$(dirname "$0")/feed.py" phases "hold:100:$T/go" "$T/press.txt" "hold:100:$T/stop" 2> "$FS/feed.err" &
FEEDER=$!
mark "starting forcestage.service at $(up)s"
t0=$(up)
if systemctl start forcestage.service 2> "$T/start.err"; then ok "systemctl start forcestage.service: $(echo "$(up) - $t0" | bc) s to READY=1"
else bad "systemctl start forcestage.service: $(head -1 "$T/start.err")"; touch "$T/go" "$T/stop"; finish; fi
expect "the unit is active" active "$(systemctl is-active forcestage.service)"
PID=$(systemctl show -P MainPID forcestage.service)
expect "the service runs as its own user" "$(id -u forcestage) $(id -g forcestage)" \
    "$(awk '/^Uid:/ {print $2}' /proc/$PID/status) $(awk '/^Gid:/ {print $2}' /proc/$PID/status)"
expect "the service is /usr/bin/forcestage-service" /usr/bin/forcestage-service "$(readlink /proc/$PID/exe)"
expect "the socket: group forcestage, mode 0660" "forcestage 660" "$(stat -c '%G %a' "$S")"
expect "the device's trigger is sysfstrig0" sysfstrig0 "$(cat "$DEV/trigger/current_trigger")"

# -- 5. status and events on the socket ---------------------------------------------
forcestage status --socket "$S" --json > "$T/status.json" 2> "$T/status.err"
expect "forcestage status (root) exit" 0 "$?"
grep -q '"scans"' "$T/status.json" && ok "status answers with counters: $(head -c 160 "$T/status.json")" || bad "status: $(head -c 300 "$T/status.json" "$T/status.err")"
setpriv --reuid forcestage --regid forcestage --init-groups forcestage status --socket "$S" > /dev/null 2> "$T/status-user.err"
expect "forcestage status as user forcestage exit" 0 "$?"
setpriv --reuid nobody --regid nogroup --clear-groups forcestage status --socket "$S" > /dev/null 2> "$T/status-nobody.err"
r=$?; [ "$r" != 0 ] && ok "a user outside group forcestage is refused the socket: exit $r, $(head -1 "$T/status-nobody.err")" ||
    bad "user nobody reached the socket"
# A client that stays connected through the press and the stop: every line it gets lands in events.jsonl.
python3 - "$S" "$FS/events.jsonl" "$T/connected" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(120)
open(sys.argv[3], "w").close()
with open(sys.argv[2], "wb") as out:
    while True:
        try:
            b = s.recv(65536)
        except socket.timeout:
            break
        if not b:
            break
        out.write(b); out.flush()
EOF
CLIENT=$!
for k in $(seq 1200); do [ -e "$T/connected" ] && break; sleep 0.05; done
[ -e "$T/connected" ] || bad "the socket client did not connect in 60 s"
touch "$T/go"
mark "press at $(up)s"
for k in $(seq 600); do grep -q '"event":"release"' "$FS/events.jsonl" 2>/dev/null && break; sleep 0.1; done
for e in peek pop release; do
    grep -q "\"event\":\"$e\"" "$FS/events.jsonl" && ok "the press gave a $e event on the socket" || bad "no $e event on the socket"
done
grep -q '"event":"lost"' "$FS/events.jsonl" && bad "the service lost the device: $(grep -m1 lost "$FS/events.jsonl")"

# -- 6. stop --------------------------------------------------------------------------
touch "$T/stop"
wait $FEEDER; expect "the feeder's exit" 0 "$?"
mark "stopping at $(up)s"
systemctl stop forcestage.service; r=$?
expect "systemctl stop exit" 0 "$r"
expect "the unit is inactive (not failed)" inactive "$(systemctl is-active forcestage.service)"
expect "the result is success" success "$(systemctl show -P Result forcestage.service)"
kill -0 "$PID" 2>/dev/null && bad "process $PID still runs" || ok "process $PID is gone"
[ -e "$S" ] && bad "the socket $S is left" || ok "the socket is removed"
expect "the buffer is disabled" 0 "$(cat "$DEV/buffer/enable")"
expect "the device's trigger is put back" "" "$(cat "$DEV/trigger/current_trigger")"
wait $CLIENT
tail -1 "$FS/events.jsonl" | grep -q '^{"status"' && ok "the connected client got the final status line" ||
    bad "the client's last line is not a status: $(tail -1 "$FS/events.jsonl" | head -c 200)"
finish
