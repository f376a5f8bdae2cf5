/// What the gesture layer (Sources/Gestures) asks of the pipeline beyond
/// ``ForcePipeline/process(scan:into:)``: a block fast path that it may take
/// wherever a scan-at-a-time step would decide nothing it needs to see.
extension ForcePipeline {
    /// The position last decided at an event: what ``centreOfPressure``
    /// gives while the force over its window is below the gate. Nil on a
    /// panel without cell positions, and before any event had one.
    @inlinable
    public var lastDecidedPosition: PlatePoint? {
        guard _decode.hasPositions else { return nil }
        return _pressure.last
    }

    /// The classifier's press state, read in place (``classifier`` hands
    /// out a copy of the whole classifier, a few hundred bytes, per read).
    @inlinable
    public var pressState: PressState { _classifier._state }

    /// The force over which ``centreOfPressure`` is decided from the window,
    /// newtons above the cells' tracked zeros (a quarter of the peek level).
    @inlinable
    public var positionGate: Float { _classifier._parameters.peek * CentreOfPressure.gateFraction }

}

// Block path only: not built where it is off (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
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
    var firstStampNs: Int64 { stamps[0] }

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
            state.advance(block: raw.baseAddress!.assumingMemoryBound(to: Float.self) + 2, changed: changed,
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
#endif

// The gesture layer (Sources/Gestures) is host-side: what it alone reads is not
// built for Embedded targets, so their .text carries none of it.
#if !hasFeature(Embedded)
extension Classifier {
    /// A block ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``
    /// refused (a reading straddles a level, the hold's reference climbs, the
    /// touch band is crossed), stepped one scan at a time as
    /// ``step(force:sample:timestampNs:into:)`` steps it, and kept only where
    /// no scan of it decides anything (no event, so the press state stays).
    /// Otherwise the classifier and `events` are put back as they were and it
    /// returns false, so the caller replays the block scan by scan. Most of the
    /// blocks the fast path refuses around a press decide nothing: the gesture
    /// layer then takes them as it takes a block the fast path took.
    /// - Complexity: O(blockScans); one copy of the classifier; no allocation.
    @inlinable
    internal mutating func _stepUndecided(_ forces: SIMD16<Float>, stamps: InlineArray<16, Int64>, firstSample: Int64,
                                          into events: inout EventRing) -> Bool {
        guard _blockFill == 0 && EventRing.capacityCount &- events._count >= Classifier.maximumEventsPerStep else { return false }
        let saved = self
        let count = events._count, overflows = events._overflowCount
        var k = 0
        while k < Classifier.blockScans {
            step(force: forces[k], sample: firstSample &+ Int64(truncatingIfNeeded: k), timestampNs: stamps[k], into: &events)
            if events._count != count || events._overflowCount != overflows {
                self = saved
                events._count = count
                events._overflowCount = overflows
                return false
            }
            k &+= 1
        }
        return true
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

/// The window sum ``_PressureWindow/position(gate:zeros:)`` takes after each
/// scan of a block whose first scan is a multiple of four: lane k is
/// `(slot 0 + slot 1) + (slot 2 + slot 3)` of the window after scan k, where
/// `before` is the window before the block (its slots hold the four scans
/// before it) and `block` the block's values. With a_d the values d scans
/// back, that sum is (a₁ + a₀) + (a₃ + a₂) after an odd scan and
/// (a₂ + a₁) + (a₀ + a₃) after an even one, the same additions in the same
/// pairs (a float sum does not depend on the order of its two operands), so
/// bit for bit what the window gives scan by scan.
@inlinable @inline(__always)
internal func _windowSums(_ before: InlineArray<4, Float>, _ block: SIMD16<Float>) -> SIMD16<Float> {
    // The even and the odd lanes apart, eight each, none computed and dropped:
    // with e the four values before the block followed by its sixteen,
    // E[m] = e[2m] and O[m] = e[2m + 1], lane 2j is (E[j+1] + O[j+1]) +
    // (E[j+2] + O[j]) and lane 2j + 1 is (E[j+2] + O[j+2]) + (E[j+1] + O[j+1]),
    // the pairs above. Both parities on all sixteen lanes, blended lane by
    // lane, were some 140 instructions of shuffles a call (LLVM kept only the
    // lanes used, two at a time); this is about a third of that.
    let e2 = block.evenHalf, o2 = block.oddHalf
    var ebuf = SIMD16<Float>(), obuf = SIMD16<Float>()
    withUnsafeMutableBytes(of: &ebuf) { raw in
        raw.storeBytes(of: before[2], toByteOffset: 4, as: Float.self)
        raw.storeBytes(of: e2, toByteOffset: 8, as: SIMD8<Float>.self)
    }
    withUnsafeMutableBytes(of: &obuf) { raw in
        raw.storeBytes(of: before[1], as: Float.self)
        raw.storeBytes(of: before[3], toByteOffset: 4, as: Float.self)
        raw.storeBytes(of: o2, toByteOffset: 8, as: SIMD8<Float>.self)
    }
    let e1 = withUnsafeBytes(of: &ebuf) { $0.loadUnaligned(fromByteOffset: 4, as: SIMD8<Float>.self) }
    let (o0, o1) = withUnsafeBytes(of: &obuf) {
        ($0.loadUnaligned(as: SIMD8<Float>.self), $0.loadUnaligned(fromByteOffset: 4, as: SIMD8<Float>.self))
    }
    let near = e1 + o1
    var r = SIMD16<Float>()
    r.evenHalf = near + (e2 + o0)
    r.oddHalf = (e2 + o2) + near
    return r
}

/// One coordinate of a block's positions in 16 lanes: `(sums - zero) / totals`,
/// lane 15 (which the caller fills) a copy of lane 0, with the lanes' least
/// and greatest and whether every lane is finite. Out of line, one coordinate
/// a call: with both in one body, LLVM paired x and y of each scan over their
/// common divisor and divided two lanes at a time, with shuffles to match.
@usableFromInline @inline(never)
internal func _quotients(_ sums: SIMD16<Float>, less zero: Float, over totals: SIMD16<Float>)
    -> (q: SIMD16<Float>, low: Float, high: Float, finite: Bool) {
    var q = (sums - SIMD16(repeating: zero)) / totals
    q[Classifier.blockScans &- 1] = q[0]
    return (q, _minLane(q), _maxLane(q), _sum16(q).isFinite)
}

/// Lane k of ``_windowSums(_:_:)``, from `e`, the four values before the
/// block followed by the block's sixteen (a_d is `e[k + 4 - d]`): the same
/// additions in the same pairs, one lane at a time.
@inlinable @inline(__always)
internal func _windowSum(_ e: UnsafePointer<Float>, _ k: Int) -> Float {
    let a0 = e[k &+ 4], a1 = e[k &+ 3], a2 = e[k &+ 2], a3 = e[k &+ 1]
    return k & 1 != 0 ? (a1 + a0) + (a3 + a2) : (a2 + a1) + (a0 + a3)
}

extension ForcePipeline {
    /// The centre of pressure after each scan but the last of a block taken
    /// whole (the first scan a multiple of four), as
    /// ``_PressureWindow/position(gate:zeros:)`` gives it scan by scan from
    /// `window` (the window before the block) and `zeros` (the cells' zeros
    /// until the block's last scan): each lane's window sums, then the lane's
    /// position where its force reaches the gate, else the last decided one.
    /// One scalar pass over the lanes: a lane mask of 16 floats (a comparison,
    /// a select) is built and read lane by lane through memory.
    @inlinable @inline(__always)
    internal func _blockPositions(_ window: _PressureWindow, _ zeros: _CellZeros, forces: SIMD16<Float>,
                                  momentsX: SIMD16<Float>, momentsY: SIMD16<Float>, gate: Float,
                                  into out: inout PressedBlockScans) {
        let n = Float(CentreOfPressure.windowScans)
        let threshold = gate * n
        let zf = n * zeros.total, zx = n * zeros.momentX, zy = n * zeros.momentY
        // The common block of a held press: every window past the gate, every position finite.
        // Sixteen lanes at once (the same additions and divisions as lane by lane below), bounds
        // from lane minima and maxima; lane 15 is left to the caller, so it copies lane 0 here.
        let totals = _windowSums(window.force, forces) - SIMD16(repeating: zf)
        var lowest = totals
        lowest[Classifier.blockScans &- 1] = totals[0]
        if _minLane(lowest) >= threshold {
            let x = _quotients(_windowSums(window.momentX, momentsX), less: zx, over: totals)
            let y = _quotients(_windowSums(window.momentY, momentsY), less: zy, over: totals)
            if x.finite && y.finite {
                // No lane is NaN or infinite: minima and maxima are those of the scalar pass.
                var qx = x.q, qy = y.q
                qx[Classifier.blockScans &- 1] = out._x[Classifier.blockScans &- 1]
                qy[Classifier.blockScans &- 1] = out._y[Classifier.blockScans &- 1]
                withUnsafeMutableBytes(of: &out._x) { $0.storeBytes(of: qx, as: SIMD16<Float>.self) }
                withUnsafeMutableBytes(of: &out._y) { $0.storeBytes(of: qy, as: SIMD16<Float>.self) }
                out._hasPosition = Classifier.blockBits >> 1
                out._low = PlatePoint(x: x.low, y: y.low)
                out._high = PlatePoint(x: x.high, y: y.high)
                out._nan = false
                return
            }
        }
        var ef = InlineArray<20, Float>(repeating: 0), ex = ef, ey = ef
        for j in 0..<CentreOfPressure.windowScans {
            ef[j] = window.force[j]
            ex[j] = window.momentX[j]
            ey[j] = window.momentY[j]
        }
        let body = CentreOfPressure.windowScans &* MemoryLayout<Float>.stride
        withUnsafeMutableBytes(of: &ef) { $0.storeBytes(of: forces, toByteOffset: body, as: SIMD16<Float>.self) }
        withUnsafeMutableBytes(of: &ex) { $0.storeBytes(of: momentsX, toByteOffset: body, as: SIMD16<Float>.self) }
        withUnsafeMutableBytes(of: &ey) { $0.storeBytes(of: momentsY, toByteOffset: body, as: SIMD16<Float>.self) }
        let last = window.last
        var decided: UInt32 = 0
        var bounds = PressedBlockScans()
        withUnsafeBytes(of: &ef) { rf in
            withUnsafeBytes(of: &ex) { rx in
                withUnsafeBytes(of: &ey) { ry in
                    withUnsafeMutableBytes(of: &out._x) { ox in
                        withUnsafeMutableBytes(of: &out._y) { oy in
                            let f = rf.baseAddress!.assumingMemoryBound(to: Float.self)
                            let x = rx.baseAddress!.assumingMemoryBound(to: Float.self)
                            let y = ry.baseAddress!.assumingMemoryBound(to: Float.self)
                            let px = ox.baseAddress!.assumingMemoryBound(to: Float.self)
                            let py = oy.baseAddress!.assumingMemoryBound(to: Float.self)
                            for k in 0..<(Classifier.blockScans &- 1) {
                                let total = _windowSum(f, k) - zf
                                if total >= threshold {
                                    let qx = (_windowSum(x, k) - zx) / total, qy = (_windowSum(y, k) - zy) / total
                                    px[k] = qx
                                    py[k] = qy
                                    bounds._widen(qx, qy)
                                    decided |= 1 &<< UInt32(truncatingIfNeeded: k)
                                } else if let last {
                                    px[k] = last.x
                                    py[k] = last.y
                                    bounds._widen(last.x, last.y)
                                    decided |= 1 &<< UInt32(truncatingIfNeeded: k)
                                }
                            }
                        }
                    }
                }
            }
        }
        out._hasPosition = decided
        out._low = bounds._low
        out._high = bounds._high
        out._nan = bounds._nan
    }
}

/// What ``ForcePipeline/processPressedBlock(_:into:replay:events:)`` hands the gesture
/// layer for each scan of a block it took whole: the press force and the
/// centre of pressure as ``ForcePipeline/pressForce`` and
/// ``ForcePipeline/centreOfPressure`` read after that scan's
/// ``ForcePipeline/process(scan:into:)``. Fixed size, no allocation.
public struct PressedBlockScans: BitwiseCopyable, Sendable {
    /// The sample number of the block's first scan.
    public var first: Int64 = 0
    @usableFromInline internal var _forces = InlineArray<16, Float>(repeating: 0)
    @usableFromInline internal var _x = InlineArray<16, Float>(repeating: 0)
    @usableFromInline internal var _y = InlineArray<16, Float>(repeating: 0)
    /// Bit k: scan k has a centre of pressure (none before any press reached the gate, or without cell positions).
    @usableFromInline internal var _hasPosition: UInt32 = 0
    /// The smallest and largest x and y of the scans' positions, and whether one is NaN.
    @usableFromInline internal var _low = PlatePoint(x: .infinity, y: .infinity)
    @usableFromInline internal var _high = PlatePoint(x: -.infinity, y: -.infinity)
    @usableFromInline internal var _nan = false

    @inlinable
    public init() {}

    /// The smallest and the largest x and y over the scans that have a
    /// position (a region check of every point is one of these two, as a
    /// float widens to a double monotonically); nil where none has one or one is NaN.
    @inlinable
    public var positionBounds: (low: PlatePoint, high: PlatePoint)? {
        _hasPosition == 0 || _nan ? nil : (_low, _high)
    }

    @inlinable @inline(__always)
    internal mutating func _widen(_ x: Float, _ y: Float) {
        _low.x = x < _low.x ? x : _low.x
        _high.x = x > _high.x ? x : _high.x
        _low.y = y < _low.y ? y : _low.y
        _high.y = y > _high.y ? y : _high.y
        _nan = _nan || x != x || y != y
    }

    /// The press force after scan `k` (0 ..< ``Classifier/blockScans``).
    @inlinable
    public func force(_ k: Int) -> Float { _forces[k] }

    /// Every scan's press force, lane k scan k's: to read once per block
    /// (``force(_:)`` on a block that is not a local copies the whole array per read).
    @inlinable
    public var forces: InlineArray<16, Float> { _forces }
    /// Every scan's centre of pressure, x and y, lane k scan k's; bit k of
    /// ``positionMask`` says whether scan k has one.
    @inlinable
    public var positionsX: InlineArray<16, Float> { _x }
    @inlinable
    public var positionsY: InlineArray<16, Float> { _y }
    /// Bit k: scan k has a centre of pressure.
    @inlinable
    public var positionMask: UInt32 { _hasPosition }

    /// The centre of pressure after scan `k` (0 ..< ``Classifier/blockScans``).
    @inlinable
    public func position(_ k: Int) -> PlatePoint? {
        (_hasPosition >> UInt32(truncatingIfNeeded: k)) & 1 != 0 ? PlatePoint(x: _x[k], y: _y[k]) : nil
    }

    @inlinable
    internal mutating func _set(_ k: Int, _ p: PlatePoint?) {
        guard let p else { return }
        _x[k] = p.x
        _y[k] = p.y
        _hasPosition |= 1 << UInt32(truncatingIfNeeded: k)
        _widen(p.x, p.y)
    }
}

extension ForcePipeline {
    /// ``centreOfPressure``, read in place (inlined into the gesture layer's scan step).
    @inlinable
    public var pressPosition: PlatePoint? {
        guard _decode.hasPositions else { return nil }
        return _pressure._peekPosition(gate: positionGate, zeros: _cellZeros)
    }

    /// Takes one block of ``Classifier/blockScans`` scans at `scans` through
    /// the block path while a press is in progress, but only a block in which
    /// the classifier decides nothing (it takes the block whole, or, where its
    /// block step refuses it, steps its scans one at a time without an event:
    /// ``Classifier/_stepUndecided(_:stamps:firstSample:into:)``, which leaves
    /// `events` as it was) and no scan could raise a health event; on a panel with cell
    /// positions, only a block aligned with the cells' zero blocks (so the
    /// zeros can move only after its last scan). Fills `out` with each scan's
    /// press force and centre of pressure, exactly as reading ``pressForce``
    /// and ``centreOfPressure`` after each scan's ``process(scan:into:)``
    /// gives them, and leaves the state that those steps leave. Otherwise
    /// returns false: where the block was read but the classifier decides
    /// something in it, the read is committed and kept in `replay` (then
    /// ``GestureReplay/isPending``), whose scans the caller takes one at a
    /// time through ``replayScan(_:into:)``; else, having changed nothing,
    /// and the caller steps the scans one at a time.
    ///
    /// What the gesture layer follows a press with: every scan's moments come
    /// from the block read (summed as the scan step sums them), and the
    /// positions of the block's scans are computed lane by lane.
    /// - Complexity: O(blockScans × force channels); no allocation.
    @inlinable
    public mutating func processPressedBlock(_ scans: UnsafeRawPointer, into out: inout PressedBlockScans,
                                             replay: inout GestureReplay, events: inout EventRing) -> Bool {
        if _decode.quadOffset >= 0 { return _processPressedQuadBlock(scans, into: &out, replay: &replay, events: &events) }
        return _processPressedBlock(scans, into: &out, replay: &replay, events: &events, quad: false)
    }

    /// ``processPressedBlock(_:into:replay:events:)`` where
    /// ``_PanelDecoder/quadOffset`` is set: a copy of its own, out of line,
    /// as ``_processBlock(_:into:)`` keeps one (the other formats' copy stays inline as it was).
    @usableFromInline @inline(never)
    internal mutating func _processPressedQuadBlock(_ scans: UnsafeRawPointer, into out: inout PressedBlockScans,
                                                    replay: inout GestureReplay, events: inout EventRing) -> Bool {
        _processPressedBlock(scans, into: &out, replay: &replay, events: &events, quad: true)
    }

    /// ``processPressedBlock(_:into:replay:events:)``'s body, `quad` a constant in each copy.
    @inlinable @inline(__always)
    internal mutating func _processPressedBlock(_ scans: UnsafeRawPointer, into out: inout PressedBlockScans,
                                                replay: inout GestureReplay, events: inout EventRing, quad: Bool) -> Bool {
        // What process(scans:into:) and _processBlock ask before a block, in the same order.
        guard _classifier._blockFill == 0 && _classifier._history >= 2 else { return false }
        guard !_stuck && !_saturated && !_clipped && !_lost && !_classifier._suspended else { return false }
        guard _classifier._parameters.spikeRejection else { return false }
        let first = _nextSample
        guard first > 0 else { return false }
        let positions = _decode.hasPositions
        if positions {
            // The zeros move only where a zero block closes: at the block's last scan when aligned.
            guard Int(truncatingIfNeeded: first) & (CentreOfPressure.zeroBlockScans &- 1) == 0 else { return false }
        }
        // From here as _processBlock, on locals, until the classifier takes the block whole.
        guard let block = _readGestureBlock(scans, first: first, positions: positions, allMoments: true, quad: quad) else { return false }
        let a = block.older, b = block.previous, c = block.forces, baselineBefore = block.baseline
        // The press force of each scan, as the scan step takes it (spike-filtered, less the
        // baseline, which moves only after the block): before stepBlock moves the baseline.
        let p = _classifier._parameters
        let filtered = SpikeFilter.filter(a, b, c, isolated: p.spikeIsolated, agreement: p.spikeAgreement,
                                    floor: baselineBefore - p.touchBand)
        let windowBefore = _pressure
        let zerosBefore = _cellZeros
        // Changes nothing when it refuses the block.
        guard _classifier.stepBlock(older: a, previous: b, forces: c, firstSample: first, firstTimestampNs: block.firstStampNs)
                || _classifier._stepUndecided(c, stamps: block.stamps, firstSample: first, into: &events) else {
            // The classifier decides something in it: the read is kept for a replay, not done twice.
            _beginReplay(block, first: first, positions: positions, into: &replay)
            _replayMomentSums(&replay)
            return false
        }
        _commitGestureBlock(block, first: first, positions: positions)
        out.first = first
        let pressForces = filtered - SIMD16(repeating: baselineBefore)
        withUnsafeMutableBytes(of: &out._forces) { $0.storeBytes(of: pressForces, as: SIMD16<Float>.self) }
        out._hasPosition = 0
        out._low = PlatePoint(x: .infinity, y: .infinity)
        out._high = PlatePoint(x: -.infinity, y: -.infinity)
        out._nan = false
        if positions {
            // Each scan's window as the scan step records it, from the moments the
            // block read kept for every scan; the zeros as they were until the
            // last scan, whose position is read from the committed state.
            let gate = positionGate
            _blockPositions(windowBefore, zerosBefore, forces: c, momentsX: block.momentsX, momentsY: block.momentsY,
                            gate: gate, into: &out)
            out._set(Classifier.blockScans &- 1, _pressure._peekPosition(gate: gate, zeros: _cellZeros))
        }
        #if DEBUG
        _checkInvariants()
        #endif
        return true
    }
}

/// A 16-scan block the pipeline has read (decoded, health judged: nothing in
/// it can raise a health event) but whose classification needs per-scan
/// steps: the scans' forces, moments and timestamps as the read gave them,
/// for ``ForcePipeline/replayScan(_:into:)`` to step one at a time without
/// decoding them again. Fixed size, no allocation.
public struct GestureReplay: BitwiseCopyable, Sendable {
    @usableFromInline internal var _first: Int64 = 0
    /// The next scan to replay (``Classifier/blockScans``: none pending).
    @usableFromInline internal var _next = Classifier.blockScans
    @usableFromInline internal var _forces = SIMD16<Float>()
    @usableFromInline internal var _x = SIMD16<Float>()
    @usableFromInline internal var _y = SIMD16<Float>()
    @usableFromInline internal var _stamps = SIMD16<Int64>()
    /// Bit k: scan k differs from the one before.
    @usableFromInline internal var _changed: UInt32 = 0
    /// The scan whose step closes a zero block (-1: none), and the cells' sums it closes with.
    @usableFromInline internal var _closedAt = -1
    @usableFromInline internal var _closedSums = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var _positions = false
    /// Each scan's window sums less the zeros (force, x and y moments), as
    /// ``_PressureWindow/position(gate:zeros:)`` computes them after that scan,
    /// valid for the scans before `_sumsUntil` (the zeros move at a zero block's close).
    @usableFromInline internal var _sumF = SIMD16<Float>()
    @usableFromInline internal var _sumX = SIMD16<Float>()
    @usableFromInline internal var _sumY = SIMD16<Float>()
    @usableFromInline internal var _sumsUntil = 0
    @usableFromInline internal var _position: PlatePoint?
    /// The health scores after the whole block as the read advanced them
    /// (with the touch band `_band` and the baseline `_baseline`, which
    /// moves only after the block), committed at its last scan while
    /// `_lazy`: no scan's step moved the touch band. Where one did (the
    /// gesture layer changed the levels), the scores are caught up scan by
    /// scan with the read's band and follow each scan from there.
    @usableFromInline internal var _state = _ScanState()
    @usableFromInline internal var _band: Float = 0
    @usableFromInline internal var _baseline: Float = 0
    @usableFromInline internal var _lazy = false
    /// Read by ``ForcePipeline/processQuietBlock(_:holdingPosition:replay:events:)``
    /// and refused only because the centre of pressure moves in it, before
    /// the classifier saw it (see ``positionMoved``).
    @usableFromInline internal var _moved = false

    @inlinable
    public init() {}

    /// The sample number of the block's first scan.
    @inlinable
    public var first: Int64 { _first }

    /// The centre of pressure after the last scan replayed (``ForcePipeline/pressPosition`` then).
    @inlinable
    public var position: PlatePoint? { _position }

    /// Whether scans of the block are still to be replayed.
    @inlinable
    public var isPending: Bool { _next < Classifier.blockScans }

    /// The scans still to be replayed.
    @inlinable
    public var remaining: Int { Classifier.blockScans &- _next }

    /// Whether ``ForcePipeline/processQuietBlock(_:holdingPosition:replay:events:)``
    /// refused the block only because its centre of pressure moves (the
    /// classifier has not been asked): one ``ForcePipeline/takePendingBlock(_:events:)`` may still take whole.
    @inlinable
    public var positionMoved: Bool { _moved }
}

extension ForcePipeline {
    /// Takes one block of ``Classifier/blockScans`` scans at `scans` through
    /// the block fast path, but only a block in which nothing is decided: the
    /// classifier takes it whole or steps it scan by scan without an event
    /// (as in ``processPressedBlock(_:into:replay:events:)``), no scan in it could
    /// raise a health event, and, with `holdingPosition` on a panel with cell
    /// positions, ``centreOfPressure`` stays ``lastDecidedPosition`` after
    /// each of its scans but the last (every window of four scans below the
    /// gate, and the cells' zeros unchanged until the block's last scan).
    /// Otherwise returns false: where the block was read but is refused (the
    /// classifier decides something in it, or the position moves), the read
    /// is committed and kept in `replay` (then ``GestureReplay/isPending``)
    /// for ``replayScan(_:into:)``, as ``processPressedBlock(_:into:replay:events:)``
    /// does; else, having changed nothing, and the caller steps the scans one at a time.
    ///
    /// The state it leaves is exactly that of ``process(scan:into:)`` for
    /// each scan (the same scan step, the same classifier block), so a caller
    /// that reads the pipeline only between scans, and needs nothing from a
    /// scan that decides nothing, cannot tell the difference.
    /// - Parameter holdingPosition: require the centre of pressure to stay put
    ///   (the gesture layer picks a region's levels from it while idle).
    /// - Complexity: O(blockScans × force channels); no allocation.
    @inlinable
    public mutating func processQuietBlock(_ scans: UnsafeRawPointer, holdingPosition: Bool,
                                           replay: inout GestureReplay, events: inout EventRing) -> Bool {
        if _decode.quadOffset >= 0 {
            return _processQuietQuadBlock(scans, holdingPosition: holdingPosition, replay: &replay, events: &events)
        }
        return _processQuietBlock(scans, holdingPosition: holdingPosition, replay: &replay, events: &events, quad: false)
    }

    /// ``processQuietBlock(_:holdingPosition:replay:events:)`` where
    /// ``_PanelDecoder/quadOffset`` is set, out of line (see ``_processPressedQuadBlock(_:into:replay:events:)``).
    @usableFromInline @inline(never)
    internal mutating func _processQuietQuadBlock(_ scans: UnsafeRawPointer, holdingPosition: Bool,
                                                  replay: inout GestureReplay, events: inout EventRing) -> Bool {
        _processQuietBlock(scans, holdingPosition: holdingPosition, replay: &replay, events: &events, quad: true)
    }

    /// ``processQuietBlock(_:holdingPosition:replay:events:)``'s body, `quad` a constant in each copy.
    @inlinable @inline(__always)
    internal mutating func _processQuietBlock(_ scans: UnsafeRawPointer, holdingPosition: Bool,
                                              replay: inout GestureReplay, events: inout EventRing, quad: Bool) -> Bool {
        // What process(scans:into:) and _processBlock ask before a block, in the same order.
        guard _classifier._blockFill == 0 && _classifier._history >= 2 else { return false }
        guard !_stuck && !_saturated && !_clipped && !_lost && !_classifier._suspended else { return false }
        let first = _nextSample
        guard first > 0 else { return false }
        let positions = _decode.hasPositions
        let holding = holdingPosition && positions
        // The force under which no window of four scans reaches the gate: each
        // scan's total below the zeros' total plus the gate, less a margin for
        // the window sum's rounding (generous: a refusal only costs per-scan steps).
        var limit = Float.infinity
        if holding {
            // The zeros move only where a zero block closes: at the block's last scan when aligned.
            guard Int(truncatingIfNeeded: first) & (CentreOfPressure.zeroBlockScans &- 1) == 0 else { return false }
            let gate = positionGate
            let zeros = _cellZeros.total
            limit = zeros + gate - (gate * 0.0625 + Float._abs(zeros) * 1e-5)
            // The window's scans before the block.
            for j in 1...(CentreOfPressure.windowScans &- 1) {
                if _pressure.force[Int(truncatingIfNeeded: first &- Int64(j)) & 3] >= limit { return false }
            }
        }
        // From here as _processBlock, on locals, until the classifier takes the block whole.
        guard let block = _readGestureBlock(scans, first: first, positions: positions, allMoments: false, quad: quad) else { return false }
        if holding {
            // Every scan but the last (the caller reads the position after it again).
            var top = block.forces
            top[Classifier.blockScans &- 1] = -Float.infinity
            if _maxLane(top) >= limit {
                _beginQuietReplay(block, scans, first: first, positions: positions, into: &replay)
                replay._moved = true
                return false
            }
        }
        // Changes nothing when it refuses the block; nor does the per-scan fallback where a scan decides.
        guard _classifier.stepBlock(older: block.older, previous: block.previous, forces: block.forces,
                                    firstSample: first, firstTimestampNs: block.firstStampNs)
                || _classifier._stepUndecided(block.forces, stamps: block.stamps, firstSample: first, into: &events) else {
            _beginQuietReplay(block, scans, first: first, positions: positions, into: &replay)
            return false
        }
        _commitGestureBlock(block, first: first, positions: positions)
        #if DEBUG
        _checkInvariants()
        #endif
        return true
    }

    /// ``_beginReplay(_:first:positions:into:)`` for a block read without every
    /// scan's moments: those the read did not keep, from the scans' bytes
    /// (summed as the scan step sums them), not by reading the block again.
    @inlinable @inline(__always)
    internal mutating func _beginQuietReplay(_ block: _GestureBlock, _ scans: UnsafeRawPointer, first: Int64, positions: Bool,
                                             into replay: inout GestureReplay) {
        _beginReplay(block, first: first, positions: positions, into: &replay)
        guard positions else { return }
        let tail = Classifier.blockScans &- CentreOfPressure.windowScans
        let size = layout.scanSize
        for j in 0..<tail {
            let (x, y) = _decode.moments(scans + j &* size)
            replay._x[j] = x
            replay._y[j] = y
        }
        for j in tail..<Classifier.blockScans {
            replay._x[j] = block.held.momentsX[j &- tail]
            replay._y[j] = block.held.momentsY[j &- tail]
        }
        _replayMomentSums(&replay)
    }

    /// Reads one block of ``Classifier/blockScans`` scans at `scans` for a
    /// replay: where no scan of it could raise a health event (as the block
    /// path asks), commits the read (the decode state, the counters, the
    /// sample numbers) and keeps the scans' forces, moments and timestamps
    /// in `replay`; the caller then takes every scan through
    /// ``replayScan(_:into:)`` before anything else touches the pipeline.
    /// Otherwise returns false, having changed nothing.
    /// - Complexity: O(blockScans × force channels); no allocation.
    @inlinable
    public mutating func readReplayBlock(_ scans: UnsafeRawPointer, into replay: inout GestureReplay) -> Bool {
        if _decode.quadOffset >= 0 { return _readReplayQuadBlock(scans, into: &replay) }
        return _readReplayBlock(scans, into: &replay, quad: false)
    }

    /// ``readReplayBlock(_:into:)`` where ``_PanelDecoder/quadOffset`` is set, out of line
    /// (see ``_processPressedQuadBlock(_:into:replay:events:)``).
    @usableFromInline @inline(never)
    internal mutating func _readReplayQuadBlock(_ scans: UnsafeRawPointer, into replay: inout GestureReplay) -> Bool {
        _readReplayBlock(scans, into: &replay, quad: true)
    }

    /// ``readReplayBlock(_:into:)``'s body, `quad` a constant in each copy.
    @inlinable @inline(__always)
    internal mutating func _readReplayBlock(_ scans: UnsafeRawPointer, into replay: inout GestureReplay, quad: Bool) -> Bool {
        // Only a block the classifier's own blocks start with: after its 16 steps the next block may be taken whole.
        guard _classifier._blockFill == 0 else { return false }
        guard !_stuck && !_saturated && !_clipped && !_lost && !_classifier._suspended else { return false }
        let first = _nextSample
        // The per-scan path judges the first scan's `same` and gap without a scan before it.
        guard first > 0 else { return false }
        let positions = _decode.hasPositions
        guard let block = _readGestureBlock(scans, first: first, positions: positions, allMoments: true, quad: quad) else { return false }
        _beginReplay(block, first: first, positions: positions, into: &replay)
        _replayMomentSums(&replay)
        return true
    }

    /// Commits what a block read leaves that no classifier step reads (as
    /// ``_processBlock`` does before it replays a block) and keeps the rest for the replay.
    @inlinable @inline(__always)
    internal mutating func _beginReplay(_ block: _GestureBlock, first: Int64, positions: Bool, into replay: inout GestureReplay) {
        _last = block.last
        _counters = block.counters
        _nextSample &+= Int64(Classifier.blockScans)
        _saturatedRun = 0
        if positions { _zeroSums = block.zeroSums }
        replay._first = first
        replay._next = 0
        replay._forces = block.forces
        replay._x = block.momentsX
        replay._y = block.momentsY
        withUnsafeMutableBytes(of: &replay._stamps) { $0.storeBytes(of: block.stamps, as: InlineArray<16, Int64>.self) }
        replay._changed = block.changed
        replay._state = block.state
        replay._band = _classifier._parameters.touchBand
        replay._baseline = block.baseline
        replay._lazy = true
        replay._moved = false
        replay._closedAt = block.held.closedAt
        replay._closedSums = block.held.closedSums
        replay._positions = positions
        replay._sumsUntil = 0
        // The window sums of every scan from the window before the block and the read's moments,
        // where the block starts a window (see _windowSums), until the zeros move.
        if positions && Int(truncatingIfNeeded: first) & (CentreOfPressure.windowScans &- 1) == 0 {
            let n = Float(CentreOfPressure.windowScans), zeros = _cellZeros
            replay._sumF = _windowSums(_pressure.force, block.forces) - SIMD16(repeating: n * zeros.total)
            replay._sumsUntil = block.held.closedAt >= 0 ? block.held.closedAt : Classifier.blockScans
        }
    }

    /// ``_beginReplay(_:first:positions:into:)``'s window sums of the moments, once
    /// `replay` holds every scan's moments.
    @inlinable @inline(__always)
    internal func _replayMomentSums(_ replay: inout GestureReplay) {
        guard replay._sumsUntil > 0 else { return }
        let n = Float(CentreOfPressure.windowScans), zeros = _cellZeros
        replay._sumX = _windowSums(_pressure.momentX, replay._x) - SIMD16(repeating: n * zeros.momentX)
        replay._sumY = _windowSums(_pressure.momentY, replay._y) - SIMD16(repeating: n * zeros.momentY)
    }

    /// The centres of pressure ``replayScan(_:into:)`` would give after each
    /// scan but the last of the pending block in `replay`, none of its scans
    /// replayed yet, were the classifier's levels (and so the gate) those of
    /// now on every scan and no scan to raise an event: their extremes
    /// (nil: no scan has a position past the gate, nor a last decided one),
    /// and whether a scan has none. Nil where the block is not pending
    /// untouched, its window sums do not cover those scans (it starts no
    /// window, or the zeros move in it), or a position is NaN.
    /// - Complexity: O(blockScans); no allocation.
    /// (`replay` is only read: in place, not copied.)
    @inlinable
    public func pendingPositions(_ replay: inout GestureReplay) -> (bounds: (low: PlatePoint, high: PlatePoint)?, unplaced: Bool)? {
        guard replay._next == 0 && replay._positions
                && replay._sumsUntil >= Classifier.blockScans &- 1 else { return nil }
        let threshold = positionGate * Float(CentreOfPressure.windowScans)
        // Scans 0 ... 14 (the last scan's position is read again after the block), one scalar
        // pass (a 16-lane comparison makes a mask lane by lane through memory): each position
        // as replayScan divides it, the scans below the gate taking the last decided one, once.
        var low = PlatePoint(x: .infinity, y: .infinity), high = PlatePoint(x: -.infinity, y: -.infinity)
        var past = false, below = false, nan = false
        withUnsafeBytes(of: &replay._sumF) { rf in
            withUnsafeBytes(of: &replay._sumX) { rx in
                withUnsafeBytes(of: &replay._sumY) { ry in
                    let sf = rf.baseAddress!.assumingMemoryBound(to: Float.self)
                    let sx = rx.baseAddress!.assumingMemoryBound(to: Float.self)
                    let sy = ry.baseAddress!.assumingMemoryBound(to: Float.self)
                    for k in 0..<(Classifier.blockScans &- 1) {
                        let f = sf[k]
                        if f >= threshold {
                            let x = sx[k] / f, y = sy[k] / f
                            low.x = x < low.x ? x : low.x
                            high.x = x > high.x ? x : high.x
                            low.y = y < low.y ? y : low.y
                            high.y = y > high.y ? y : high.y
                            nan = nan || x != x || y != y
                            past = true
                        } else {
                            below = true
                        }
                    }
                }
            }
        }
        var unplaced = false
        if below {
            if let last = _pressure.last {
                low.x = last.x < low.x ? last.x : low.x
                high.x = last.x > high.x ? last.x : high.x
                low.y = last.y < low.y ? last.y : low.y
                high.y = last.y > high.y ? last.y : high.y
                nan = nan || last.x != last.x || last.y != last.y
                past = true
            } else {
                unplaced = true
            }
        }
        guard !nan else { return nil }
        return (past ? (low, high) : nil, unplaced)
    }

    /// Takes the pending block in `replay`, none of its scans replayed yet,
    /// whole after all where the classifier decides nothing in it (as
    /// ``processQuietBlock(_:holdingPosition:replay:events:)`` takes a quiet
    /// block: the block step, else ``Classifier/_stepUndecided(_:stamps:firstSample:into:)``):
    /// the state left is that of ``replayScan(_:into:)`` over its 16 scans.
    /// The caller (the gesture layer, while idle) vouches that the
    /// classifier's parameters are those every scan's step would have had:
    /// the levels at every position ``pendingPositions(_:)`` reports are the
    /// ones set now. Otherwise (and, without stepping it, where a reading
    /// reaches the peek level: most such blocks peek) returns false, having
    /// changed nothing, and the replay goes on.
    /// - Complexity: O(blockScans); no allocation.
    @inlinable
    public mutating func takePendingBlock(_ replay: inout GestureReplay, events: inout EventRing) -> Bool {
        // The read's health scores stand (the touch band has not moved), and the zeros move
        // at most after the last scan (as the scan step closes them there).
        guard replay._next == 0 && _classifier._history >= 2 && replay._lazy && _classifier._parameters.touchBand == replay._band
                && _classifier._blockFill == 0 && replay._closedAt < Classifier.blockScans
                && (replay._closedAt < 0 || replay._closedAt == Classifier.blockScans &- 1) else { return false }
        let first = replay._first, c = replay._forces
        // A reading at the peek level or past it most likely peeks: replayed at once, not stepped twice.
        guard _maxLane(c) - _classifier._baseline < _classifier._parameters.peek else { return false }
        var window = InlineArray<18, Float>(repeating: 0)
        window[0] = _classifier._older
        window[1] = _classifier._previous
        withUnsafeMutableBytes(of: &window) { $0.storeBytes(of: c, toByteOffset: 8, as: SIMD16<Float>.self) }
        // Two loads, not one closure returning a tuple: a debug build instantiates the tuple's
        // type metadata at run time the first time it gets here (one allocation, once a process).
        let a = withUnsafeBytes(of: &window) { $0.loadUnaligned(as: SIMD16<Float>.self) }
        let b = withUnsafeBytes(of: &window) { $0.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self) }
        let stamps = withUnsafeBytes(of: &replay._stamps) { $0.loadUnaligned(as: InlineArray<16, Int64>.self) }
        guard _classifier.stepBlock(older: a, previous: b, forces: c, firstSample: first, firstTimestampNs: stamps[0])
                || _classifier._stepUndecided(c, stamps: stamps, firstSample: first, into: &events) else { return false }
        _scan = replay._state
        _lastForce = c[Classifier.blockScans &- 1]
        if replay._positions {
            let tail = Classifier.blockScans &- CentreOfPressure.windowScans
            var held = _BlockPositions()
            for j in 0..<CentreOfPressure.windowScans {
                held.momentsX[j] = replay._x[tail &+ j]
                held.momentsY[j] = replay._y[tail &+ j]
            }
            held.closedAt = replay._closedAt
            held.closedSums = replay._closedSums
            _recordTail(held, forces: c, first: first, upTo: Classifier.blockScans &- 1, baseline: replay._baseline)
        }
        replay._next = Classifier.blockScans
        replay._moved = false
        #if DEBUG
        _checkInvariants()
        #endif
        return true
    }

    /// Steps the next scan of `replay` exactly as ``process(scan:into:)``
    /// steps it, from the values the block read kept: the position window,
    /// the zero block it may close, the health scores (with the classifier's
    /// parameters of now: the gesture layer may change its levels between
    /// two scans), the classifier's step and the events' positions.
    /// - Returns: the scan's sample number.
    /// - Precondition: ``GestureReplay/isPending``.
    /// - Complexity: O(1) (O(force channels) where it closes a zero block); no allocation.
    @inlinable
    @discardableResult
    public mutating func replayScan(_ replay: inout GestureReplay, into events: inout EventRing) -> Int64 {
        let k = replay._next
        precondition(k < Classifier.blockScans, "replayScan: no scan of the block is left to replay")
        replay._next = k &+ 1
        let sample = replay._first &+ Int64(truncatingIfNeeded: k)
        // Lane k loaded from memory (a vector's lane at a variable index goes through a copy of the vector).
        let offset = k &* MemoryLayout<Float>.stride
        let force = withUnsafeBytes(of: &replay._forces) { $0.load(fromByteOffset: offset, as: Float.self) }
        let stamp = withUnsafeBytes(of: &replay._stamps) { $0.load(fromByteOffset: k &* MemoryLayout<Int64>.stride, as: Int64.self) }
        _lastForce = force
        if replay._positions {
            let x = withUnsafeBytes(of: &replay._x) { $0.load(fromByteOffset: offset, as: Float.self) }
            let y = withUnsafeBytes(of: &replay._y) { $0.load(fromByteOffset: offset, as: Float.self) }
            _pressure.record(sample: sample, force: force, x: x, y: y)
            if k == replay._closedAt { _closeZeroBlock(sums: replay._closedSums, baseline: _classifier._baseline) }
        }
        // _checkHealth without a rail or a fault (the read ruled them out), nor a flat run to judge
        // (its length does not depend on the levels, and the read found none reaching the stuck time):
        // the read's scores, unless the touch band moved since the read.
        if replay._lazy && _classifier._parameters.touchBand != replay._band {
            replay._lazy = false
            for j in 0..<k {
                let f = withUnsafeBytes(of: &replay._forces) { $0.load(fromByteOffset: j &* MemoryLayout<Float>.stride, as: Float.self) }
                _scan.advance(same: (replay._changed &>> UInt32(truncatingIfNeeded: j)) & 1 == 0,
                              atRest: ForcePipeline._atRest(f, baseline: replay._baseline, band: replay._band), force: f)
            }
        }
        if !replay._lazy {
            _scan.advance(same: (replay._changed &>> UInt32(truncatingIfNeeded: k)) & 1 == 0, atRest: _atRest(force), force: force)
        } else if k == Classifier.blockScans &- 1 {
            _scan = replay._state
        }
        let before = events.count
        _classifier.step(force: force, sample: sample, timestampNs: stamp, into: &events)
        if replay._positions {
            if events.count != before { _stampPositions(&events, from: before) }
            // pressPosition after the scan: from the block's window sums while the zeros are those
            // they were summed with (the gate as the classifier's levels are now), else from the window.
            if k < replay._sumsUntil {
                let f = withUnsafeBytes(of: &replay._sumF) { $0.load(fromByteOffset: offset, as: Float.self) }
                if f >= positionGate * Float(CentreOfPressure.windowScans) {
                    let x = withUnsafeBytes(of: &replay._sumX) { $0.load(fromByteOffset: offset, as: Float.self) }
                    let y = withUnsafeBytes(of: &replay._sumY) { $0.load(fromByteOffset: offset, as: Float.self) }
                    replay._position = PlatePoint(x: x / f, y: y / f)
                } else {
                    replay._position = _pressure.last
                }
            } else {
                replay._position = pressPosition
            }
        } else {
            replay._position = nil
        }
        #if DEBUG
        _checkInvariants()
        #endif
        return sample
    }
}
#endif
