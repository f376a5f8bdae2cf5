// The block read that the gesture layer's block entries (Sources/Gestures)
// start from, the state it commits, and the centre of pressure read in
// place. The gesture layer is host-side: none of this is built for
// Embedded targets.
#if !hasFeature(Embedded)
/// A block read for the gesture layer's two block entries, on locals: what
/// ``ForcePipeline/_commitGestureBlock(_:first:positions:)`` writes back once
/// the classifier has taken the block whole.
@usableFromInline
internal struct _GestureBlock {
    @usableFromInline var last: _LastScan
    @usableFromInline var state: _ScanState
    @usableFromInline var counters: PipelineCounters
    @usableFromInline var zeroSums: InlineArray<8, Float>
    @usableFromInline var held: _BlockPositions
    /// Every scan's moments (lane k scan k's), read only for a pressed block.
    @usableFromInline var momentsX: SIMD16<Float>
    @usableFromInline var momentsY: SIMD16<Float>
    /// The classifier's inputs: the two scans before the block, shifted by one and two, and the block's totals.
    @usableFromInline var older: SIMD16<Float>
    @usableFromInline var previous: SIMD16<Float>
    @usableFromInline var forces: SIMD16<Float>
    /// Every scan's timestamp, and bit k: scan k differs from the one before
    /// (what a replay of the block's scans steps with).
    @usableFromInline var stamps: InlineArray<16, Int64>
    @usableFromInline var changed: UInt32
    /// The baseline the block was read against (it moves only after the block).
    @usableFromInline var baseline: Float

    @inlinable
    var firstStampNs: Int64 { @inline(__always) get { stamps[0] } }

    @inlinable
    init(last: _LastScan, state: _ScanState, counters: PipelineCounters, zeroSums: InlineArray<8, Float>,
         held: _BlockPositions, momentsX: SIMD16<Float>, momentsY: SIMD16<Float>, older: SIMD16<Float>,
         previous: SIMD16<Float>, forces: SIMD16<Float>, stamps: InlineArray<16, Int64>, changed: UInt32, baseline: Float) {
        self.last = last; self.state = state; self.counters = counters; self.zeroSums = zeroSums; self.held = held
        self.momentsX = momentsX; self.momentsY = momentsY
        self.older = older; self.previous = previous; self.forces = forces
        self.stamps = stamps; self.changed = changed; self.baseline = baseline
    }
}

extension ForcePipeline {
    /// The block read and health advance both gesture block entries start
    /// with, as ``_processBlock`` does them, on locals: nil where a scan of the
    /// block must go through the per-scan path (a rail, a gap, a flat run to
    /// judge). Changes nothing (mutating only to read the decode tables in
    /// place, as ``_processBlock`` does). With `allMoments` (a constant at
    /// each call site), every scan's moments too; with `quad` (a constant in
    /// each copy of the three entries, true only where
    /// ``_PanelDecoder/quadOffset`` is set), the four side-by-side channels
    /// read four lanes at a time, as ``_processBlock`` reads them.
    @inlinable @inline(__always)
    internal mutating func _readGestureBlock(_ scans: UnsafeRawPointer, first: Int64, positions: Bool,
                                             allMoments: Bool, quad: Bool) -> _GestureBlock? {
        let stuckScans = _classifier._parameters.stuckScans
        var last = _last
        var state = _scan
        var counters = _counters
        var zeroSums = _zeroSums
        var forces = SIMD16<Float>()
        var stamps = InlineArray<16, Int64>(repeating: 0)
        var changed: UInt32 = 0
        var held = _BlockPositions()
        var momentsX = SIMD16<Float>(), momentsY = SIMD16<Float>()
        guard _decode.readBlock(scans, stride: layout.scanSize, first: first, last: &last, counters: &counters,
                                timing: _timing, positions: positions, totals: &forces, stamps: &stamps,
                                changed: &changed, held: &held, zeroSums: &zeroSums,
                                allMoments: allMoments && positions, quad: quad,
                                momentsX: &momentsX, momentsY: &momentsY) else { return nil }
        var window = InlineArray<18, Float>(repeating: 0)
        window[0] = _classifier._older
        window[1] = _classifier._previous
        withUnsafeMutableBytes(of: &window) { $0.storeBytes(of: forces, toByteOffset: 8, as: SIMD16<Float>.self) }
        let baseline = _classifier._baseline, band = _classifier._parameters.touchBand
        let advanced = withUnsafeBytes(of: &window) { raw in
            state.advanceOutOfLine(block: raw.baseAddress!.assumingMemoryBound(to: Float.self) + 2, changed: changed,
                                   baseline: baseline, band: band, stuckScans: stuckScans)
        }
        guard advanced else { return nil }
        let (a, b, c) = withUnsafeBytes(of: &window) { raw in
            (raw.loadUnaligned(as: SIMD16<Float>.self),
             raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self),
             raw.loadUnaligned(fromByteOffset: 8, as: SIMD16<Float>.self))
        }
        return _GestureBlock(last: last, state: state, counters: counters, zeroSums: zeroSums, held: held,
                             momentsX: momentsX, momentsY: momentsY, older: a, previous: b, forces: c, stamps: stamps,
                             changed: changed, baseline: baseline)
    }

    /// After the classifier took `block` whole: commits what the per-scan
    /// steps (and ``_processBlock``) would have left.
    @inlinable @inline(__always)
    internal mutating func _commitGestureBlock(_ block: _GestureBlock, first: Int64, positions: Bool) {
        _last = block.last
        _scan = block.state
        _counters = block.counters
        _nextSample &+= Int64(Classifier.blockScans)
        _saturatedRun = 0
        _lastForce = block.forces[Classifier.blockScans &- 1]
        if positions {
            _zeroSums = block.zeroSums
            _recordTail(block.held, forces: block.forces, first: first, upTo: Classifier.blockScans &- 1, baseline: block.baseline)
        }
    }
}

extension _PressureWindow {
    /// ``position(gate:zeros:)`` without deciding: the same arithmetic on a
    /// copy, so the last decided position (which only events set) stays.
    @inlinable @inline(__always)
    internal func _peekPosition(gate: Float, zeros: _CellZeros) -> PlatePoint? {
        var copy = self
        return copy.position(gate: gate, zeros: zeros)
    }
}

extension ForcePipeline {
    /// ``centreOfPressure``, read in place (inlined into the gesture layer's scan step).
    @inlinable @inline(__always)
    public var pressPosition: PlatePoint? {
        guard _decode.hasPositions else { return nil }
        return _pressure._peekPosition(gate: positionGate, zeros: _cellZeros)
    }
}
#endif
