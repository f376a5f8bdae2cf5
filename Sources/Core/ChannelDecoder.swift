/// One force channel's decode and calibration, fixed when the pipeline is
/// built: the load (a direct one for the common formats), the shifts, the
/// sign, the rails and the calibration line are worked out once, so a scan
/// costs a load, two shifts and a multiply per channel.
@usableFromInline
internal struct _ChannelDecoder: BitwiseCopyable, Sendable {
    /// How the stored word is read.
    @usableFromInline
    internal enum Load: UInt8, BitwiseCopyable, Sendable {
        /// `le:s16/16>>0`: one signed 16-bit load.
        case s16le
        /// `le:s32/32>>0`: one signed 32-bit load.
        case s32le
        /// `be:s24/32>>8`: a big-endian 32-bit load and an arithmetic shift.
        case s24be8
        /// Any other format of at most 32 bits: load, then two shifts.
        case narrow8, narrow16le, narrow16be, narrow32le, narrow32be
        /// 64-bit storage: the general ``ChannelFormat/decode(_:)``.
        case wide
    }

    @usableFromInline internal var load: Load
    @usableFromInline internal var signed: Bool
    /// Shifts for a narrow format: the value's top bit to bit 31, then down to bit 0.
    @usableFromInline internal var left: UInt32
    @usableFromInline internal var right: UInt32
    /// The byte offset of the channel in a scan.
    @usableFromInline internal var offset: Int
    /// The format's rails: a raw value at or beyond either is saturated.
    @usableFromInline internal var low: Int64
    @usableFromInline internal var high: Int64
    @usableFromInline internal var format: ChannelFormat
    /// Whether `raw - zero` fits 32 bits for every raw value the format holds,
    /// so the line is applied without 64-bit arithmetic (the same float: an
    /// integer converts to the same float whatever its width).
    @usableFromInline internal var line32: Bool
    @usableFromInline internal var zero32: Int32
    @usableFromInline internal var zero: Int64
    @usableFromInline internal var scale: Float
    /// The channel's curve points in the pipeline's flattened tables, or -1 for a line.
    @usableFromInline internal var curveFirst: Int32
    @usableFromInline internal var curveLast: Int32
    /// The block path's view of the channel in 32-bit lanes (its rails
    /// as one comparison a lane): stored where the platform has the block
    /// path, empty where it has not (FastPath/DecodeLaneRails.swift).
    @usableFromInline internal var _lanes: _LaneRails

    internal init(format: ChannelFormat, offset: Int) {
        self.format = format
        self.offset = offset
        signed = format.signed
        let real = UInt32(format.realBits), shift = UInt32(format.shift)
        // A 64-bit word is shifted in 64 bits (``_field(_:storageBits:bigEndian:signed:left:right:)``).
        let width: UInt32 = format.storageBits == 64 ? 64 : 32
        left = width &- shift &- real
        right = width &- real
        let big = format.bigEndian
        switch (format.storageBits, format.signed, format.realBits, format.shift, big) {
        case (16, true, 16, 0, false): load = .s16le
        case (32, true, 32, 0, false): load = .s32le
        case (32, true, 24, 8, true): load = .s24be8
        case (8, _, _, _, _): load = .narrow8
        case (16, _, _, _, false): load = .narrow16le
        case (16, _, _, _, true): load = .narrow16be
        case (32, _, _, _, false): load = .narrow32le
        case (32, _, _, _, true): load = .narrow32be
        default: load = .wide
        }
        low = format.minimumRaw
        high = format.maximumRaw
        line32 = false
        zero32 = 0
        zero = 0
        scale = 0
        curveFirst = -1
        curveLast = -1
        _lanes = _LaneRails(fits32: load != .wide && (signed || real < 32), low: low, high: high)
    }

    /// Sets the line `(raw - zero) * scale`.
    internal mutating func setLine(zero: Int64, scale: Float) {
        self.zero = zero
        self.scale = scale
        let (below, o1) = low.subtractingReportingOverflow(zero)
        let (above, o2) = high.subtractingReportingOverflow(zero)
        line32 = !o1 && !o2 && below >= Int64(Int32.min) && above <= Int64(Int32.max)
        zero32 = line32 ? Int32(truncatingIfNeeded: zero) : 0
        _lanes.setLine(line32: line32)
    }

