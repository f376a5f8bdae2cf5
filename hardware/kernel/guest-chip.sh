# hardware/kernel/guest-chip.sh - sourced INSIDE the QEMU guest by guest-init.sh
# and systemd-guest.sh: the real ti-ads1015 driver bound to an i2c-stub chip, and
# the sysfs trigger, the same way for both. Each function sets its variable and
# returns 1 when the kernel did not do its part; the caller says so its own way.

# BUS: the number of i2c-stub's bus ("SMBus stub ...").
find_stub_bus() {
    BUS=
    for d in /sys/bus/i2c/devices/i2c-*; do
        case "$(cat "$d/name")" in "SMBus stub"*) BUS=${d##*/i2c-};; esac
    done
    [ -n "$BUS" ]
}

# DEV: /sys/bus/iio/devices/iio:deviceN of chip $1 created at 0x48 on $BUS (5 s at most).
bind_chip() {
    echo "$1" 0x48 > "/sys/bus/i2c/devices/i2c-$BUS/new_device"
    DEV=
    for k in $(seq 50); do
        for d in /sys/bus/i2c/devices/$BUS-0048/iio:device*; do [ -e "$d/name" ] && DEV=/sys/bus/iio/devices/${d##*/}; done
        [ -n "$DEV" ] && break; sleep 0.1
    done
    [ -n "$DEV" ]
}

# TRIG: the folder of iio-trig-sysfs's sysfstrig0, made as root, as a board's setup would.
add_sysfs_trigger() {
    echo 0 > /sys/bus/iio/devices/iio_sysfs_trigger/add_trigger || return 1
    TRIG=
    for t in /sys/bus/iio/devices/trigger*; do [ "$(cat "$t/name")" = sysfstrig0 ] && TRIG=$t; done
    [ -n "$TRIG" ]
}
