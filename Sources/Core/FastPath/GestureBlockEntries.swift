// The gesture layer's block entries: a block taken whole where the
// classifier decides nothing in it, while a press is held (with every scan's
// force and position) or while quiet, and a pending replay taken whole after
// all. Each refuses a block it cannot take exactly, leaving it to the replay
// or to the scan step. Host-side: not built for Embedded targets.
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
    @inlinable @inline(__always)
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

extension ForcePipeline {
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
            Self._replayMomentSums(&replay, window: _pressure, zeros: _cellZeros)
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
            Self._blockPositions(windowBefore, zerosBefore, forces: c, momentsX: block.momentsX, momentsY: block.momentsY,
                            gate: gate, into: &out)
            out._set(Classifier.blockScans &- 1, _pressure._peekPosition(gate: gate, zeros: _cellZeros))
        }
        #if DEBUG
        _checkInvariants()
        #endif
        return true
    }

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
        Self._replayMomentSums(&replay, window: _pressure, zeros: _cellZeros)
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
}
#endif
