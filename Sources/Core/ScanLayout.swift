/// Why a set of channels cannot form a scan layout.
public enum LayoutError: Error, Equatable, Sendable {
    /// No channel was given.
    case empty
    /// More channels than ``ScanLayout/maximumChannels``.
    case tooManyChannels(Int)
    /// Two channels claim the same scan index.
    case duplicateIndex(Int)
    /// A scan index is negative or beyond what the kernel assigns.
    case indexOutOfRange(Int)

}

/// One channel as it appears in a scan: its scan index, format and byte offset.
public struct ScanChannel: Equatable, BitwiseCopyable, Sendable {
    /// The channel's `scan_elements/*_index`.
    public var index: Int
    /// The channel's storage format.
    public var format: ChannelFormat
    /// Byte offset of the channel's storage inside a scan.
    public var offset: Int
}

/// Where each enabled channel sits in a scan, by the kernel's rule: channels
/// in ascending scan index, each aligned to its own storage size, the scan
/// rounded up to the largest storage size in it.
public struct ScanLayout: Equatable, Sendable {
    /// The most channels one scan may hold.
    public static let maximumChannels = 16
    /// The largest scan index accepted.
    public static let maximumIndex = 1023

    @usableFromInline internal var _channels: InlineArray<16, ScanChannel>
    /// The number of channels in a scan.
    public let count: Int
    /// Bytes per scan, padding included.
    public let scanSize: Int

    /// Lays out `channels` (scan index and format each), in any order.
    ///
    /// - Complexity: O(n²) in the number of channels, at most 16.
    public init<S: Sequence>(_ channels: S) throws(LayoutError)
    where S.Element == (index: Int, format: ChannelFormat) {
        let filler = ScanChannel(index: 0, format: try! ChannelFormat(bigEndian: false, signed: false, realBits: 8, storageBits: 8, shift: 0), offset: 0)
        var slots = InlineArray<16, ScanChannel>(repeating: filler)
        var n = 0
        for channel in channels {
            guard channel.index >= 0 && channel.index <= ScanLayout.maximumIndex else {
                throw .indexOutOfRange(channel.index)
            }
            guard n < ScanLayout.maximumChannels else { throw .tooManyChannels(n + 1) }
            // Insertion in ascending scan index order.
            var position = n
            for i in 0..<n {
                if slots[i].index == channel.index { throw .duplicateIndex(channel.index) }
            }
            while position > 0 && slots[position - 1].index > channel.index {
                slots[position] = slots[position - 1]
                position -= 1
            }
            slots[position] = ScanChannel(index: channel.index, format: channel.format, offset: 0)
            n += 1
        }
        guard n > 0 else { throw .empty }
        var offset = 0
        var widest = 1
        for i in 0..<n {
            let size = slots[i].format.storageBytes
            offset = (offset + size - 1) / size * size
            slots[i].offset = offset
            offset += size
            widest = max(widest, size)
        }
        self._channels = slots
        self.count = n
        self.scanSize = (offset + widest - 1) / widest * widest
    }

    public static func == (lhs: ScanLayout, rhs: ScanLayout) -> Bool {
        guard lhs.count == rhs.count, lhs.scanSize == rhs.scanSize else { return false }
        for i in 0..<lhs.count where lhs._channels[i] != rhs._channels[i] { return false }
        return true
    }

    /// The channel in position `slot` (0 is the lowest scan index).
    @inlinable
    public subscript(slot: Int) -> ScanChannel {
        precondition(slot >= 0 && slot < count, "ScanLayout slot out of range")
        return _channels[slot]
    }

    /// The slot of the channel with scan index `index`, if present.
    public func slot(forIndex index: Int) -> Int? {
        for i in 0..<count where _channels[i].index == index { return i }
        return nil
    }
}
