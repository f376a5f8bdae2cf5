// The block path's column decode: one channel's raw values in 16 scans at
// once, the format's switch taken once a column. Hosts only: the block path
// is not built on the microcontrollers (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension _ChannelDecoder {
    /// The raw values of this channel in `scans` consecutive scans `stride`
    /// bytes apart, into `raws`: the format's switch taken once per column,
    /// not once per scan (the block path's decode).
    @inlinable @inline(__always)
    internal func column(_ base: UnsafeRawPointer, stride: Int, into raws: inout InlineArray<16, Int64>) {
        let p = base + offset
        switch load {
        case .s16le:
            for k in 0..<16 { raws[k] = Int64(Int16(littleEndian: (p + k &* stride).loadUnaligned(as: Int16.self))) }
        case .s32le:
            for k in 0..<16 { raws[k] = Int64(Int32(littleEndian: (p + k &* stride).loadUnaligned(as: Int32.self))) }
        case .s24be8:
            for k in 0..<16 { raws[k] = Int64(Int32(bigEndian: (p + k &* stride).loadUnaligned(as: Int32.self)) &>> 8) }
        case .narrow8:
            for k in 0..<16 { raws[k] = narrow(UInt32((p + k &* stride).load(as: UInt8.self))) }
        case .narrow16le:
            for k in 0..<16 { raws[k] = narrow(UInt32(UInt16(littleEndian: (p + k &* stride).loadUnaligned(as: UInt16.self)))) }
        case .narrow16be:
            for k in 0..<16 { raws[k] = narrow(UInt32(UInt16(bigEndian: (p + k &* stride).loadUnaligned(as: UInt16.self)))) }
        case .narrow32le:
            if signed {
                for k in 0..<16 {
                    let up = UInt32(littleEndian: (p + k &* stride).loadUnaligned(as: UInt32.self)) &<< left
                    raws[k] = Int64(Int32(bitPattern: up) &>> Int32(bitPattern: right))
                }
            } else {
                for k in 0..<16 {
                    let up = UInt32(littleEndian: (p + k &* stride).loadUnaligned(as: UInt32.self)) &<< left
                    raws[k] = Int64(up &>> right)
                }
            }
        case .narrow32be:
            for k in 0..<16 { raws[k] = narrow(UInt32(bigEndian: (p + k &* stride).loadUnaligned(as: UInt32.self))) }
        case .wide:
            for k in 0..<16 { raws[k] = format.decode(p + k &* stride) }
        }
    }

    /// ``column(_:stride:into:)`` in 32 bits, for a channel that ``fits32``:
    /// scan k's raw value, at `offsets[k]` (``_PanelDecoder/scanOffsets``, read
    /// in place: passed as an array it was copied and the read not inlined), into `raws[k]`.
    @inlinable @inline(__always)
    internal func column32(_ base: UnsafeRawPointer, offsets: UnsafePointer<Int>, into raws: UnsafeMutablePointer<Int32>) {
        let p = base + offset
        switch load {
        case .s16le:
            for k in 0..<16 { raws[k] = Int32(Int16(littleEndian: (p + offsets[k]).loadUnaligned(as: Int16.self))) }
        case .s32le:
            for k in 0..<16 { raws[k] = Int32(littleEndian: (p + offsets[k]).loadUnaligned(as: Int32.self)) }
        case .s24be8:
            for k in 0..<16 { raws[k] = Int32(bigEndian: (p + offsets[k]).loadUnaligned(as: Int32.self)) &>> 8 }
        // The stored words first, then their two shifts on 16 lanes at once.
        case .narrow8:
            for k in 0..<16 { raws[k] = Int32(bitPattern: UInt32((p + offsets[k]).load(as: UInt8.self))) }
            narrow32(lanes: raws)
        case .narrow16le:
            for k in 0..<16 { raws[k] = Int32(bitPattern: UInt32(UInt16(littleEndian: (p + offsets[k]).loadUnaligned(as: UInt16.self)))) }
            narrow32(lanes: raws)
        case .narrow16be:
            for k in 0..<16 { raws[k] = Int32(bitPattern: UInt32(UInt16(bigEndian: (p + offsets[k]).loadUnaligned(as: UInt16.self)))) }
            narrow32(lanes: raws)
        case .narrow32le:
            for k in 0..<16 { raws[k] = Int32(bitPattern: UInt32(littleEndian: (p + offsets[k]).loadUnaligned(as: UInt32.self))) }
            narrow32(lanes: raws)
        case .narrow32be:
            for k in 0..<16 { raws[k] = Int32(bitPattern: UInt32(bigEndian: (p + offsets[k]).loadUnaligned(as: UInt32.self))) }
            narrow32(lanes: raws)
        case .wide:
            for k in 0..<16 { raws[k] = Int32(truncatingIfNeeded: format.decode(p + offsets[k])) }
        }
    }

    /// ``narrow(_:)`` as `Int32`s, for a channel that ``fits32`` (an
    /// unsigned field then has at most 31 bits, so its bits are the value's),
    /// of the 16 stored words at `raws` (their bits) in place: the two shifts
    /// on 16 lanes at once, each lane's the scalar's (the same masked shift
    /// counts), where they were two shifts and a select a scan.
    @inlinable @inline(__always)
    internal func narrow32(lanes raws: UnsafeMutablePointer<Int32>) {
        let r = UnsafeMutableRawPointer(raws)
        let up = r.loadUnaligned(as: SIMD16<UInt32>.self) &<< SIMD16(repeating: left)
        let value = signed ? _signedLanes(up) &>> SIMD16(repeating: Int32(bitPattern: right))
                           : _signedLanes(up &>> SIMD16(repeating: right))
        r.storeBytes(of: value, as: SIMD16<Int32>.self)
    }
}

/// The bits of 16 unsigned lanes as signed lanes: a bit cast
/// (`SIMD16<Int32>(truncatingIfNeeded:)` stayed a generic call).
@inlinable @inline(__always)
internal func _signedLanes(_ v: SIMD16<UInt32>) -> SIMD16<Int32> { unsafeBitCast(v, to: SIMD16<Int32>.self) }
#endif
