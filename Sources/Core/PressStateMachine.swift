// The press state machine: idle, peeking, popped, one handler each, over
// the rules' verdicts (docs/classifier.md).
extension Classifier {
    /// The press state machine on a scan the rules have advanced: one
    /// handler per state (docs/classifier.md has the diagram, which
    /// `ClassifierDiagramTests` holds the code to). A peek and a pop may come
    /// on one scan; a let-go or a release ends the press.
    @inlinable
    internal mutating func _decide(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if _state == .idle && !_whileIdle(y: y, sample: sample, timestampNs: timestampNs, into: &events) { return }
        // A let-go from a press whose rest stood above the touch band.
        if _letGoArmed && _letGoIfEvident(y: y, sample: sample, timestampNs: timestampNs, into: &events) { return }
        if _state == .peeking && _whilePeeking(y: y, sample: sample, timestampNs: timestampNs, into: &events) { return }
        _whilePressed(y: y, sample: sample, timestampNs: timestampNs, into: &events)
    }

    /// Idle: a peek, where the debounced run allows it and neither the
    /// vibration guard nor the noisy-crossing rule waits. Returns whether it peeked.
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _whileIdle(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) -> Bool {
        if _vibrationWaits(y: y, sample: sample) { return false }
        guard _debounce.pressLock == 0 && _debounce.peekRun >= _parameters.pressScans
                && sample &- _undershootSample > _parameters.vibrationHoldoffScans else { return false }
        // A slow rise on a noisy panel: three readings past the level.
        if _noisyCrossingWaits(run: _debounce.peekRun, pop: false, since: sample &- _rise.restSample) { return false }
        _emit(.peek, crossing: _debounce.peekCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
        // The readings of the settle time before it, within this block,
        // were its approach: not settled (see `_settledBits`).
        _blockPeeks |= 1 &<< UInt32(truncatingIfNeeded: _blockFill)
        _state = .peeking
        _peekSample = sample
        _hold.start(y, sample: sample)
        _settled = y
        _debounce.releaseLock = _parameters.pressLockScans
        _armLetGo()
        return true
    }

    /// Peeking: a pop, where the debounced run allows it; else a hold, where
    /// the hold timer is due. Returns whether it popped.
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _whilePeeking(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) -> Bool {
        if _parameters.creepAllowance > 0 { _settled += _parameters.creepSmoothing * (y - _settled) }
        // Still climbing toward pop: the hold timer's settle clock restarts.
        if _parameters.holdScans > 0 && !_hold.done { _hold.follow(y, sample: sample, rise: _parameters.holdRise) }
        // A slow rise on a noisy panel: two readings past the level.
        let popDue = _debounce.popRun >= _parameters.pressScans
            && !_noisyCrossingWaits(run: _debounce.popRun, pop: true, since: sample &- _peekSample)
        if popDue {
            _emit(.pop, crossing: _debounce.popCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .popped
            _debounce.releaseLock = _parameters.pressLockScans
            return true
        }
        // A hold is a peek held: never on a reading at or below the
        // release level (a let-go, whose release may wait a scan for the
        // held press's margin, `_releaseEvident`). The block path never
        // fires a hold itself (it leaves every scan where one may fire to
        // this code), so both paths agree.
        if _parameters.holdScans > 0 && !_hold.done && y > _releaseLevel
            && _hold.due(sample: sample, peekSample: _peekSample, holdScans: _parameters.holdScans,
                         settleScans: _parameters.holdSettleScans) {
            _hold.done = true
            _emit(.hold, crossing: nil, force: y, sample: sample, timestampNs: timestampNs, into: &events)
        }
        return false
    }

    /// Peeking or popped: a release, where the debounce allows it and the
    /// readings show it (`_releaseIfEvident`).
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _whilePressed(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if _debounce.releaseLock == 0 && _debounce.releaseRun >= _parameters.releaseScans {
            _releaseIfEvident(y: y, sample: sample, timestampNs: timestampNs, into: &events)
        }
    }

    /// The vibration guard, on an idle scan past the peek level: whether the
    /// peek waits.
    ///
    /// Vibration whose first swing is upward: a 20-60 Hz oscillation
    /// climbs from rest past the peek level within a quarter period
    /// (4-12.5 ms), faster than a finger (20 ms and more; only a slam is
    /// as quick). After so fast a rise the peek waits a few scans, kept
    /// inside the latency budget, and is dropped if the force falls a
    /// quarter below its crest meanwhile: an oscillation turning over
    /// (a slam holds or climbs). That fall starts the hold-off, so the
    /// burst's later swings (each after a swing below zero) wait too.
    ///
    /// The wait cannot see a 20-40 Hz swing that starts from its zero
    /// crossing: it crests 6-12.5 ms in, after the wait. Its shape gives it
    /// away: a ringing plate starts at its fastest and slows at once (a
    /// sine, concave), while a finger's force from rest first speeds up
    /// (the fingertip stiffens: convex, or a straight ramp at worst). So
    /// the rise is measured one and two curve spans after the last scan
    /// at rest; if concave, the peek waits until a 20 Hz swing would
    /// have turned over (`vibrationCurveWaitScans` after rest), dropped
    /// like the rest if it falls a quarter below its crest. A slam that
    /// reaches its plateau within the span pays that wait, unless it is
    /// pinned there: three raw readings in a row, each within a
    /// hundredth of the peek level of the one before (a rail, a stop),
    /// are no oscillation. Near its crest a swing of amplitude A sampled
    /// N times a period moves A (2 pi / N)^2 between the second and the
    /// third reading about the crest (taken where the crest falls
    /// midway between two readings, the flattest case): a swing past
    /// the peek level (A at least that) of 20 Hz or more moves at least
    /// 2 % of the peek level there at up to 860 scans/s (N <= 43), 1 %
    /// at 1250; the wait runs only where the curve span holds two
    /// scans (some 440 scans/s and more). The raw readings, not the
    /// median of three: the median shows the two readings beside a
    /// crest (nearly equal on a sine) up to three times in a row, so it
    /// needed four of its readings, a scan later than the raw three
    /// (a slam pinned on a cell's rail at 500 scans/s peeked 12 ms after
    /// its crossing, 2 ms past the budget).
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _vibrationWaits(y: Float, sample: Int64) -> Bool {
        if _debounce.peekRun > 0 {
            // _previous is this scan's raw reading, _older the one before.
            _flatRun = Float._abs(_previous - _older) <= _parameters.peek * Classifier.vibrationFlatFraction
                ? (_debounce.peekRun > 1 ? _flatRun &+ 1 : 1) : 0
            if _flatRun >= 2 { _rise.concave = false }
            _crest = _debounce.peekRun == 1 ? y : Float._max(_crest, y)
            let first = sample &- Int64(_debounce.peekRun) &+ 1
            let m = _parameters.vibrationCurveScans
            let since = sample &- _rise.restSample
            if first &- _rise.restSample <= _parameters.vibrationRiseScans
                && (_debounce.peekRun < _parameters.vibrationConfirmRun
                    || (m > 0 && (since < 2 &* m || (_rise.concave && since < _parameters.vibrationCurveWaitScans)))) {
                if y < _crest * Classifier.vibrationTurnFraction { _undershootSample = sample }
                return true
            }
        }
        return false
    }

    /// Whether a crossing of the peek (`pop` false) or pop level that has
    /// lasted `run` readings waits for more: a slow and noisy crossing needs
    /// ``noisyPeekRun`` (peek) or ``noisyPopRun`` (pop) readings in a row past
    /// the level rather than one. Slow: the last reading at rest (peek) or the
    /// peek (pop) more than ``slowCrossingSeconds`` ago (`since`, scans).
    /// Noisy: the quiet blocks spread (``_noise``) more than
    /// ``noisyLevelFraction`` of the peek level. Only where the 10 ms latency
    /// target holds four scans or more (``noisyCrossingMinimumRateHz``). Such
    /// a rise gains a few mN a scan, so the median of three crosses the level
    /// on the noise (a high reading beside a middling one) up to 28 ms before
    /// the force does and falls back at once (a low-SNR plate at 500
    /// scans/s). A press from rest (the vibration waits), a slam and quieter
    /// panels are not touched.
    ///
    /// The microcontrollers carry it too (some 250-300 B of firmware image),
    /// so a panel classifies alike on a board and on the host.
    @inlinable @inline(__always)
    internal func _noisyCrossingWaits(run: Int32, pop: Bool, since scans: Int64) -> Bool {
        run < (pop ? Classifier.noisyPopRun : Classifier.noisyPeekRun)
            && _noise > _parameters.peek * Classifier.noisyLevelFraction
            && _parameters.sampleRateHz >= Classifier.noisyCrossingMinimumRateHz
            && Float(scans) > _parameters.sampleRateHz * Classifier.slowCrossingSeconds
    }
}
