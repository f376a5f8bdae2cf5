// The pipeline's block path: a block of `blockScans` scans decoded, judged
// for health and handed to the classifier's block step at once. Host-only:
// the block path is off on the microcontrollers (Classifier.blockPathEnabled),
// where the stub at the end stands in.
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension ForcePipeline {
    /// ``_processBlock(_:into:)``'s body.
    @inlinable @inline(__always)
    internal mutating func _takeBlock(_ scans: UnsafeRawPointer, into events: inout EventRing) -> Bool {
        // Four side-by-side channels read four scans at a time, in a copy of
        // their own, so that neither body spills the other's registers.
        // Chosen here, in the caller, so that the plate's blocks do not pay
        // the other formats' prologue (stack guard, saved registers) to
        // reach their own.
        if _decode.quadOffset >= 0 { return _processQuadBlock(scans, into: &events) }
        return _processOtherBlock(scans, into: &events)
    }

    /// ``_processBlock(_:into:)`` where ``_PanelDecoder/quadOffset`` is not set.
    @usableFromInline @inline(never)
    internal mutating func _processOtherBlock(_ scans: UnsafeRawPointer, into events: inout EventRing) -> Bool {
        _processBlock(scans, into: &events, quad: false)
    }

    /// ``_processBlock(_:into:)`` where ``_PanelDecoder/quadOffset`` is set.
    @usableFromInline @inline(never)
    internal mutating func _processQuadBlock(_ scans: UnsafeRawPointer, into events: inout EventRing) -> Bool {
        _processBlock(scans, into: &events, quad: true)
    }

    /// ``_processBlock(_:into:)``'s body, `quad` a constant in each copy.
    @inlinable @inline(__always)
    internal mutating func _processBlock(_ scans: UnsafeRawPointer, into events: inout EventRing, quad: Bool) -> Bool {
        guard !_stuck && !_saturated && !_clipped && !_lost && !_classifier._suspended else { return false }
        let first = _nextSample
        // The per-scan path judges the first scan's `same` and gap without a scan before it.
        guard first > 0 else { return false }
        let stuckScans = _classifier._parameters.stuckScans
        let positions = _decode.hasPositions
        // The last scan and the counters advance in place, put back where
        // the block is left to the per-scan path; the zero sums in a local.
        let lastBefore = _last, countersBefore = _counters
        var zeroSums = _zeroSums
        var forces = SIMD16<Float>()
        var stamps = _zeroed(InlineArray<16, Int64>.self)
        var changed: UInt32 = 0
        // Moments only of the last scans, the ones the position window keeps
        // (a block that falls back to per-scan steps recomputes the others).
        var held = _BlockPositions()
        var unusedX = SIMD16<Float>(), unusedY = SIMD16<Float>()
        // A scan on a rail raises `saturated`: the per-scan path handles it.
        guard _decode.readBlock(scans, stride: layout.scanSize, first: first, last: &_last, counters: &_counters,
                                timing: _timing, positions: positions, totals: &forces, stamps: &stamps,
                                changed: &changed, held: &held, zeroSums: &zeroSums, quad: quad,
                                momentsX: &unusedX, momentsY: &unusedY) else {
            _last = lastBefore
            _counters = countersBefore
            return false
        }
        // Plain arrays filled scalar by scalar (a vector insert per scan stalls),
        // loaded as vectors once.
        var window = _zeroed(InlineArray<18, Float>.self)
        window[0] = _classifier._older
        window[1] = _classifier._previous
        withUnsafeMutableBytes(of: &window) { $0.storeBytes(of: forces, toByteOffset: 8, as: SIMD16<Float>.self) }
        // The baseline moves only at block ends, so `_atRest` reads the
        // value the per-scan path would. Where a flat run is judged, the per-scan path decides.
        let baseline = _classifier._baseline, band = _classifier._parameters.touchBand
        let advanced = withUnsafeBytes(of: &window) { raw in
            _scan.advance(block: raw.baseAddress!.assumingMemoryBound(to: Float.self) + 2, changed: changed,
                          baseline: baseline, band: band, stuckScans: stuckScans)
        }
        // The scores advanced in place, or (false) not at all.
        guard advanced else {
            _last = lastBefore
            _counters = countersBefore
            return false
        }
        // Nothing here can raise a health event: commit what the per-scan path would have.
        _nextSample &+= Int64(Classifier.blockScans)
        _saturatedRun = 0
        _lastForce = window[Classifier.blockScans &+ 1]
        // The classifier's block starts with this one, so its baseline stays
        // this value until after the block's last step: what every zero
        // block closed in here is judged against, on either path.
        let baselineBefore = _classifier._baseline
        // The block step reads the window where it lies (its three readings
        // passed as vectors went through the stack, and stayed spilled across the call).
        var took = false
        if _classifier._blockFill == 0 {
            let stamp = stamps[0]
            took = withUnsafeBytes(of: &window) { raw in
                _classifier._stepBlock(window: raw.baseAddress!, firstSample: first, firstTimestampNs: stamp)
            }
        }
        let (a, b, c) = withUnsafeBytes(of: &window) { Classifier._windowReadings($0.baseAddress!) }
        if took {
            if positions {
                _zeroSums = zeroSums
                _recordTail(held, forces: c, first: first, upTo: Classifier.blockScans &- 1, baseline: baselineBefore)
            }
        } else if positions {
            _zeroSums = zeroSums
            _replayWithPositions(scans, held: held, older: a, previous: b, forces: c, stamps: stamps, first: first,
                                 baseline: baselineBefore, into: &events)
        } else {
            // In closed form up to each scan that may decide something, that one stepped.
            withUnsafeBytes(of: stamps) { raw in
                _classifier._stepRefused(older: a, previous: b, forces: c, stamps: raw.baseAddress!.assumingMemoryBound(to: Int64.self),
                                         firstSample: first, into: &events)
            }
        }
        #if DEBUG
        _checkInvariants()
        #endif
        return true
    }

    /// Records the window's moments of a block taken whole, and closes its zero block.
    @usableFromInline @inline(never)
    internal mutating func _recordTail(_ held: _BlockPositions, forces c: SIMD16<Float>, first: Int64, upTo last: Int,
                                       baseline: Float) {
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
        if last == Classifier.blockScans &- 1 && CentreOfPressure.windowScans == 4 {
            // The window whole: its four slots are the block's last four scans.
            let quarters = unsafeBitCast(c, to: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>).self)
            _pressure.record(first: first &+ Int64(tail), forces: quarters.3,
                             x: unsafeBitCast(held.momentsX, to: SIMD4<Float>.self),
                             y: unsafeBitCast(held.momentsY, to: SIMD4<Float>.self))
        } else {
            for k in tail...last {
                _pressure.record(sample: first &+ Int64(k), force: c[k], x: held.momentsX[k &- tail], y: held.momentsY[k &- tail])
            }
        }
        if held.closedAt >= 0 { _closeZeroBlock(sums: held.closedSums, baseline: baseline) }
    }

    /// A block decoded whole whose classification needs per-scan steps, on a
    /// panel with positions: the classifier's steps as on a panel without
    /// them (``Classifier/_stepRefused(older:previous:forces:stamps:firstSample:into:)``,
    /// in closed form up to each scan that may decide something), then the
    /// positions of the events they raised, each as the per-scan path gives
    /// it: the window's moments recorded and the zero block closed as they
    /// stand at the scan that raised it (the classifier reads neither, so
    /// its steps need not wait for them). An event carries the sample of the
    /// step that raised it, so the events of one step are a run of one sample.
    /// Each of the block's 16 steps was a full scan step here: 3,500
    /// instructions a refused block on the four-cell plate.
    @usableFromInline @inline(never)
    internal mutating func _replayWithPositions(_ scans: UnsafeRawPointer, held: _BlockPositions, older a: SIMD16<Float>,
                                                previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                                stamps: InlineArray<16, Int64>, first: Int64, baseline: Float,
                                                into events: inout EventRing) {
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
        let size = layout.scanSize
        let before = events.count
        withUnsafeBytes(of: stamps) { raw in
            _classifier._stepRefused(older: a, previous: b, forces: c, stamps: raw.baseAddress!.assumingMemoryBound(to: Int64.self),
                                     firstSample: first, into: &events)
        }
        var closed = held.closedAt < 0
        var e = before
        while e < events.count {
            let sample = events._sample(at: e)
            let k = Int(truncatingIfNeeded: sample &- first)
            var end = e &+ 1
            while end < events.count && events._sample(at: end) == sample { end &+= 1 }
            // The window at scan k: its scans in this block recorded again
            // (the ones before it stand as the last block left them).
            var j = Swift.max(0, k &- (CentreOfPressure.windowScans &- 1))
            while j <= k {
                if j >= tail {
                    _pressure.record(sample: first &+ Int64(j), force: c[j], x: held.momentsX[j &- tail], y: held.momentsY[j &- tail])
                } else {
                    let (x, y) = _decode.moments(scans + j &* size)
                    _pressure.record(sample: first &+ Int64(j), force: c[j], x: x, y: y)
                }
                j &+= 1
            }
            if !closed && held.closedAt <= k {
                _closeZeroBlock(sums: held.closedSums, baseline: baseline)
                closed = true
            }
            events._stampPositions(from: e, upTo: end,
                                   _pressure.position(gate: _classifier._parameters.peek * CentreOfPressure.gateFraction, zeros: _cellZeros))
            e = end
        }
        for k in tail..<Classifier.blockScans {
            _pressure.record(sample: first &+ Int64(k), force: c[k], x: held.momentsX[k &- tail], y: held.momentsY[k &- tail])
        }
        if !closed { _closeZeroBlock(sums: held.closedSums, baseline: baseline) }
    }
}
#else
extension ForcePipeline {
    /// No block path on the microcontrollers: never called (`blockPathEnabled` is false).
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _takeBlock(_ scans: UnsafeRawPointer, into events: inout EventRing) -> Bool { false }
}
#endif
