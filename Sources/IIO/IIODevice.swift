import CIIO
#if canImport(Glibc)
import Glibc
#endif

/// A device of an ``IIOContext``. It keeps its context alive; libiio owns the
/// device itself, so there is nothing to destroy.
public struct IIODevice {
    /// The context that owns the device.
    public let context: IIOContext
    @usableFromInline internal let pointer: OpaquePointer

    internal init(context: IIOContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    /// The id, e.g. `iio:device0`. Calls `iio_device_get_id`.
    public var id: String { String(cString: iio_device_get_id(pointer)) }
    /// The driver's name (`hx711`, `ads1015`), if any. Calls `iio_device_get_name`.
    public var name: String? { iio_device_get_name(pointer).map { String(cString: $0) } }
    /// The board's label for the device, if any. Calls `iio_device_get_label`.
    public var label: String? { iio_device_get_label(pointer).map { String(cString: $0) } }
    /// `name (label, id)` for messages.
    public var displayName: String {
        var s = name ?? id
        s += label.map { " (\($0), \(id))" } ?? " (\(id))"
        return s
    }
    /// Whether this is a trigger rather than a data device. Calls `iio_device_is_trigger`.
    public var isTrigger: Bool { iio_device_is_trigger(pointer) }

    /// Every channel. Calls `iio_device_get_channels_count` and `iio_device_get_channel`.
    public var channels: [IIOChannel] {
        (0..<iio_device_get_channels_count(pointer)).compactMap { i in
            iio_device_get_channel(pointer, i).map { IIOChannel(device: self, pointer: $0) }
        }
    }

    /// Input voltage channels that are scan elements: what carries force.
    public var forceChannels: [IIOChannel] {
        channels.filter { $0.isScanElement && !$0.isOutput && $0.kind == .voltage }
    }

    /// The timestamp scan element, if the device has one.
    public var timestampChannel: IIOChannel? {
        channels.first { $0.isScanElement && $0.isTimestamp }
    }

    /// The input channel with id (or name) `id`. Calls `iio_device_find_channel`.
    public func channel(_ id: String) -> IIOChannel? {
        iio_device_find_channel(pointer, id, false).map { IIOChannel(device: self, pointer: $0) }
    }

    // MARK: - Attributes

    /// Whether the device has a top-level attribute. Calls `iio_device_find_attr`.
    public func hasAttribute(_ name: String) -> Bool { iio_device_find_attr(pointer, name) != nil }

    /// Reads a device attribute. Calls `iio_device_attr_read`.
    public func attribute(_ name: String) -> Result<String, IIOError> {
        var buffer = [CChar](repeating: 0, count: 1024)
        let n = iio_device_attr_read(pointer, name, &buffer, buffer.count)
        if n < 0 { return .failure(IIOError(code: Int32(n), operation: "iio_device_attr_read(\(id), \(name))")) }
        return .success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingTrailingWhitespace())
    }

    /// Writes a device attribute. Calls `iio_device_attr_write`.
    public func setAttribute(_ name: String, _ value: String) throws(IIOError) {
        let n = iio_device_attr_write(pointer, name, value)
        if n < 0 { throw IIOError(code: Int32(n), operation: "iio_device_attr_write(\(id), \(name), \(value))") }
    }

    /// Sets how many buffers the kernel queues; must precede buffer creation.
    /// Calls `iio_device_set_kernel_buffers_count`.
    public func setKernelBuffersCount(_ count: Int) throws(IIOError) {
        let r = iio_device_set_kernel_buffers_count(pointer, UInt32(clamping: count))
        if r < 0 { throw IIOError(code: r, operation: "iio_device_set_kernel_buffers_count(\(id), \(count))") }
    }

    /// Bytes per scan of the enabled channels. Calls `iio_device_get_sample_size`.
    public func scanSize() -> Result<Int, IIOError> {
        iioResult(iio_device_get_sample_size(pointer), "iio_device_get_sample_size(\(id))")
    }

    /// Scans per second: the device's `sampling_frequency`, else the first force
    /// channel's (`in_voltage_sampling_frequency` and the like), else `nil`.
    /// Calls `iio_device_attr_read` / `iio_channel_attr_read`.
    public var samplingFrequency: Double? {
        if hasAttribute("sampling_frequency"), case .success(let text) = attribute("sampling_frequency"),
           let value = Double(text), value > 0 {
            return value
        }
        for channel in forceChannels where channel.hasAttribute("sampling_frequency") {
            if case .success(let text) = channel.attribute("sampling_frequency"), let value = Double(text), value > 0 {
                return value
            }
        }
        return nil
    }

    /// Asks for monotonic timestamps where the driver lets us; ignored where
    /// it has no `current_timestamp_clock` or refuses the write.
    /// Calls `iio_device_attr_write`.
    /// - Returns: whether the clock is now `monotonic`.
    @discardableResult
    public func useMonotonicTimestamps() -> Bool {
        guard hasAttribute("current_timestamp_clock") else { return false }
        if case .success(let current) = attribute("current_timestamp_clock"), current == "monotonic" { return true }
        do { try setAttribute("current_timestamp_clock", "monotonic") } catch { return false }
        if case .success(let current) = attribute("current_timestamp_clock") { return current == "monotonic" }
        return false
    }
}

extension String {
    internal func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == " " || last == "\t" || last == "\r" || last == "\0" { s.removeLast() }
        return String(s)
    }
}
