import ForceStageCore
import ForceStageFormats
#if canImport(Glibc)
import Glibc
#endif

/// One record of the kernel's input event stream (struct input_event on 64-bit Linux:
/// timeval, type, code, value; 24 bytes).
public struct InputEventRecord: Equatable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    public init(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        self.type = type
        self.code = code
        self.value = value
    }
    /// The size of struct input_event on this platform.
    public static let size = MemoryLayout<timeval>.size + 8
}

/// How force and gestures become input events: `ABS_PRESSURE` in millinewtons,
/// `BTN_TOUCH` while pressed, each gesture's key down from its event until release.
/// Pure state, no I/O: what the device writes is exactly what this returns.
///
/// Room for position: a multi-cell panel's centroid becomes `ABS_X`/`ABS_Y`
/// written before the pressure in the same report (the capability bits and
/// ranges are set up in ``UInputDevice`` beside `ABS_PRESSURE`).
public struct UInputEncoder: Sendable {
    /// The key mapping.
    public let settings: UInputSettings
    /// `ABS_PRESSURE`'s maximum, millinewtons.
    public let pressureMax: Int32
    /// Pressure counts per newton (the range's resolution).
    public static let countsPerNewton: Float = 1000
    private var touching = false
    private var down: [UInt16] = []

    /// An encoder for `settings`, the pressure range topping out at `maxNewtons`.
    public init(settings: UInputSettings, maxNewtons: Float) {
        self.settings = settings
        pressureMax = Int32(min(Float(Int32.max / 2), max(1, (maxNewtons * Self.countsPerNewton).rounded())))
        down.reserveCapacity(3)
    }

    /// The force as a pressure value, clamped to the range.
    public func pressure(_ newtons: Float) -> Int32 {
        guard newtons.isFinite else { return 0 }
        return min(pressureMax, max(0, Int32(max(0, min(Float(pressureMax), (newtons * Self.countsPerNewton).rounded())))))
    }

    /// The records for one classifier event, ending with `SYN_REPORT`; empty when the
    /// event changes nothing an input reader sees (health events, a release with nothing down).
    public mutating func encode(_ event: ForceEvent) -> [InputEventRecord] {
        var out: [InputEventRecord] = []
        func press(_ key: UInt16?) {
            guard let key, !down.contains(key) else { return }
            down.append(key)
            out.append(InputEventRecord(InputCodes.evKey, key, 1))
        }
        switch event.kind {
        case .peek, .pop, .hold:
            out.append(InputEventRecord(InputCodes.evAbs, InputCodes.absPressure, pressure(event.forceNewtons)))
            if !touching {
                touching = true
                out.append(InputEventRecord(InputCodes.evKey, InputCodes.btnTouch, 1))
            }
            press(event.kind == .peek ? settings.peek : event.kind == .pop ? settings.pop : settings.hold)
        case .release, .lost:
            // Lost: whatever was down must not stay down.
            guard touching || !down.isEmpty else { return [] }
            for key in down.reversed() { out.append(InputEventRecord(InputCodes.evKey, key, 0)) }
            down.removeAll(keepingCapacity: true)
            if touching { out.append(InputEventRecord(InputCodes.evKey, InputCodes.btnTouch, 0)) }
            touching = false
            out.append(InputEventRecord(InputCodes.evAbs, InputCodes.absPressure, 0))
        case .saturated, .stuck, .recovered:
            return []
        }
        out.append(InputEventRecord(InputCodes.evSyn, InputCodes.synReport, 0))
        return out
    }

    /// Every key this mapping can press (for the device's capabilities), BTN_TOUCH first.
    public var keys: [UInt16] {
        [InputCodes.btnTouch] + [settings.peek, settings.pop, settings.hold].compactMap { $0 }
    }
}

/// Serialises records as struct input_event (time zero: the kernel stamps uinput writes).
public func inputEventBytes(_ records: [InputEventRecord]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: records.count * InputEventRecord.size)
    let timeSize = MemoryLayout<timeval>.size
    for (i, r) in records.enumerated() {
        var base = i * InputEventRecord.size + timeSize
        for v in [UInt32(r.type), UInt32(r.code)] {
            bytes[base] = UInt8(v & 0xff); bytes[base + 1] = UInt8(v >> 8); base += 2
        }
        let v = UInt32(bitPattern: r.value)
        for k in 0..<4 { bytes[base + k] = UInt8((v >> (8 * UInt32(k))) & 0xff) }
    }
    return bytes
}

/// Linux ioctl numbers (asm-generic/ioctl.h): direction, size, type, number.
enum IoctlNumber {
    static func make(_ dir: UInt, _ type: UInt8, _ nr: UInt8, _ size: Int) -> UInt {
        (dir << 30) | (UInt(size) << 16) | (UInt(type) << 8) | UInt(nr)
    }
    static func io(_ type: UInt8, _ nr: UInt8) -> UInt { make(0, type, nr, 0) }
    static func iow(_ type: UInt8, _ nr: UInt8, _ size: Int) -> UInt { make(1, type, nr, size) }
    static func ior(_ type: UInt8, _ nr: UInt8, _ size: Int) -> UInt { make(2, type, nr, size) }
}

/// uinput's ioctls (linux/uinput.h).
enum UInputIoctl {
    static let u = UInt8(ascii: "U")
    static let devCreate = IoctlNumber.io(u, 1)
    static let devDestroy = IoctlNumber.io(u, 2)
    /// struct uinput_setup: input_id (4 x u16), name[80], u32 ff_effects_max = 92 bytes.
    static let devSetup = IoctlNumber.iow(u, 3, 92)
    /// struct uinput_abs_setup: u16 code, padding, input_absinfo (6 x s32) = 28 bytes.
    static let absSetup = IoctlNumber.iow(u, 4, 28)
    static let setEvBit = IoctlNumber.iow(u, 100, 4)
    static let setKeyBit = IoctlNumber.iow(u, 101, 4)
    static let setAbsBit = IoctlNumber.iow(u, 103, 4)
    static func getSysname(_ length: Int) -> UInt { IoctlNumber.make(2, u, 44, length) }
}

