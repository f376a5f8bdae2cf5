/// Why a channel format string or description was refused.
public enum FormatError: Error, Equatable, Sendable {
    /// The text does not have the shape `<le|be>:<s|u><realbits>/<storagebits>>><shift>`.
    case malformed
    /// `storagebits` is not 8, 16, 32 or 64.
    case unsupportedStorageBits(Int)
    /// `realbits` is not between 1 and `storagebits`.
    case realBitsOutOfRange(Int)
    /// `shift + realbits` exceeds `storagebits`.
    case shiftOutOfRange(Int)
    /// A repeat count (`X2`) was given; ForceStage reads one value per channel.
    case repeatUnsupported

}

/// How one channel's value is stored in a scan: the kernel's
/// `scan_elements/*_type`, e.g. `le:s16/16>>0` or `be:s24/32>>8`.
///
/// Decoding follows libiio's `iio_channel_convert`: read `storageBits` in the
/// given byte order, shift right by `shift`, keep the low `realBits` bits, and
/// sign-extend if signed. `scale` is not applied.
public struct ChannelFormat: Equatable, BitwiseCopyable, Sendable {
    /// Big-endian storage (`be`) instead of little-endian (`le`).
    public let bigEndian: Bool
    /// Two's complement value (`s`) instead of unsigned (`u`).
    public let signed: Bool
    /// Significant bits, 1 through `storageBits`.
    public let realBits: UInt8
    /// Bits the value occupies in the scan: 8, 16, 32 or 64.
    public let storageBits: UInt8
    /// Right shift applied before masking.
    public let shift: UInt8

    /// The shift that moves bit `realBits - 1` to bit 63: derived, not
    /// stored, so a format is five bytes (a scan layout holds sixteen, and
    /// the pipeline and its decoders hold the layout's).
    @inlinable internal var _signShift: UInt64 { 64 &- UInt64(realBits) }
    /// The low `realBits` bits.
    @inlinable internal var _mask: UInt64 { UInt64.max &>> _signShift }

    /// Creates a format from its parts.
    public init(bigEndian: Bool, signed: Bool, realBits: Int, storageBits: Int, shift: Int) throws(FormatError) {
        guard storageBits == 8 || storageBits == 16 || storageBits == 32 || storageBits == 64 else {
            throw .unsupportedStorageBits(storageBits)
        }
        guard realBits >= 1 && realBits <= storageBits else { throw .realBitsOutOfRange(realBits) }
        guard shift >= 0 && shift + realBits <= storageBits else { throw .shiftOutOfRange(shift) }
        self.bigEndian = bigEndian
        self.signed = signed
        self.realBits = UInt8(realBits)
        self.storageBits = UInt8(storageBits)
        self.shift = UInt8(shift)
    }

    /// Parses the kernel's text form from its UTF-8 bytes. The sign letter may be capital, as
    /// libiio prints it when `realbits == storagebits`.
    public init<Bytes: Collection<UInt8>>(parsing text: Bytes) throws(FormatError) {
        var parser = _FormatParser(text)
        let bigEndian: Bool
        if parser.take("le") { bigEndian = false }
        else if parser.take("be") { bigEndian = true }
        else { throw .malformed }
        guard parser.take(":") else { throw .malformed }
        let signed: Bool
        if parser.take("s") || parser.take("S") { signed = true }
        else if parser.take("u") || parser.take("U") { signed = false }
        else { throw .malformed }
        guard let realBits = parser.number(), parser.take("/"),
              let storageBits = parser.number() else { throw .malformed }
        if parser.take("X") || parser.take("x") { throw .repeatUnsupported }
        guard parser.take(">>"), let shift = parser.number(), parser.atEnd else { throw .malformed }
        try self.init(bigEndian: bigEndian, signed: signed, realBits: realBits,
                      storageBits: storageBits, shift: shift)
    }

    /// Bytes the value occupies in a scan.
    @inlinable public var storageBytes: Int { Int(storageBits) >> 3 }

    /// The smallest raw value the format can express (a saturation rail).
    public var minimumRaw: Int64 {
        // -2^(realBits - 1), the complement of 2^(realBits - 1) - 1.
        signed ? ~Int64(bitPattern: _mask &>> 1) : 0
    }

    /// The largest raw value the format can express (a saturation rail).
    public var maximumRaw: Int64 {
        // 2^(realBits - 1) - 1 signed, 2^realBits - 1 unsigned (held at
        // Int64.max: a 64-bit unsigned value above it reads as its bit pattern).
        signed || realBits == 64 ? Int64(bitPattern: _mask &>> 1) : Int64(bitPattern: _mask)
    }


    /// Decodes the value stored at `pointer` (no alignment required).
    ///
    /// An unsigned 64-bit value above `Int64.max` comes back as its bit pattern.
    /// - Complexity: O(1).
    @inlinable
    public func decode(_ pointer: UnsafeRawPointer) -> Int64 {
        var bits: UInt64
        switch storageBits {
        case 8:
            bits = UInt64(pointer.load(as: UInt8.self))
        case 16:
            let v = pointer.loadUnaligned(as: UInt16.self)
            bits = UInt64(bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
        case 32:
            let v = pointer.loadUnaligned(as: UInt32.self)
            bits = UInt64(bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        default:
            let v = pointer.loadUnaligned(as: UInt64.self)
            bits = bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
        }
        bits = (bits &>> UInt64(shift)) & _mask
        if signed {
            return Int64(bitPattern: bits &<< _signShift) &>> Int64(bitPattern: _signShift)
        }
        return Int64(bitPattern: bits)
    }

    /// Encodes `value` into the format's storage at `pointer`: the inverse of
    /// ``decode(_:)`` for values the format can hold. Bits outside the value
    /// (below the shift, above realbits) are written as zero.
    @inlinable
    public func encode(_ value: Int64, to pointer: UnsafeMutableRawPointer) {
        let bits = (UInt64(bitPattern: value) & _mask) &<< UInt64(shift)
        switch storageBits {
        case 8:
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: bits), as: UInt8.self)
        case 16:
            let v = UInt16(truncatingIfNeeded: bits)
            pointer.storeBytes(of: bigEndian ? v.bigEndian : v.littleEndian, toByteOffset: 0, as: UInt16.self)
        case 32:
            let v = UInt32(truncatingIfNeeded: bits)
            pointer.storeBytes(of: bigEndian ? v.bigEndian : v.littleEndian, toByteOffset: 0, as: UInt32.self)
        default:
            pointer.storeBytes(of: bigEndian ? bits.bigEndian : bits.littleEndian, toByteOffset: 0, as: UInt64.self)
        }
    }
}

/// A tiny cursor over UTF-8 bytes for the format grammar.
internal struct _FormatParser<Bytes: Collection<UInt8>> {
    let bytes: Bytes
    var index: Bytes.Index

    init(_ bytes: Bytes) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var atEnd: Bool { index == bytes.endIndex }

    mutating func take(_ literal: StaticString) -> Bool {
        var probe = index
        var i = 0
        let start = literal.utf8Start
        while i < literal.utf8CodeUnitCount {
            guard probe != bytes.endIndex, bytes[probe] == start[i] else { return false }
            probe = bytes.index(after: probe)
            i += 1
        }
        index = probe
        return true
    }

    mutating func number() -> Int? {
        var value = 0
        var digits = 0
        while index != bytes.endIndex, bytes[index] >= 48, bytes[index] <= 57, digits < 4 {
            value = value * 10 + Int(bytes[index] - 48)
            index = bytes.index(after: index)
            digits += 1
        }
        return digits == 0 ? nil : value
    }
}
