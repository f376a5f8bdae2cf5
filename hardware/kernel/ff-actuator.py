#!/usr/bin/env python3
"""A stand-in haptic actuator, inside the guest: a uinput device with EV_FF and
FF_RUMBLE (the interface a real actuator's driver offers), whose effect uploads,
plays and erasures come back to this process, which logs them.

  ff-actuator.py LOG     creates the device, prints its /dev/input/eventN on
                         stdout (one line), then appends one line to LOG per
                         request until SIGTERM, when it removes the device.

LOG lines (t = the kernel's CLOCK_MONOTONIC stamp of the request, seconds):
  upload id=0 type=0x50 length_ms=20 strong=65535 weak=32767 t=...
  play id=0 value=1 t=...          (value 0: stop)
  erase id=0 t=...
Exit: 0 after SIGTERM; 1 when /dev/uinput is missing or refuses the device.
"""
import fcntl, os, select, signal, struct, sys, time

def ioc(d, nr, size):
    return (d << 30) | (size << 16) | (ord("U") << 8) | nr

UI_DEV_CREATE, UI_DEV_DESTROY = ioc(0, 1, 0), ioc(0, 2, 0)
UI_DEV_SETUP = ioc(1, 3, 92)                 # struct uinput_setup
UI_SET_EVBIT, UI_SET_FFBIT = ioc(1, 100, 4), ioc(1, 107, 4)
UI_GET_SYSNAME = ioc(2, 44, 64)
UI_BEGIN_FF_UPLOAD, UI_END_FF_UPLOAD = ioc(3, 200, 104), ioc(1, 201, 104)   # struct uinput_ff_upload
UI_BEGIN_FF_ERASE, UI_END_FF_ERASE = ioc(3, 202, 12), ioc(1, 203, 12)      # struct uinput_ff_erase
EV_FF, FF_RUMBLE, EV_UINPUT, UI_FF_UPLOAD, UI_FF_ERASE = 0x15, 0x50, 0x0101, 1, 2
EVENT = struct.Struct("@qqHHi")              # struct input_event on 64-bit: timeval, type, code, value

def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ff-actuator.py LOG")
    try:
        fd = os.open("/dev/uinput", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(fd, UI_SET_EVBIT, EV_FF)
        fcntl.ioctl(fd, UI_SET_FFBIT, FF_RUMBLE)
        name = b"forcestage-guest-actuator"
        # input_id {bus BUS_VIRTUAL, vendor, product, version}, name[80], ff_effects_max
        fcntl.ioctl(fd, UI_DEV_SETUP, struct.pack("@4H80sI", 0x06, 0, 0, 1, name, 4))
        fcntl.ioctl(fd, UI_DEV_CREATE)
        sysname = fcntl.ioctl(fd, UI_GET_SYSNAME, bytes(64)).split(b"\0")[0].decode()
    except OSError as e:
        sys.exit("ff-actuator.py: cannot create the uinput force-feedback device: %s (modprobe uinput?)" % e)
    node = None
    for _ in range(200):
        ev = [n for n in os.listdir("/sys/devices/virtual/input/" + sysname) if n.startswith("event")]
        if ev and os.path.exists("/dev/input/" + ev[0]):
            node = "/dev/input/" + ev[0]
            break
        time.sleep(0.01)
    if node is None:
        sys.exit("ff-actuator.py: %s got no /dev/input/event node in 2 s" % sysname)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print(node, flush=True)
    with open(sys.argv[1], "a", buffering=1) as log:
        while not stop:
            try:
                ready, _, _ = select.select([fd], [], [], 0.1)
            except InterruptedError:
                continue
            if not ready:
                continue
            try:
                data = os.read(fd, EVENT.size * 16)
            except BlockingIOError:
                continue
            for off in range(0, len(data) - EVENT.size + 1, EVENT.size):
                sec, usec, typ, code, value = EVENT.unpack_from(data, off)
                t = "%d.%06d" % (sec, usec)
                if typ == EV_FF:
                    log.write("play id=%d value=%d t=%s\n" % (code, value, t))
                elif typ == EV_UINPUT and code == UI_FF_UPLOAD:
                    req = bytearray(struct.pack("@Ii", value, 0) + bytes(96))
                    fcntl.ioctl(fd, UI_BEGIN_FF_UPLOAD, req)
                    # struct ff_effect: type, id, direction, trigger{2}, replay{length, delay}, union at 16
                    etype, eid = struct.unpack_from("@Hh", req, 8)
                    length, = struct.unpack_from("@H", req, 8 + 10)
                    strong, weak = struct.unpack_from("@HH", req, 8 + 16)
                    struct.pack_into("@i", req, 4, 0)
                    fcntl.ioctl(fd, UI_END_FF_UPLOAD, bytes(req))
                    log.write("upload id=%d type=0x%x length_ms=%d strong=%d weak=%d t=%s\n" % (eid, etype, length, strong, weak, t))
                elif typ == EV_UINPUT and code == UI_FF_ERASE:
                    req = bytearray(struct.pack("@IiI", value, 0, 0))
                    fcntl.ioctl(fd, UI_BEGIN_FF_ERASE, req)
                    eid, = struct.unpack_from("@I", req, 8)
                    struct.pack_into("@i", req, 4, 0)
                    fcntl.ioctl(fd, UI_END_FF_ERASE, bytes(req))
                    log.write("erase id=%d t=%s\n" % (eid, t))
    fcntl.ioctl(fd, UI_DEV_DESTROY)
    os.close(fd)

main()
