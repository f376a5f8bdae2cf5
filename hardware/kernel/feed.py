#!/usr/bin/env python3
"""Puts values into the stub ADS1115's conversion register, inside the guest.

  feed.py lockstep VALUES   one value per scan, in step with the reader: for each
                            value, write it, fire sysfstrig0, and wait until the
                            driver has read register 0 (ftrace smbus_result);
                            fires again when the kernel dropped the trigger, and
                            waits while the kfifo is nearly full.
  feed.py ramp SECONDS      writes 0, 1, 2, ... about once a millisecond (hrtimer runs).
  feed.py set VALUE         writes one value.
  feed.py phases PHASE...   lockstep through the phases in order: a file of VALUES
                            (fed once), or hold:VALUE:FLAG (VALUE fed again and
                            again, about 250 a second, until the file FLAG
                            exists, at most 300 s), so
                            scans keep flowing while the caller waits on something.

VALUES is a file of whitespace-separated signed 16-bit integers. Waits up to
30 s (phases: 120 s) for the device's buffer to be enabled first (lockstep). Reads
FORCESTAGE_I2C_BUS, FORCESTAGE_SYSFS_TRIGGER and FORCESTAGE_IIO_DEVICE.
Prints one summary line on stderr.
"""
import ctypes, fcntl, os, select, struct, sys, time

I2C_SLAVE_FORCE = 0x0706
I2C_SMBUS = 0x0720
SMBUS_WRITE, SMBUS_WORD_DATA = 0, 3
TRACE = "/sys/kernel/tracing"


class Chip:
    def __init__(self, bus):
        self.fd = os.open("/dev/i2c-%d" % bus, os.O_RDWR)
        fcntl.ioctl(self.fd, I2C_SLAVE_FORCE, 0x48)   # ti-ads1015 owns 0x48
        self.data = ctypes.create_string_buffer(34)
        # struct i2c_smbus_ioctl_data {u8 read_write; u8 command; u32 size; union *data}
        self.args = ctypes.create_string_buffer(struct.pack("@BBIP", SMBUS_WRITE, 0, SMBUS_WORD_DATA, ctypes.addressof(self.data)))

    def put(self, value):
        word = value & 0xFFFF
        # the driver's regmap reads the register big-endian; SMBus words are little-endian
        struct.pack_into("<H", self.data, 0, ((word & 0xFF) << 8) | (word >> 8))
        fcntl.ioctl(self.fd, I2C_SMBUS, self.args)


def attr(path):
    with open(path) as f:
        return f.read().strip()


class Lockstep:
    """Writes one value per scan, in step with the reader (see the module's doc)."""

    def __init__(self, chip, bus, wait=30):
        self.chip = chip
        self.dev = os.environ["FORCESTAGE_IIO_DEVICE"]
        trig = os.environ["FORCESTAGE_SYSFS_TRIGGER"]
        # Started before the reader, the caller may wait for this file: python is up, so the
        # reader's timeout cannot run out while the interpreter is still starting.
        ready = os.environ.get("FORCESTAGE_FEED_READY")
        if ready:
            open(ready, "w").close()
        deadline = time.monotonic() + wait
        while attr(self.dev + "/buffer/enable") != "1":
            if time.monotonic() > deadline:
                sys.exit("feed.py: %s/buffer/enable never became 1 in %d s; is the reader attached to sysfstrig0?" % (self.dev, wait))
            time.sleep(0.02)
        self.event = TRACE + "/events/smbus/smbus_result/"
        with open(self.event + "filter", "w") as f:
            f.write("adapter_nr == %d && addr == 0x48 && read_write == 1 && command == 0" % bus)
        with open(self.event + "enable", "w") as f:
            f.write("1")
        self.pipe = os.open(TRACE + "/trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
        self.fire = os.open(trig + "/trigger_now", os.O_WRONLY)
        self.length = int(attr(self.dev + "/buffer/length"))
        self.refired = self.waited = self.fed = 0
        self.started = time.monotonic()

    def driver_read(self, seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.pipe], [], [], left)[0]:
                return False
            try:
                if b"smbus_result" in os.read(self.pipe, 65536):
                    return True
            except BlockingIOError:
                pass

    def feed(self, v):
        self.chip.put(v)
        while int(attr(self.dev + "/buffer/data_available")) > self.length - 2:
            self.waited += 1
            time.sleep(0.001)
        while True:
            os.write(self.fire, b"1")
            if self.driver_read(0.05):
                break
            self.refired += 1                # the kernel dropped a trigger that came too soon
        self.fed += 1

    def close(self):
        with open(self.event + "enable", "w") as f:
            f.write("0")
        print("feed.py: %d values in %.2f s, %d triggers fired again, %d waits for a full kfifo"
              % (self.fed, time.monotonic() - self.started, self.refired, self.waited), file=sys.stderr)


def read_values(path):
    with open(path) as f:
        values = [int(x) for x in f.read().split()]
    bad = [v for v in values if not -32768 <= v <= 32767]
    if bad:
        sys.exit("feed.py: %s holds %d outside -32768...32767" % (path, bad[0]))
    return values


def phase(text):
    """A phases argument: ("hold", VALUE, FLAG) or ("values", [VALUES])."""
    if text.startswith("hold:"):
        parts = text.split(":", 2)
        if len(parts) != 3 or not parts[2]:
            sys.exit("feed.py: %s: a hold phase is hold:VALUE:FLAG" % text)
        try:
            v = int(parts[1])
        except ValueError:
            sys.exit("feed.py: %s: VALUE is not a whole number" % text)
        if not -32768 <= v <= 32767:
            sys.exit("feed.py: %s: VALUE is outside -32768...32767" % text)
        return ("hold", v, parts[2])
    return ("values", read_values(text))


def main():
    bus = int(os.environ["FORCESTAGE_I2C_BUS"])
    chip = Chip(bus)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "lockstep" and len(sys.argv) == 3:
        values = read_values(sys.argv[2])
        feeder = Lockstep(chip, bus)
        for v in values:
            feeder.feed(v)
        feeder.close()
    elif mode == "phases" and len(sys.argv) >= 3:
        phases = [phase(a) for a in sys.argv[2:]]     # all checked before the first scan
        feeder = Lockstep(chip, bus, wait=120)        # a service under systemd may take a while to start
        for p in phases:
            if p[0] == "values":
                for v in p[1]:
                    feeder.feed(v)
                continue
            deadline = time.monotonic() + 300
            while not os.path.exists(p[2]):
                if time.monotonic() > deadline:
                    feeder.close()
                    sys.exit("feed.py: %s did not appear in 300 s" % p[2])
                feeder.feed(p[1])
                time.sleep(0.004)            # about 250 scans/s: the guest's one CPU is shared with the waiter
        feeder.close()
    elif mode == "ramp" and len(sys.argv) == 3:
        end = time.monotonic() + float(sys.argv[2])
        i = 0
        while time.monotonic() < end:
            chip.put(i)
            i = (i + 1) & 0x7FFF
            time.sleep(0.001)
    elif mode == "set" and len(sys.argv) == 3:
        chip.put(int(sys.argv[2]))
    else:
        sys.exit(__doc__)


main()
