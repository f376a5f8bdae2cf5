import CIIO
import ForceStageCore

/// A channel of an ``IIODevice``. libiio owns it; the value keeps the device's context alive.
public struct IIOChannel {
    /// What a channel measures, as far as ForceStage cares.
    public enum Kind: Equatable, Sendable {
        case voltage, timestamp, other
    }

    /// The device the channel belongs to.
    public let device: IIODevice
    @usableFromInline internal let pointer: OpaquePointer

    internal init(device: IIODevice, pointer: OpaquePointer) {
        self.device = device
        self.pointer = pointer
    }

    /// The id, e.g. `voltage0`, `voltage0-voltage1`, `timestamp`. Calls `iio_channel_get_id`.
    public var id: String { String(cString: iio_channel_get_id(pointer)) }
    /// Output (DAC) rather than input. Calls `iio_channel_is_output`.
    public var isOutput: Bool { iio_channel_is_output(pointer) }
    /// Whether the channel can be streamed through a buffer. Calls `iio_channel_is_scan_element`.
    public var isScanElement: Bool { iio_channel_is_scan_element(pointer) }
    /// The scan index (`scan_elements/*_index`), or -1 when not a scan element. Calls `iio_channel_get_index`.
    public var scanIndex: Int { Int(iio_channel_get_index(pointer)) }
    /// Voltage, timestamp or something else. Calls `iio_channel_get_type`.
    public var kind: Kind {
        let type = iio_channel_get_type(pointer)
        if type == IIO_VOLTAGE { return .voltage }
        if type == IIO_TIMESTAMP { return .timestamp }
        return id == "timestamp" ? .timestamp : .other
    }
    /// Whether this is the timestamp channel.
    public var isTimestamp: Bool { kind == .timestamp }

    /// The storage format of a scan element, from `iio_channel_get_data_format`.
    ///
    /// - Throws: ``FormatError`` when libiio describes something ForceStage
    ///   does not decode (repeats, odd storage sizes).
    public func format() throws(FormatError) -> ChannelFormat {
        let f = iio_channel_get_data_format(pointer)!.pointee
        if f.repeat > 1 { throw .repeatUnsupported }
        return try ChannelFormat(bigEndian: f.is_be, signed: f.is_signed, realBits: Int(f.bits),
                                 storageBits: Int(f.length), shift: Int(f.shift))
    }

    /// Whether the channel has an attribute (`raw`, `scale`, ...). Calls `iio_channel_find_attr`.
    public func hasAttribute(_ name: String) -> Bool { iio_channel_find_attr(pointer, name) != nil }

    /// Reads a channel attribute as text. Calls `iio_channel_attr_read`.
    public func attribute(_ name: String) -> Result<String, IIOError> {
        var buffer = [CChar](repeating: 0, count: 1024)
        let n = iio_channel_attr_read(pointer, name, &buffer, buffer.count)
        if n < 0 { return .failure(IIOError(code: Int32(n), operation: "iio_channel_attr_read(\(id), \(name))")) }
        return .success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingTrailingWhitespace())
    }

    /// Reads a numeric attribute; `nil` when absent or not a number. Calls `iio_channel_attr_read_double`.
    public func doubleAttribute(_ name: String) -> Double? {
        guard hasAttribute(name) else { return nil }
        var value = 0.0
        return iio_channel_attr_read_double(pointer, name, &value) == 0 ? value : nil
    }

    /// `scale`: units per count, as sysfs gives it.
    public var scale: Double? { doubleAttribute("scale") }
    /// `offset`: counts added before scaling, as sysfs gives it.
    public var offset: Double? { doubleAttribute("offset") }

    /// Marks the channel for the next buffer. Calls `iio_channel_enable`.
    public func enable() { iio_channel_enable(pointer) }
    /// Unmarks the channel. Calls `iio_channel_disable`.
    public func disable() { iio_channel_disable(pointer) }
    /// Whether the channel is marked. Calls `iio_channel_is_enabled`.
    public var isEnabled: Bool { iio_channel_is_enabled(pointer) }
}
