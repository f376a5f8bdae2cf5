// Release: the debounced release, and the let-go rule for a press whose
// rest stood above the touch band; after a release the baseline may
// re-learn from the rest that follows.
extension Classifier {
    /// A release the debounce allows: emitted if the readings show it
    /// (``_releaseEvident(_:sample:)``). Out of line: releases are rare, and
    /// the press scans' `_decide` stays small without the emit inline.
    @usableFromInline @inline(never)
    internal mutating func _releaseIfEvident(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        guard _releaseEvident(y, sample: sample) else { return }
        _release(y: y, crossing: _debounce.releaseCrossing, sample: sample, timestampNs: timestampNs, into: &events)
    }

    /// Ends the press: the release event, the release lock, and the let-go
    /// rule's state (the rest since this release is measured afresh, and the
    /// baseline may re-learn from it, `_relearnIfDue`).
    @usableFromInline @inline(never)
    internal mutating func _release(y: Float, crossing: LevelCrossing?, sample: Int64, timestampNs: Int64,
                                    into events: inout EventRing) {
        _emit(.release, crossing: crossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
        _state = .idle
        _debounce.pressLock = _parameters.releaseLockScans
        _restLow = Float.greatestFiniteMagnitude
        _restSinceRelease = RestSinceRelease()
        _releaseSample = sample
        // The rest that follows may re-learn the zero (`_relearnIfDue`) after
        // an armed press, or one whose rest the tracker was behind by more
        // than half the touch band (the most a re-learning block allows).
        _relearn = _letGoArmed || _pressRest - _baseline > 0.5 * _parameters.touchBand
        _letGoArmed = false
    }

    /// Whether `_relearnIfDue` has a block to take: idle, with ``minimumIdleScans``
    /// settled readings or more (`settled`); checked inline, so that the
    /// blocks between a release and the rest that follows it make no call.
    @inlinable @inline(__always)
    internal func _relearnDue(_ settled: UInt32) -> Bool {
        _state == .idle && !_suspended && Float(settled.nonzeroBitCount) >= Classifier.minimumIdleScans
    }

    /// The baseline's re-learning after a release (`_relearn`), on the first
    /// block with ``minimumIdleScans`` settled readings or more: the finger
    /// has left, so they are the unloaded panel (a block is 1.6 s at 10
    /// scans/s, so a rest between presses seldom settles one throughout).
    /// Where they read above the baseline by more than the touch band, the
    /// tracker would refuse them (a slow touch must never
    /// become the zero), and a zero that a thermal ramp carried that far
    /// during presses would stay behind for good, every release level out
    /// of reach. If the block reads within the touch band of the rest the
    /// press rose from (`_pressRest`: the panel came back to where it was,
    /// not a relaxation tail above it, which decays), above that rest by
    /// less than that rest stood above the baseline (the zero moved on by
    /// less than the tracker was already behind it: a finger left resting
    /// after a press from a rest the tracker had nearly reached stands
    /// further up, and stays a touch), and does not end in a rise from its
    /// mean (the next press's approach), the baseline moves to their mean.
    /// Otherwise the tracker follows as before.
    /// Returns whether the baseline moved.
    @usableFromInline @inline(never)
    internal mutating func _relearnIfDue(_ v: SIMD16<Float>, settled: UInt32) -> Bool {
        // The settled readings' mean as the tracker takes it (nil where fewer than four).
        guard let mean = Classifier._blockSettledMean(v, settled: settled) else { return false }
        _relearn = false
        guard mean - _baseline > _parameters.touchBand && Float._abs(mean - _pressRest) < _parameters.touchBand
                && mean - _pressRest < _pressRest - _baseline
                && v[Classifier.blockScans - 1] < mean + _parameters.touchBand else { return false }
        _baseline = mean
        _smoothed = mean
        _slope = 0
        _seeded = true
        _lowScans = 0
        _releaseLevel = _parameters.release
        return true
    }

    /// The let-go rule's state at a peek: the press's rest level, the lowest
    /// filtered reading of the idle scans since the last release: a press
    /// rises from its rest, and a slow approach reads above it. Where the
    /// panel rested near the baseline since, the level the tracker last
    /// measured it at (`_smoothed`, which it may not have reached yet: it
    /// rises slowly), or the baseline where no block measured it since the
    /// release. Whether it did is the tracker's judgement
    /// where one of its blocks told (``RestSinceRelease``): a rest that
    /// stands just above the touch band has single noisy readings below it,
    /// and taking one of those for a rest left the rule disarmed while a
    /// thermal ramp carried the zero away. Where no block told (a block is
    /// 1.6 s at 10 scans/s), a scan at rest (below the touch band) does.
    /// Armed only after a release, where the panel did not rest near the
    /// baseline since, the lowest stands above the touch band, and the
    /// panel rested since the release (the quiet run reached the settle
    /// time: a press soon after a release rose from the let-go's tail). Where
    /// that rest stands above the touch band, the baseline did not follow the
    /// unloaded panel (it refuses a rise that large: a slow touch must never
    /// become the zero; a thermal ramp outran it during earlier presses), so
    /// the release level, which stands on the baseline, may never be reached:
    /// the rule is armed for this press (`_letGoIfEvident`).
    @usableFromInline @inline(never)
    internal mutating func _armLetGo() {
        let restSince = _restSinceRelease.measured ? _restSinceRelease.nearBaseline : _rise.restSample > _releaseSample
        _pressRest = restSince ? (_restSinceRelease.measured ? _smoothed : _baseline) : _restLow
        _letGoArmed = !restSince && _releaseSample != Classifier.distantPastSample
            && _quietScans >= _parameters.settleScans && _restLow - _baseline > _parameters.touchBand
        _letGoHigh = -Float.greatestFiniteMagnitude
        _letGoHighBefore = -Float.greatestFiniteMagnitude
        _letGoSpanStart = _peekSample
    }

    /// The let-go rule, on an armed press (`_armLetGo`): a let-go is a fall
    /// of the press's whole force within a few tens of milliseconds, and that
    /// edge does not depend on where the zero drifted to: the reading falls
    /// by at least the gap between the peek and release levels below its
    /// highest of the last one to two let-go spans (``letGoSeconds``), to
    /// below the release level above the rest the press rose from. It
    /// releases then, and the baseline re-learns from the next settled
    /// readings (`_relearnIfDue`). A partial let-go stays above the release level
    /// over the rest and releases nothing; a slow ease-off to the rest is
    /// left to the release level. Returns whether it released.
    @usableFromInline @inline(never)
    internal mutating func _letGoIfEvident(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) -> Bool {
        let span = Float._max(Classifier.letGoMinimumScans, _parameters.sampleRateHz * Classifier.letGoSeconds)
        if Float(sample &- _letGoSpanStart) >= span {
            _letGoHighBefore = _letGoHigh
            _letGoHigh = y
            _letGoSpanStart = sample
        } else {
            _letGoHigh = Float._max(_letGoHigh, y)
        }
        let high = Float._max(_letGoHigh, _letGoHighBefore)
        guard _debounce.releaseLock == 0 && y < _pressRest - _baseline + _parameters.release
                && y <= high - (_parameters.peek - _parameters.release) else { return false }
        _release(y: y, crossing: nil, sample: sample, timestampNs: timestampNs, into: &events)
        return true
    }


    /// Whether a release due by the debounce is evident in the readings.
    ///
    /// Where the median of three runs (a scan no longer than a spike), a
    /// reading below the release level has a neighbour below it too, or the
    /// median would not show it. Where a scan is longer (`spikeIsolated`, 9-10
    /// scans/s) the release would stand on one reading, and a partial let-go
    /// of a held peek (the spec's rule: a dip that stays above half the peek
    /// level is no release) that dips within the panel's noise of the level
    /// reads like one. So on a press held the hold time or longer (a held
    /// peek, the press a partial let-go belongs to) the first reading below
    /// decides only when it is below the level by more than
    /// ``releaseMarginOfPeek`` of the peek level; otherwise the next reading
    /// must agree (one scan later, inside the spec's release window of 3 scans
    /// or 100 ms). A tap (shorter than the hold time: the taps of a burst,
    /// whose valley may last one scan) lets go fully and releases on one
    /// reading, as does a finger lifting off a held press (near zero at once).
    /// The press lasts up to the scan before this first reading below the
    /// level (this reading is its let-go, on which no hold fires either), so
    /// it is held only if that scan came the hold time or more after the peek.
    @inline(__always)
    internal func _releaseEvident(_ y: Float, sample: Int64) -> Bool {
        !_parameters.spikeIsolated || _debounce.releaseRun > 1 || sample &- _peekSample <= _parameters.holdScans
            || y < _releaseLevel - _parameters.peek * Classifier.releaseMarginOfPeek
    }
}

/// What the baseline tracker's blocks told of the panel's rest since the last
/// release, for the let-go rule (`_armLetGo`): a settled idle block is the
/// tracker's measure of the unloaded panel, steadier than any one reading.
@usableFromInline
internal struct RestSinceRelease: Equatable, BitwiseCopyable, Sendable {
    /// Whether a settled idle block was measured since the release, and
    /// whether one read within the touch band of the baseline.
    @usableFromInline var measured = false
    @usableFromInline var nearBaseline = false

    @inlinable init() {}

    /// A settled idle block, near the baseline or not: near holds until the next release.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func saw(nearBaseline near: Bool) {
        measured = true
        nearBaseline = nearBaseline || near
    }
}
