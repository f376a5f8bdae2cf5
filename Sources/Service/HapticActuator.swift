import ForceStageClock
import ForceStageIIO
import ForceStageFormats
#if canImport(Glibc)
import Glibc
#endif

/// An actuator behind the kernel's force-feedback interface: one effect uploaded
/// with EVIOCSFF at start, played by writing an EV_FF event, removed on ``close()``.
/// `@unchecked`: written only on the sink thread; without the conformance the compiler's
/// region analysis ties the whole service to the scan loop it hands to its own thread.
public final class HapticActuator: @unchecked Sendable {
    private var fd: Int32
    private var effectID: Int16 = -1
    /// The evdev node.
    public let path: String
    /// What was uploaded.
    public let settings: HapticsSettings
    /// Plays that failed (counted; events still go out).
    public private(set) var playFailures: Int64 = 0

    static let ffRumble: UInt16 = 0x50
    static let ffPeriodic: UInt16 = 0x51
    static let ffSine: UInt16 = 0x5a
    static let e = UInt8(ascii: "E")
    /// struct ff_effect is 48 bytes on 64-bit Linux.
    static let effectSize = 48
    static let setFF = IoctlNumber.iow(e, 0x80, effectSize)
    static let removeFF = IoctlNumber.iow(e, 0x81, 4)
    static func getBits(_ ev: UInt16, _ length: Int) -> UInt { IoctlNumber.make(2, e, UInt8(0x20 + ev), length) }

    /// Opens `settings.device`, checks it can play the effect and uploads it.
    public init(_ settings: HapticsSettings) throws(ServiceStartError) {
        self.settings = settings
        path = settings.device
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let err = errno
            throw ServiceStartError("cannot open the haptics device \(path) ([haptics] device): \(String(cString: strerror(err))); "
                + (err == EACCES ? "the service user needs read/write access to it" : "name the actuator's /dev/input/event node"), status: .badInput)
        }
        self.fd = fd
        let wanted = settings.effect == .rumble ? Self.ffRumble : Self.ffPeriodic
        var bits = [UInt8](repeating: 0, count: 16)
        let n = bits.withUnsafeMutableBytes { ioctl(fd, Self.getBits(InputCodes.evFF, 16), $0.baseAddress!) }
        let supported = n > 0 && bits[Int(wanted) / 8] & (1 << (wanted % 8)) != 0
        guard supported else {
            Glibc.close(fd)
            throw ServiceStartError("\(path) cannot play \(settings.effect == .rumble ? "FF_RUMBLE" : "FF_PERIODIC") effects; "
                + "set [haptics] effect to the one its driver offers, or name the actuator's event node", status: .badInput)
        }
        var effect = [UInt8](repeating: 0, count: Self.effectSize)
        func put16(_ offset: Int, _ v: UInt16) { effect[offset] = UInt8(v & 0xff); effect[offset + 1] = UInt8(v >> 8) }
        put16(0, wanted)
        put16(2, UInt16(bitPattern: -1)) // a new effect
        put16(10, settings.durationMs) // replay.length
        let magnitude = UInt16(min(Float(UInt16.max), max(0, settings.strength * Float(UInt16.max))).rounded())
        if settings.effect == .rumble {
            put16(16, magnitude) // strong_magnitude
            put16(18, magnitude / 2) // weak_magnitude
        } else {
            put16(16, Self.ffSine)
            put16(18, settings.periodMs)
            put16(20, UInt16(bitPattern: Int16(min(Int(Int16.max), Int(magnitude) / 2))))
        }
        let r = effect.withUnsafeMutableBytes { ioctl(fd, Self.setFF, $0.baseAddress!) }
        guard r >= 0 else {
            let err = errno
            Glibc.close(fd)
            throw ServiceStartError("uploading the haptic effect to \(path) failed (EVIOCSFF): \(String(cString: strerror(err)))", status: .badInput)
        }
        effectID = Int16(bitPattern: UInt16(effect[2]) | UInt16(effect[3]) << 8)
    }

    /// Plays the effect once; returns nanoseconds from the call to the write returning, or `nil` when it failed.
    @discardableResult
    public func play() -> Int64? {
        guard fd >= 0 else { return nil }
        let start = monotonicNanoseconds()
        let bytes = inputEventBytes([InputEventRecord(InputCodes.evFF, UInt16(bitPattern: effectID), 1)])
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        let end = monotonicNanoseconds()
        guard n == bytes.count else { playFailures += 1; return nil }
        return end &- start
    }

    /// Removes the effect and closes the node.
    public func close() {
        guard fd >= 0 else { return }
        if effectID >= 0 { _ = ioctl(fd, Self.removeFF, Int32(effectID)) }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