    /// The raw value of this channel in `scan`: exactly ``ChannelFormat/decode(_:)``.
    @inlinable @inline(__always)
    internal func raw(_ scan: UnsafeRawPointer) -> Int64 {
        let p = scan + offset
        switch load {
        case .s16le: return Int64(Int16(littleEndian: p.loadUnaligned(as: Int16.self)))
        case .s32le: return Int64(Int32(littleEndian: p.loadUnaligned(as: Int32.self)))
        case .s24be8: return Int64(Int32(bigEndian: p.loadUnaligned(as: Int32.self)) &>> 8)
        case .narrow8: return narrow(UInt32(p.load(as: UInt8.self)))
        case .narrow16le: return narrow(UInt32(UInt16(littleEndian: p.loadUnaligned(as: UInt16.self))))
        case .narrow16be: return narrow(UInt32(UInt16(bigEndian: p.loadUnaligned(as: UInt16.self))))
        case .narrow32le: return narrow(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
        case .narrow32be: return narrow(UInt32(bigEndian: p.loadUnaligned(as: UInt32.self)))
        case .wide: return _ChannelDecoder._field(p, storageBits: 64, bigEndian: format.bigEndian, signed: signed, left: left, right: right)
        }
    }

    /// The field of a word of any storage width, in 64 bits: exactly
    /// ``ChannelFormat/decode(_:)`` (`left` = 64 − shift − realbits puts the
    /// field's top bit at bit 63, `right` = 64 − realbits brings it down,
    /// sign- or zero-extended). Out of line and on scalars, so the scan step
    /// (inlined into `process(scan:into:)`) holds no copy of a format and,
    /// on a 32-bit target, no 64-bit shifts for formats the common boards
    /// never use (a 64-bit channel, a timestamp other than `le:s64`).
    @usableFromInline @inline(never)
    internal static func _field(_ p: UnsafeRawPointer, storageBits: UInt8, bigEndian: Bool, signed: Bool,
                                left: UInt32, right: UInt32) -> Int64 {
        var bits: UInt64
        switch storageBits {
        case 8:
            bits = UInt64(p.load(as: UInt8.self))
        case 16:
            let v = p.loadUnaligned(as: UInt16.self)
            bits = UInt64(bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
        case 32:
            let v = p.loadUnaligned(as: UInt32.self)
            bits = UInt64(bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        default:
            let v = p.loadUnaligned(as: UInt64.self)
            bits = bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
        }
        let up = bits &<< UInt64(left)
        return signed ? Int64(bitPattern: up) &>> Int64(right) : Int64(bitPattern: up &>> UInt64(right))
    }

    /// The field of a word of at most 32 bits, sign- or zero-extended: two shifts.
    @inlinable @inline(__always)
    internal func narrow(_ bits: UInt32) -> Int64 {
        let up = bits &<< left
        let arithmetic = Int64(Int32(bitPattern: up) &>> Int32(bitPattern: right))
        let logical = Int64(up &>> right)
        return signed ? arithmetic : logical
    }

    /// Whether `raw` is on a rail of the format.
    @inlinable @inline(__always)
    internal func railed(_ raw: Int64) -> Bool { raw <= low || raw >= high }

    /// The line's newtons for `raw` (a channel without a curve).
    @inlinable @inline(__always)
    internal func line(_ raw: Int64) -> Float {
        line32 ? Float(Int32(truncatingIfNeeded: raw) &- zero32) * scale : Float(raw &- zero) * scale
    }
}

/// The timestamp channel's decode, fixed when the pipeline is built.
@usableFromInline
internal struct _TimestampDecoder: BitwiseCopyable, Sendable {
    /// Whether the scans carry a timestamp (otherwise it comes from the sample rate).
    @usableFromInline internal let present: Bool
    /// `le:s64/64>>0`, the kernel's timestamp format: one 64-bit load.
    @usableFromInline internal let direct: Bool
    @usableFromInline internal let offset: Int
    @usableFromInline internal let format: ChannelFormat
    /// The general decode's shifts (see ``_ChannelDecoder/_field(_:storageBits:bigEndian:signed:left:right:)``).
    @usableFromInline internal let left: UInt32
    @usableFromInline internal let right: UInt32

    internal init(layout: ScanLayout, slot: Int?) {
        let channel = layout[slot ?? 0]
        present = slot != nil
        offset = channel.offset
        format = channel.format
        direct = !format.bigEndian && format.signed && format.realBits == 64 && format.shift == 0
        left = 64 &- UInt32(format.shift) &- UInt32(format.realBits)
        right = 64 &- UInt32(format.realBits)
    }

    /// The timestamp of `scan`, or `sample × periodNs` when the scans carry none.
    @inlinable @inline(__always)
    internal func stamp(_ scan: UnsafeRawPointer, sample: Int64, periodNs: Int64) -> Int64 {
        guard present else { return sample &* periodNs }
        if direct { return Int64(littleEndian: (scan + offset).loadUnaligned(as: Int64.self)) }
        return _ChannelDecoder._field(scan + offset, storageBits: format.storageBits, bigEndian: format.bigEndian,
                                      signed: format.signed, left: left, right: right)
    }
}
