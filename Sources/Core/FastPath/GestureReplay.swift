// A block read once and then stepped scan by scan from what the read
// kept: the replay the gesture layer takes where the classifier decides
// something in a block. Host-side: not built for Embedded targets.
#if !hasFeature(Embedded)
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
        Self._replayMomentSums(&replay, window: _pressure, zeros: _cellZeros)
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
    /// `replay` holds every scan's moments, from the pipeline's position
    /// window and cell zeros. Static, so that a call that is not inlined
    /// passes no copy of the pipeline.
    @inlinable @inline(__always)
    internal static func _replayMomentSums(_ replay: inout GestureReplay, window: _PressureWindow, zeros: _CellZeros) {
        guard replay._sumsUntil > 0 else { return }
        let n = Float(CentreOfPressure.windowScans)
        replay._sumX = _windowSums(window.momentX, replay._x) - SIMD16(repeating: n * zeros.momentX)
        replay._sumY = _windowSums(window.momentY, replay._y) - SIMD16(repeating: n * zeros.momentY)
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
