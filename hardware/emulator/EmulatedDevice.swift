import Foundation
import ForceStageCore
import ForceStageFormats
import ForceStageFormatsURL
#if canImport(Glibc)
import Glibc
#endif

/// The kernel ABI of one IIO device as plain files: the sysfs directory and
/// the character device (a FIFO here), as the driver would present them.
public struct EmulatedDevice: Sendable {
    /// The merged description (recording over sensor).
    public let sensor: SensorDescription
    /// Scans per second the recording was made at.
    public let sampleRateHz: Double
    /// `/sys/bus/iio/devices/iio:deviceN`.
    public let directory: String
    /// `/dev/iio:deviceN`.
    public let node: String

    public init(sensor: SensorDescription, sampleRateHz: Double, id: String = "iio:device0",
                sysfsRoot: String = "/sys/bus/iio/devices", devRoot: String = "/dev") {
        self.sensor = sensor
        self.sampleRateHz = sampleRateHz
        self.directory = sysfsRoot + "/" + id
        self.node = devRoot + "/" + id
    }

    /// Every scan element: data channels, then the timestamp (id `timestamp`).
    public var scanElements: [(id: String, index: Int, format: ChannelFormat)] {
        var out = sensor.channels.map { (id: $0.id, index: $0.index, format: $0.format) }
        if let ts = sensor.timestampIndex {
            out.append((id: "timestamp", index: ts, format: try! ChannelFormat(parsing: "le:s64/64>>0")))
        }
        return out
    }

    private static func rateText(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }

    private static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(format: "%.9f", d)
    }

    /// Writes the sysfs tree and makes the FIFO.
    public func create() throws {
        let fm = FileManager.default
        try? fm.removeItem(atPath: directory)
        for sub in ["", "/scan_elements", "/buffer"] {
            try fm.createDirectory(atPath: directory + sub, withIntermediateDirectories: true)
        }
        func put(_ path: String, _ text: String) throws {
            let full = directory + "/" + path
            try fm.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        }
        try put("name", sensor.name + "\n")
        if let label = sensor.label { try put("label", label + "\n") }
        try put("current_timestamp_clock", "realtime\n")
        try put("buffer/enable", "0\n")
        try put("buffer/length", "2\n")
        try put("buffer/watermark", "1\n")
        try put("buffer/data_available", "0\n")
        try put("buffer/direction", "in\n")       // Linux 5.11+ (multiple buffers) has it
        let rate = Self.rateText(sampleRateHz)
        if sensor.samplingFrequency == .device { try put("sampling_frequency", rate + "\n") }
        for c in sensor.channels {
            try put("in_\(c.id)_raw", "\(c.raw)\n")
            if let s = c.scale { try put("in_\(c.id)_scale", Self.number(s) + "\n") }
            if let o = c.offset { try put("in_\(c.id)_offset", Self.number(o) + "\n") }
            if sensor.samplingFrequency == .perChannel { try put("in_\(c.id)_sampling_frequency", rate + "\n") }
        }
        for e in scanElements {
            try put("scan_elements/in_\(e.id)_en", "0\n")
            try put("scan_elements/in_\(e.id)_index", "\(e.index)\n")
            try put("scan_elements/in_\(e.id)_type", e.format.text + "\n")
        }
        for (path, text) in sensor.files { try put(path, text) }
        if sensor.files.contains(where: { $0.0 == "trigger/current_trigger" }) {
            // A triggered-buffer driver streams only through a trigger. The emulator plays a
            // board whose boot attached one: trigger0 beside the device, attached. It states no
            // rate (the scans are paced by the recording), so the device's own attributes or
            // --rate give it, as before.
            let trigger = (directory as NSString).deletingLastPathComponent + "/" + Self.triggerDirectory
            try? fm.removeItem(atPath: trigger)
            try fm.createDirectory(atPath: trigger, withIntermediateDirectories: true)
            try Data((Self.triggerName + "\n").utf8).write(to: URL(fileURLWithPath: trigger + "/name"))
            try put("trigger/current_trigger", Self.triggerName + "\n")
        }
        unlink(node)
        guard mkfifo(node, 0o660) == 0 else { throw POSIXFailure(operation: "mkfifo", path: node) }
    }

    /// The hrtimer trigger the emulator attaches to triggered-buffer devices, and its sysfs folder.
    public static let triggerName = "emulated-hrtimer"
    public static let triggerDirectory = "trigger0"

    /// Removes the device: the sysfs directory and the FIFO, as an unplugged device vanishes.
    public func remove() {
        try? FileManager.default.removeItem(atPath: directory)
        unlink(node)
    }

    /// Reads a sysfs value the way the kernel parses it: up to the first NUL or newline.
    public func read(_ path: String) -> String? {
        let fd = open(directory + "/" + path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 256)
        let n = Glibc.read(fd, &buf, buf.count)
        guard n >= 0 else { return nil }
        return String(decoding: buf[0..<n].prefix { $0 != 0 && $0 != 10 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// Whether `buffer/enable` reads 1.
    public var isEnabled: Bool { read("buffer/enable") == "1" }

    /// The watermark a reader set in `buffer/watermark`, as the kernel holds it: at least 1 (its
    /// default, `iio_buffer_init`) and at most `buffer/length` (`length_store` lowers it to the
    /// length). The kernel refuses other writes and keeps the value it had; text that does not
    /// parse here counts as that default. Read once at `buffer/enable`: the kernel refuses a
    /// change while the buffer is enabled.
    public var watermark: Int {
        guard let text = read("buffer/watermark"), let value = Int(text), value >= 1 else { return 1 }
        guard let lengthText = read("buffer/length"), let length = Int(lengthText), length >= 1 else { return value }
        return min(value, length)
    }

    /// The scan elements whose `*_en` reads 1, in scan index order.
    public func enabledElements() -> [(id: String, index: Int, format: ChannelFormat)] {
        scanElements.filter { read("scan_elements/in_\($0.id)_en") == "1" }.sorted { $0.index < $1.index }
    }

    /// The clock `current_timestamp_clock` selects.
    public var timestampClock: clockid_t {
        read("current_timestamp_clock") == "monotonic" ? CLOCK_MONOTONIC : CLOCK_REALTIME
    }
}
