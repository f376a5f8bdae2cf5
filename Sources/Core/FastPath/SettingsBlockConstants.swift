// Where the guards' per-block constants are kept, and how the parameters'
// per-block factors are built: stored and inline where the platform has the
// block path (it loads them every block), computed on use and out of line on
// the microcontrollers, where stored fields and inlined soft-float code would
// cost the image more than they save. Also the block's time ramp as lanes,
// which only the block path reads.
#if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
/// Nothing stored: the constants are computed where they are read.
@usableFromInline
internal struct _BlockConstants: Equatable, BitwiseCopyable, Sendable {
    @inline(__always)
    internal init(peek: Float, touchBand: Float, spikeRejection: Bool, baselineEnabled: Bool) {}
}

extension ClassifierParameters {
    /// As on hosts (the touch band negated, the spike size, the touch
    /// level's floor, whether filter and tracker both run), computed.
    @_alwaysEmitIntoClient public var underTouchBand: Float { _guardsNow.underTouchBand }
    @_alwaysEmitIntoClient public var spikeSize: Float { _guardsNow.spikeSize }
    @_alwaysEmitIntoClient public var touchFloor: Float { _guardsNow.touchFloor }
    @_alwaysEmitIntoClient public var filteredAndTracked: Bool { _guardsNow.filteredAndTracked }
    @inlinable @inline(__always)
    internal var _guardsNow: (underTouchBand: Float, spikeSize: Float, touchFloor: Float, filteredAndTracked: Bool) {
        ClassifierParameters._guards(peek: peek, touchBand: touchBand,
                                     spikeRejection: spikeRejection, baselineEnabled: baselineEnabled)
    }

    /// One copy for the five uses: each inlined copy of the squarings would
    /// be its own soft-float calls, for a function run once.
    @inline(never)
    internal static func _perBlock(_ a: Float) -> Float { _compoundedOverBlock(a) }
}
#else
/// The constants, stored: the block path and the baseline tracker load them.
@usableFromInline
internal struct _BlockConstants: Equatable, BitwiseCopyable, Sendable {
    @usableFromInline internal let underTouchBand: Float
    @usableFromInline internal let spikeSize: Float
    @usableFromInline internal let touchFloor: Float
    @usableFromInline internal let filteredAndTracked: Bool

    internal init(peek: Float, touchBand: Float, spikeRejection: Bool, baselineEnabled: Bool) {
        (underTouchBand, spikeSize, touchFloor, filteredAndTracked) = ClassifierParameters._guards(
            peek: peek, touchBand: touchBand, spikeRejection: spikeRejection, baselineEnabled: baselineEnabled)
    }
}

extension Classifier {
    /// The in-block time ramp as lanes (``_blockRampLanes``, scans from the
    /// block's centre), by a bit cast of its constant tuple.
    public static var blockRamp: SIMD16<Float> {
        @inlinable @inline(__always) get { unsafeBitCast(_blockRampLanes, to: SIMD16<Float>.self) }
    }
}

extension ClassifierParameters {
    /// The touch band negated: a reading below it is an undershoot.
    @inlinable public var underTouchBand: Float { _block.underTouchBand }
    /// The spike size: ``peek`` times ``Classifier/spikeFraction``.
    @inlinable public var spikeSize: Float { _block.spikeSize }
    /// The touch level's floor: ``touchBand`` times ``Classifier/touchFloorFraction``.
    @inlinable public var touchFloor: Float { _block.touchFloor }
    /// Whether both the spike filter and the baseline tracker run.
    @inlinable public var filteredAndTracked: Bool { _block.filteredAndTracked }

    /// Inline: the gesture layer builds parameters often.
    @inline(__always)
    internal static func _perBlock(_ a: Float) -> Float { _compoundedOverBlock(a) }
}
#endif
