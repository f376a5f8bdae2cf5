// A channel's decode in 32-bit lanes, for the block path: stored where the
// platform has it, nothing where it has not (a microcontroller's decoders
// stay as small as its scan step needs).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
/// Whether the block path reads a channel in 32-bit lanes, and its rails there.
@usableFromInline
internal struct _LaneRails: BitwiseCopyable, Sendable {
    /// Whether the block path reads this channel in 32-bit lanes: every raw
    /// value of the format is an `Int32` (a load of at most 32 bits, signed
    /// or of at most 31 bits) and the channel is a line in 32 bits
    /// (``_ChannelDecoder/line32``), so its column, comparison, rails and
    /// newtons are the scan step's exactly, on 16 lanes at once.
    @usableFromInline internal var lanes32 = false
    @usableFromInline internal var fits32: Bool
    /// The rails as `Int32`, where ``fits32``.
    @usableFromInline internal var low32: Int32
    @usableFromInline internal var high32: Int32
    /// The rails as one signed comparison a lane: `raw` is off both rails
    /// (`low < raw < high`) exactly where `raw &- railBase < railSpan`, that
    /// is where `raw - low - 1 < high - low - 1` unsigned, both sides moved
    /// by 2^31 so the comparison is signed (SSE2 has no unsigned one).
    @usableFromInline internal var railBase: Int32
    @usableFromInline internal var railSpan: Int32

    /// The lanes of a format whose values fit 32 bits or not, with rails `low` and `high`.
    internal init(fits32: Bool, low: Int64, high: Int64) {
        self.fits32 = fits32
        low32 = fits32 ? Int32(truncatingIfNeeded: low) : 0
        high32 = fits32 ? Int32(truncatingIfNeeded: high) : 0
        railBase = (low32 &+ 1) ^ Int32.min
        railSpan = (high32 &- low32 &- 1) ^ Int32.min
    }

    /// Takes the channel's line: the lanes hold it where it is a line in 32 bits.
    internal mutating func setLine(line32: Bool) { lanes32 = fits32 && line32 }
}

extension _ChannelDecoder {
    @inlinable internal var lanes32: Bool { _lanes.lanes32 }
    @inlinable internal var fits32: Bool { _lanes.fits32 }
    @inlinable internal var low32: Int32 { _lanes.low32 }
    @inlinable internal var high32: Int32 { _lanes.high32 }
    @inlinable internal var railBase: Int32 { _lanes.railBase }
    @inlinable internal var railSpan: Int32 { _lanes.railSpan }
}
#else
/// Nothing: the microcontrollers have no block path.
@usableFromInline
internal struct _LaneRails: BitwiseCopyable, Sendable {
    @inline(__always) internal init(fits32: Bool, low: Int64, high: Int64) {}
    @inline(__always) internal mutating func setLine(line32: Bool) {}
}
#endif
