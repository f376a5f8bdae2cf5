// What the block path reads of a scan's layout beyond the scan step's
// decoders, worked out once when the pipeline is built. Host-only
// (Classifier.blockPathEnabled); on the microcontrollers the tables and the
// scan offsets are empty values, built by doing nothing.
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
/// Scan k's offset in a block, `k * scanSize` (``_PanelDecoder/scanOffsets``),
/// so that the one-channel read does not rebuild the multiples of the
/// stride every block. A stored property of the decoder, whose address the
/// block read takes beside its channel decoders.
@usableFromInline
internal typealias _ScanOffsets = InlineArray<16, Int>

/// The block path's layout tables (``_PanelDecoder/_blockTables``).
@usableFromInline
internal struct _BlockReadTables: BitwiseCopyable, Sendable {
    /// Where four line channels of one direct 32-bit format (`be:s24/32>>8`
    /// or `le:s32`), all in 32-bit lanes (``_ChannelDecoder/lanes32``), lie
    /// side by side in a scan: the offset of their 16 bytes, which the block
    /// path reads with one load a scan (``_PanelDecoder/_readQuad(_:stride:last:newtons:)``); -1 otherwise.
    @usableFromInline internal var quadOffset = -1
    /// The four channels' rail tests and lines where ``quadOffset`` is set,
    /// channel i's in lane i, so that a scan's row is tested and converted
    /// where it is loaded: `railBase`, `railSpan - 1` (a lane is off the
    /// rails where `raw &- railBase > railTop`, which is `>= railSpan`: the
    /// span is never `Int32.min` there), `zero32` and `scale`.
    @usableFromInline internal var quadRailBase = SIMD4<Int32>()
    @usableFromInline internal var quadRailTop = SIMD4<Int32>()
    @usableFromInline internal var quadZero = SIMD4<Int32>()
    @usableFromInline internal var quadScale = SIMD4<Float>()

    @inlinable internal init() {}
}

extension _PanelDecoder {
    /// The tables' fields, read where the block read reads them: inlined
    /// before any other inlining (`@_transparent`), so that reading them
    /// costs the block read's body nothing it did not cost as stored fields.
    @usableFromInline internal var quadOffset: Int {
        @_transparent get { _blockTables.quadOffset }
    }
    @usableFromInline internal var quadRailBase: SIMD4<Int32> {
        @_transparent get { _blockTables.quadRailBase }
    }
    @usableFromInline internal var quadRailTop: SIMD4<Int32> {
        @_transparent get { _blockTables.quadRailTop }
    }
    @usableFromInline internal var quadZero: SIMD4<Int32> {
        @_transparent get { _blockTables.quadZero }
    }
    @usableFromInline internal var quadScale: SIMD4<Float> {
        @_transparent get { _blockTables.quadScale }
    }
}

extension _BlockReadTables {
    /// The tables for `decoders`, the first `channels` of them set up: where
    /// four channels sit side by side in one direct 32-bit format on a
    /// little-endian host (the 16 bytes are read as four native words),
    /// their rails and lines lane by lane; else none.
    @inline(__always)
    internal init(channels: Int, decoders: InlineArray<8, _ChannelDecoder>) {
        self.init()
        // A constant: true on a little-endian host.
        guard 1.littleEndian == 1 else { return }
        guard channels == 4 && (decoders[0].load == .s24be8 || decoders[0].load == .s32le) else { return }
        var side = true
        for i in 0..<4 {
            side = side && decoders[i].lanes32 && decoders[i].load == decoders[0].load
                && decoders[i].offset == decoders[0].offset &+ 4 &* i
                && decoders[i].railSpan != Int32.min
        }
        guard side else { return }
        quadOffset = decoders[0].offset
        for i in 0..<4 {
            quadRailBase[i] = decoders[i].railBase
            quadRailTop[i] = decoders[i].railSpan &- 1
            quadZero[i] = decoders[i].zero32
            quadScale[i] = decoders[i].scale
        }
    }

    /// Scan k's offset in a block of scans `scanSize` bytes long.
    @inline(__always)
    internal static func scanOffsets(scanSize: Int) -> _ScanOffsets {
        var offsets = _ScanOffsets(repeating: 0)
        for k in 0..<Classifier.blockScans { offsets[k] = k &* scanSize }
        return offsets
    }
}
#else
/// No scan offsets where the block path is off: an empty array.
@usableFromInline
internal typealias _ScanOffsets = InlineArray<0, Int>

/// Empty where the block path is off.
@usableFromInline
internal struct _BlockReadTables: BitwiseCopyable, Sendable {
    @inline(__always)
    internal init(channels: Int, decoders: InlineArray<8, _ChannelDecoder>) {}

    @inline(__always)
    internal static func scanOffsets(scanSize: Int) -> _ScanOffsets { _ScanOffsets(repeating: 0) }
}
#endif
