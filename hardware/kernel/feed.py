#!/usr/bin/env python3
"""Puts values into the stub ADS1115's conversion register, inside the guest.

  feed.py lockstep VALUES   one value per scan, in step with the reader: for each
                            value, write it, fire sysfstrig0, and wait until the
                            driver has read register 0 (ftrace smbus_result);
                            fires again when the kernel dropped the trigger, and
                            waits while the kfifo is nearly full.
  feed.py ramp SECONDS      writes 0, 1, 2, ... about once a millisecond (hrtimer runs).
  feed.py set VALUE         writes one value.

VALUES is a file of whitespace-separated signed 16-bit integers. Waits up to
30 s for the device's buffer to be enabled first (lockstep). Reads
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


def lockstep(chip, bus, values):
    dev = os.environ["FORCESTAGE_IIO_DEVICE"]
    trig = os.environ["FORCESTAGE_SYSFS_TRIGGER"]
    deadline = time.monotonic() + 30
    while attr(dev + "/buffer/enable") != "1":
        if time.monotonic() > deadline:
            sys.exit("feed.py: %s/buffer/enable never became 1 in 30 s; is the reader attached to sysfstrig0?" % dev)
        time.sleep(0.02)
    event = TRACE + "/events/smbus/smbus_result/"
    with open(event + "filter", "w") as f:
        f.write("adapter_nr == %d && addr == 0x48 && read_write == 1 && command == 0" % bus)
    with open(event + "enable", "w") as f:
        f.write("1")
    pipe = os.open(TRACE + "/trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
    fire = os.open(trig + "/trigger_now", os.O_WRONLY)
    length = int(attr(dev + "/buffer/length"))
    refired = waited = 0
    started = time.monotonic()

    def driver_read(seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                return False
            try:
                if b"smbus_result" in os.read(pipe, 65536):
                    return True
            except BlockingIOError:
                pass

    for v in values:
        chip.put(v)
        while int(attr(dev + "/buffer/data_available")) > length - 2:
            waited += 1
            time.sleep(0.001)
        while True:
            os.write(fire, b"1")
            if driver_read(0.05):
                break
            refired += 1                     # the kernel dropped a trigger that came too soon
    with open(event + "enable", "w") as f:
        f.write("0")
    print("feed.py: %d values in %.2f s, %d triggers fired again, %d waits for a full kfifo"
          % (len(values), time.monotonic() - started, refired, waited), file=sys.stderr)


def main():
    bus = int(os.environ["FORCESTAGE_I2C_BUS"])
    chip = Chip(bus)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "lockstep" and len(sys.argv) == 3:
        with open(sys.argv[2]) as f:
            values = [int(x) for x in f.read().split()]
        bad = [v for v in values if not -32768 <= v <= 32767]
        if bad:
            sys.exit("feed.py: %s holds %d outside -32768...32767" % (sys.argv[2], bad[0]))
        lockstep(chip, bus, values)
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
