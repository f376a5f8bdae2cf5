// The block step: a block of `blockScans` scans taken at once where nothing
// in it can change the state or emit an event, each rule advanced by its
// block form. Host-only: the block path is off on the microcontrollers
// (Classifier.blockPathEnabled), where the stubs at the end stand in.
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension Classifier {
    /// ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``'s body.
    @inlinable @inline(__always)
    internal mutating func _takeBlock(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                      firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        _stepBlockEntry(older: { a }, previous: { b }, forces: { c }, extremes: { Classifier._windowExtremes(a, c) },
                        firstSample: firstSample, firstTimestampNs: firstTimestampNs)
    }

    /// The batch step's block at `forces + i` (`timestamps + i` its stamps):
    /// taken whole by the block step, or where refused in runs
    /// (`_stepRefused`). The window is passed by its address: the block step
    /// reads it where it needs it, and no copy of it goes through the stack.
    /// - Precondition: `_blockFill` is 0 and the event ring is empty.
    @inlinable @inline(__always)
    internal mutating func _takeBlock(_ forces: UnsafePointer<Float>, at i: Int, timestamps: UnsafePointer<Int64>,
                                      firstSample: Int64, into events: inout EventRing) {
        let first = firstSample &+ Int64(i), stamp = timestamps[i]
        let took = _withWindow(forces, at: i) { _stepBlock(window: $0, firstSample: first, firstTimestampNs: stamp) }
        // Refused: taken here all the same (the ring is empty: room for two
        // events a scan), in closed form up to each scan that may decide something.
        if !took { _stepRefused(forces, at: i, timestamps: timestamps, firstSample: firstSample, into: &events) }
    }

    /// The window of the block at `forces + i`: `blockScans + 2` readings,
    /// the two before the block first. Within a batch they are the batch's
    /// own; for its first scans (after every drain) the two before come from
    /// the classifier, which holds the last two stepped, so a block need not
    /// wait for two scans of the call.
    @inlinable @inline(__always)
    internal func _withWindow<R>(_ forces: UnsafePointer<Float>, at i: Int, _ body: (UnsafeRawPointer) -> R) -> R {
        if i >= 2 { return body(UnsafeRawPointer(forces + (i - 2))) }
        var window = SIMD32<Float>()
        window[0] = _older
        window[1] = _previous
        withUnsafeMutableBytes(of: &window) { bytes in
            bytes.storeBytes(of: UnsafeRawPointer(forces + i).loadUnaligned(as: SIMD16<Float>.self),
                             toByteOffset: 8, as: SIMD16<Float>.self)
        }
        return withUnsafeBytes(of: &window) { body($0.baseAddress!) }
    }

    /// A window's three readings per scan: two before, one before, the scan's own.
    @inlinable @inline(__always)
    internal static func _windowReadings(_ window: UnsafeRawPointer) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        (window.loadUnaligned(as: SIMD16<Float>.self),
         window.loadUnaligned(fromByteOffset: MemoryLayout<Float>.stride, as: SIMD16<Float>.self),
         window.loadUnaligned(fromByteOffset: 2 &* MemoryLayout<Float>.stride, as: SIMD16<Float>.self))
    }

    /// `_trackBaseline` of a block settled throughout (the block step's
    /// common case), `bits` a constant: no settled bits held across the
    /// tracker's calls and no tests of them.
    @usableFromInline @inline(never)
    internal mutating func _trackWholeBaseline(block v: SIMD16<Float>) {
        _trackBaseline(block: v, settled: Classifier.blockBits)
    }

    /// `_trackBaseline` of any other block the block step takes.
    @usableFromInline @inline(never)
    internal mutating func _trackPartBaseline(block v: SIMD16<Float>, settled bits: UInt32) {
        _trackBaseline(block: v, settled: bits)
    }

    /// ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``'s
    /// body, written once for it and for `_stepBlock(window:firstSample:firstTimestampNs:)`:
    /// the window's readings and extremes as closures, inlined where they
    /// are used, so that the window version loads its readings after the
    /// extremes' call (loaded before it, they were spilled across it).
    @inlinable @_transparent
    internal mutating func _stepBlockEntry(older a: () -> SIMD16<Float>, previous b: () -> SIMD16<Float>,
                                           forces c: () -> SIMD16<Float>, extremes window: () -> SIMD8<Float>,
                                           fillChecked: Bool = false,
                                           firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        guard Classifier.blockPathEnabled else { return false }
        // `fillChecked` (a constant): the caller has found `_blockFill` 0.
        guard (fillChecked || _blockFill == 0) && _history >= 2 && !_suspended && _parameters.filteredAndTracked else {
            return false
        }
        // The window's highest and lowest reading: the last halving of its
        // four-lane max and min here (see `_windowExtremes`).
        let extremes = window()
        let highs = _laneMax(extremes.lowHalf.lowHalf, extremes.lowHalf.highHalf)
        let lows = _laneMin(extremes.highHalf.lowHalf, extremes.highHalf.highHalf)
        let top = Float._max(highs[0], highs[1])
        let bottom = Float._min(lows[0], lows[1])
        // Settled readings as `step` finds them (the block is idle throughout
        // or busy throughout: nothing below changes the state or the quiet
        // run), found before the levels are, where only the extremes are
        // live across `_settledBitsPartly`'s call; the quiet run stored only
        // where the block is taken.
        let settled = _blockSettledBits(busy: _state == .idle ? 0 : Classifier.blockBits)
        // No spike can be counted where the whole window spans no more than
        // the spike size (a quiet panel). A wider window (a held press with
        // tremor, hum) counts its spikes lane by lane, out of line, so that
        // the quiet block's code stays as it was.
        guard top - bottom <= _parameters.spikeSize else {
            return _stepWideBlock(older: a(), previous: b(), forces: c(), top: top, bottom: bottom, settled: settled,
                                  firstSample: firstSample, firstTimestampNs: firstTimestampNs)
        }
        return _stepBlock(older: a, previous: b, forces: c, top: top, bottom: bottom, settled: settled,
                          countingSpikes: false, firstSample: firstSample, firstTimestampNs: firstTimestampNs)
    }

    /// `_settledBits(busy:peeks: 0)` for a block idle throughout (`busy` 0)
    /// or busy throughout, without storing the quiet run: the settled bits
    /// and the quiet run after the block, which the block step stores only
    /// where it takes the block.
    @inlinable @inline(__always)
    internal func _blockSettledBits(busy: UInt32) -> (bits: UInt32, quietScans: Int32) {
        if busy == 0 && _quietScans >= _parameters.settleScans &- 1 {
            return (Classifier.blockBits, _min(_quietScans &+ Int32(Classifier.blockScans), Classifier.countCeiling))
        }
        if busy == Classifier.blockBits { return (0, 0) }
        return Classifier._blockSettlingBits(run: _quietScans, settleScans: _parameters.settleScans)
    }
    /// `_settlingBits` out of line: rare (the first blocks after a press).
    @usableFromInline @inline(never)
    internal static func _blockSettlingBits(run: Int32, settleScans: Int32) -> (bits: UInt32, quietScans: Int32) {
        _settlingBits(run: run, settleScans: settleScans)
    }

    /// ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``
    /// past its first guards, with the window's highest and lowest reading;
    /// with `countingSpikes` (a constant at each call) the spikes are counted
    /// lane by lane, as `step` counts them.
    @inlinable @_transparent
    internal mutating func _stepBlock(older a: () -> SIMD16<Float>, previous b: () -> SIMD16<Float>, forces c: () -> SIMD16<Float>,
                                      top: Float, bottom: Float, settled: (bits: UInt32, quietScans: Int32),
                                      countingSpikes: Bool, firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        let high = top - _baseline, low = bottom - _baseline
        // Every reading on one side of each level: runs and crossings advance in closed form.
        // A swing below the touch band restarts the vibration hold-off: per scan.
        guard low >= _parameters.underTouchBand else { return false }
        let abovePeek = low >= _parameters.peek, belowPeek = high < _parameters.peek
        let abovePop = low >= _parameters.pop, belowPop = high < _parameters.pop
        let aboveRelease = low >= _releaseLevel, belowRelease = high < _releaseLevel
        guard abovePeek || belowPeek, abovePop || belowPop, aboveRelease || belowRelease else { return false }
        let lastSample = firstSample &+ Int64(Classifier.blockScans - 1)
        // Whether the block's last scan is the last at rest: known without
        // a load where the block is at rest.
        var restNow = false
        var aboveBand = false
        switch _state {
        case .idle:
            guard belowPeek else { return false }
            // Creep compensation runs on an idle scan past the release level
            // too, and moves the readings the levels see: per scan.
            if !belowRelease && _parameters.creepAmount > 0 { return false }
            // The last scan at rest, as the per-scan path records it: a block
            // on one side of the touch band moves it in closed form.
            let atRest = high < _parameters.touchBand
            if atRest {
                restNow = true
            } else if low < _parameters.touchBand
                || _rise.shapeRead(firstSample: firstSample, lastSample: lastSample, curveScans: _parameters.vibrationCurveScans) {
                // Readings on both sides of the touch band (a light touch, a
                // tail of a release), or a touch above it whose rise's shape
                // `step` reads in this block (one or two curve spans after
                // the last scan at rest): the last scan at rest and the
                // rise's shape scan by scan, on the filtered readings.
                _followRest(older: a(), previous: b(), forces: c(), firstSample: firstSample)
            } else {
                aboveBand = true
            }
        case .peeking:
            // The let-go rule decides per scan.
            guard belowPop && aboveRelease && !_letGoArmed else { return false }
            // Creep compensation moves every scan's reading: per scan. The
            // creep allowance alone leaves the readings as they are and only
            // raises the pop level, which a block below `pop` never meets:
            // its settled level is followed below (`_creepBlock`).
            if _parameters.creepAmount > 0 { return false }
            if _parameters.holdScans > 0 && !_hold.done {
                if high > _hold.reference + _parameters.holdRise {
                    // A new high may restart the hold's settle clock: followed
                    // scan by scan, and per scan where the hold would fire.
                    guard _followHold(older: a(), previous: b(), forces: c(), firstSample: firstSample) else { return false }
                } else if _hold.due(sample: lastSample, peekSample: _peekSample, holdScans: _parameters.holdScans,
                                    settleScans: _parameters.holdSettleScans) {
                    // The hold may fire: per scan.
                    return false
                }
            }
        case .popped:
            guard aboveRelease && !_letGoArmed else { return false }
        }
        // The settled readings were found on entry (`_blockSettledBits`).
        _quietScans = settled.quietScans
        // The runs and crossings first: the levels and the window's extremes
        // end here, so that they are not held (spilled) through the median.
        let n = Int32(Classifier.blockScans)
        _debounce.advance(sides: (abovePeek, abovePop, belowRelease), scans: n, sample: firstSample,
                      timestampNs: firstTimestampNs)
        // The median where a scan is no longer than a spike (the common
        // rates); the isolated rule (9-10 scans/s) out of line, so that its
        // registers are not saved around it on every quiet block.
        // The median's operations written out (`SpikeFilter.median`'s, in its order):
        // the generic one was left out of line in this function.
        let filtered = _parameters.spikeIsolated ? _isolatedFilter(a(), b(), c())
            : SpikeFilter.median(a(), b(), c())
        if countingSpikes {
            _spikesRejected &+= Classifier._spikesCounted(a(), b(), c(), filtered: filtered,
                                                          size: _parameters.spikeSize)
        }
        _older = c()[14]
        _previous = c()[15]
        _lastForce = filtered[15] - _baseline
        // The creep rules ran on every scan (each past the release level):
        // what they leave, on the readings less the baseline before the
        // block's tracking moves it.
        if aboveRelease && _parameters.creepRules { _creepBlock(filtered) }
        if restNow || _rise.restSample == lastSample { _rise.rested(at: lastSample, force: _lastForce) }
        // A block at rest (every reading below the touch band) ends in no touch;
        // one taken while pressed is busy throughout.
        // An idle block wholly above the touch band: its lowest reading is the
        // let-go rule's rest as `step` lowers it (`_followRest` takes the others).
        if aboveBand { _restLow = Float._min(_restLow, (_minLane(filtered) - _baseline) + _baseline) }
        if _relearn && _relearnDue(settled.bits) && _relearnIfDue(filtered, settled: settled.bits) {
            // The baseline moved to the rest after a release (as in `_closeBlock`).
        } else if !restNow && _state == .idle && _endsInTouch(filtered) {
            _touchedBlock(first: filtered[0], settled: settled.bits)
        } else if settled.bits == Classifier.blockBits {
            _trackWholeBaseline(block: filtered)
        } else {
            _trackPartBaseline(block: filtered, settled: settled.bits)
        }
        _fastBlocks &+= 1
        #if DEBUG
        _checkInvariants()
        #endif
        return true
    }

    /// ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``
    /// on a window of `blockScans + 2` readings at `window` (`older` from
    /// the first, `previous` from the second, `forces` from the third), as
    /// the batch step has them: loaded here, so that the caller neither
    /// loads them nor stores `forces` to the stack for the call.
    /// - Precondition: `_blockFill` is 0 (the batch step calls it only then).
    @usableFromInline @inline(never)
    internal mutating func _stepBlock(window: UnsafeRawPointer, firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        _stepBlockEntry(older: { window.loadUnaligned(as: SIMD16<Float>.self) },
                        previous: { window.loadUnaligned(fromByteOffset: MemoryLayout<Float>.stride, as: SIMD16<Float>.self) },
                        forces: { window.loadUnaligned(fromByteOffset: 2 &* MemoryLayout<Float>.stride, as: SIMD16<Float>.self) },
                        extremes: { Classifier._windowExtremes(window: window) }, fillChecked: true,
                        firstSample: firstSample, firstTimestampNs: firstTimestampNs)
    }

    /// The window's lane max and min (`older`'s readings and the last four of
    /// `forces`: the rest of `forces` and `previous` lie inside them), four
    /// lanes each: the highest four in the low half, the lowest four in the
    /// high half. The window's highest and lowest readings whatever the order
    /// of the comparisons, as the block step asks them (which of two equal
    /// zeros of opposite sign it gets moves no comparison). Out of
    /// line, the last halving the caller's: inlined, LLVM's vectoriser took
    /// that step's two lanes as its width and did both reductions two lanes
    /// at a time from the window up, each four-lane step twice.
    @usableFromInline @inline(never)
    internal static func _windowExtremes(_ a: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD8<Float> {
        _windowExtremesBody(a, last: c.highHalf.highHalf)
    }
    /// `_windowExtremes` of the window at `window` (see `_stepBlock(window:firstSample:firstTimestampNs:)`).
    @usableFromInline @inline(never)
    internal static func _windowExtremes(window: UnsafeRawPointer) -> SIMD8<Float> {
        _windowExtremesBody(window.loadUnaligned(as: SIMD16<Float>.self),
                            last: window.loadUnaligned(fromByteOffset: (Classifier.blockScans &- 2) &* MemoryLayout<Float>.stride,
                                                       as: SIMD4<Float>.self))
    }
    @inlinable @inline(__always)
    internal static func _windowExtremesBody(_ a: SIMD16<Float>, last: SIMD4<Float>) -> SIMD8<Float> {
        let x8 = _laneMax(a.lowHalf, a.highHalf), n8 = _laneMin(a.lowHalf, a.highHalf)
        return SIMD8<Float>(lowHalf: _laneMax(_laneMax(x8.lowHalf, x8.highHalf), last),
                            highHalf: _laneMin(_laneMin(n8.lowHalf, n8.highHalf), last))
    }

    /// The spike filter of a block where a scan is longer than a spike
    /// (`spikeIsolated`): ``SpikeFilter.filter(_:_:_:isolated:agreement:floor:)``
    /// with the block step's arguments, out of line.
    @usableFromInline @inline(never)
    internal func _isolatedFilter(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
        SpikeFilter.filter(a, b, c, isolated: true, agreement: _parameters.spikeAgreement,
                     floor: _baseline - _parameters.touchBand)
    }

    /// A block whose window spans more than the spike size (a press held
    /// with tremor, hum on a load), taken where its readings keep to one
    /// side of every level like a quiet block's; its spikes are counted lane by lane.
    @usableFromInline @inline(never)
    internal mutating func _stepWideBlock(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                          top: Float, bottom: Float, settled: (bits: UInt32, quietScans: Int32),
                                          firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        _stepBlock(older: { a }, previous: { b }, forces: { c }, top: top, bottom: bottom, settled: settled, countingSpikes: true,
                   firstSample: firstSample, firstTimestampNs: firstTimestampNs)
    }

    /// An idle block below the peek level whose filtered readings lie on both
    /// sides of the touch band: the last scan at rest, its reading and the
    /// rise's shape (see `step`), scan by scan as `step` moves them. The
    /// block is taken: call it only once every other guard has passed.
    @usableFromInline @inline(never)
    internal mutating func _followRest(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                       firstSample: Int64) {
        let filtered = SpikeFilter.filter(a, b, c, isolated: _parameters.spikeIsolated, agreement: _parameters.spikeAgreement,
                                    floor: _baseline - _parameters.touchBand)
        var k = 0
        while k < Classifier.blockScans {
            let y = filtered[k] - _baseline
            if !_rise.observe(y, sample: firstSample &+ Int64(truncatingIfNeeded: k), touchBand: _parameters.touchBand,
                              curveScans: _parameters.vibrationCurveScans) {
                _restLow = Float._min(_restLow, y + _baseline)
            }
            k &+= 1
        }
    }

    /// A peeking block whose readings may climb past the hold's reference:
    /// the reference followed scan by scan as `step` follows it. Returns
    /// false, having changed nothing, where the hold would fire in the block.
    @usableFromInline @inline(never)
    internal mutating func _followHold(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                       firstSample: Int64) -> Bool {
        let filtered = SpikeFilter.filter(a, b, c, isolated: _parameters.spikeIsolated, agreement: _parameters.spikeAgreement,
                                    floor: _baseline - _parameters.touchBand)
        let baseline = _baseline
        var hold = _hold
        guard hold.follow({ filtered[$0] - baseline }, from: 0, upTo: Classifier.blockScans, firstSample: firstSample,
                          peekSample: _peekSample, rise: _parameters.holdRise, holdScans: _parameters.holdScans,
                          settleScans: _parameters.holdSettleScans) == Classifier.blockScans else { return false }
        _hold = hold
        return true
    }

    /// The spikes `step` counts in a block: the readings the filter moved by
    /// more than `size` whose neighbours agree better than the reading
    /// agrees with the one before, lane by lane (the same comparisons on
    /// the same values as `step`'s).
    @inlinable @inline(__always)
    internal static func _spikesCounted(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>,
                                        filtered: SIMD16<Float>, size: Float) -> Int64 {
        let moved = SIMD16<Float>._abs(filtered - b) .> SIMD16<Float>(repeating: size)
        let apart = SIMD16<Float>._abs(a - c) .< SIMD16<Float>._abs(b - a)
        return Int64(SIMD16<Int32>().replacing(with: 1, where: moved .& apart).wrappedSum())
    }
}
#else
extension Classifier {
    /// No block step on the microcontrollers: never called (`blockPathEnabled` is false).
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _takeBlock(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                      firstSample: Int64, firstTimestampNs: Int64) -> Bool { false }
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _takeBlock(_ forces: UnsafePointer<Float>, at i: Int, timestamps: UnsafePointer<Int64>,
                                      firstSample: Int64, into events: inout EventRing) {}
}
#endif