/// A virtual input device through `/dev/uinput`: created with exactly the
/// capabilities the mapping uses, named after the panel, destroyed on ``close()``.
/// `@unchecked`: written only on the sink thread; without the conformance the compiler's
/// region analysis ties the whole service to the scan loop it hands to its own thread.
public final class UInputDevice: @unchecked Sendable {
    private var fd: Int32
    private var encoder: UInputEncoder
    /// The name applications see.
    public let name: String
    /// The kernel's name for it (`input7`), from UI_GET_SYSNAME.
    public let sysname: String?
    /// Writes that failed (counted, never fatal: the socket and stdout carry on).
    public private(set) var writeFailures: Int64 = 0

    /// Creates the device. `pressureFuzzNewtons` and `flatNewtons` become the axis's fuzz and flat.
    public init(path: String = "/dev/uinput", name: String, settings: UInputSettings,
                maxNewtons: Float, fuzzNewtons: Float, flatNewtons: Float) throws(ServiceStartError) {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            let hint = e == ENOENT || e == ENODEV ? "this kernel has no uinput: load it (modprobe uinput) or build it in (CONFIG_INPUT_UINPUT)" :
                e == EACCES || e == EPERM ? "the service user needs write access to it (the Debian package's udev rule gives group forcestage 0660)" : "check the device node"
            throw ServiceStartError("cannot open \(path): \(String(cString: strerror(e))); \(hint)")
        }
        self.fd = fd
        self.name = name
        encoder = UInputEncoder(settings: settings, maxNewtons: maxNewtons)
        func check(_ what: String, _ r: Int32) throws(ServiceStartError) {
            if r < 0 {
                let e = errno
                Glibc.close(fd)
                throw ServiceStartError("uinput \(what) failed on \(path): \(String(cString: strerror(e))); is it a uinput device node?")
            }
        }
        try check("UI_SET_EVBIT EV_KEY", ioctl(fd, UInputIoctl.setEvBit, Int32(InputCodes.evKey)))
        try check("UI_SET_EVBIT EV_ABS", ioctl(fd, UInputIoctl.setEvBit, Int32(InputCodes.evAbs)))
        try check("UI_SET_EVBIT EV_SYN", ioctl(fd, UInputIoctl.setEvBit, Int32(InputCodes.evSyn)))
        for key in encoder.keys { try check("UI_SET_KEYBIT \(InputCodes.name(of: key))", ioctl(fd, UInputIoctl.setKeyBit, Int32(key))) }
        try check("UI_SET_ABSBIT ABS_PRESSURE", ioctl(fd, UInputIoctl.setAbsBit, Int32(InputCodes.absPressure)))
        // struct uinput_abs_setup { u16 code; (pad); s32 value, minimum, maximum, fuzz, flat, resolution }
        var abs = [Int32](repeating: 0, count: 7)
        abs[0] = Int32(InputCodes.absPressure)
        abs[3] = encoder.pressureMax
        abs[4] = encoder.pressure(fuzzNewtons)
        abs[5] = encoder.pressure(flatNewtons)
        abs[6] = Int32(UInputEncoder.countsPerNewton)
        try check("UI_ABS_SETUP ABS_PRESSURE", abs.withUnsafeMutableBytes { ioctl(fd, UInputIoctl.absSetup, $0.baseAddress!) })
        // struct uinput_setup { input_id { bustype, vendor, product, version }; char name[80]; u32 ff_effects_max }
        var setup = [UInt8](repeating: 0, count: 92)
        setup[0] = 0x06 // BUS_VIRTUAL
        setup[6] = 1 // version 1
        for (i, b) in name.utf8.prefix(79).enumerated() { setup[8 + i] = b }
        try check("UI_DEV_SETUP", setup.withUnsafeMutableBytes { ioctl(fd, UInputIoctl.devSetup, $0.baseAddress!) })
        try check("UI_DEV_CREATE", ioctl(fd, UInputIoctl.devCreate))
        var sys = [UInt8](repeating: 0, count: 64)
        let n = sys.withUnsafeMutableBytes { ioctl(fd, UInputIoctl.getSysname(64), $0.baseAddress!) }
        sysname = n >= 0 ? String(decoding: sys.prefix { $0 != 0 }, as: UTF8.self) : nil
    }

    /// The `/dev/input/eventN` node the kernel made for it, from sysfs.
    public var eventNode: String? {
        guard let sysname else { return nil }
        let dir = "/sys/devices/virtual/input/\(sysname)"
        let entries = PathText.directoryEntries(dir) ?? []
        return entries.first { $0.hasPrefix("event") }.map { "/dev/input/\($0)" }
    }

    /// Writes the records for one event; `false` when the write failed (counted).
    @discardableResult
    public func send(_ event: ForceEvent) -> Bool {
        let records = encoder.encode(event)
        guard !records.isEmpty, fd >= 0 else { return true }
        let bytes = inputEventBytes(records)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        if n != bytes.count { writeFailures += 1; return false }
        return true
    }

    /// Removes the device (UI_DEV_DESTROY) and closes the node.
    public func close() {
        guard fd >= 0 else { return }
        _ = ioctl(fd, UInputIoctl.devDestroy)
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
