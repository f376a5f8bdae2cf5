// The baseline tracker: the unloaded panel's reading, followed once per
// block of `blockScans` scans from the readings that tell it (settled, idle),
// quickly downwards, slowly upwards, never while pressed or touched.
extension Classifier {
    /// `n` more readings of the current block, stored already: at the block's
    /// end the tracker takes it (`_closeBlock`) and the next block starts.
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _fillBlock(scans n: Int32) {
        _blockFill &+= n
        if _blockFill == Int32(Classifier.blockScans) {
            _blockFill = 0
            _closeBlock()
        }
    }

    /// Hands the block just filled to the baseline tracker, with the readings
    /// that tell the unloaded panel (``_settledBits``). Out of line: the block's
    /// vector would otherwise sit in every scan's `step` frame (on a 32-bit
    /// target, 64 bytes of stack) for a call made once per block.
    @usableFromInline @inline(never)
    internal mutating func _closeBlock() {
        // Scalars are stored one by one (no vector insert per scan), loaded as a vector once.
        let values = withUnsafeBytes(of: _block) { $0.loadUnaligned(as: SIMD16<Float>.self) }
        let settled = _settledBits(busy: _blockBusy, peeks: _blockPeeks)
        let idle = _blockBusy == 0
        _blockBusy = 0
        _blockPeeks = 0
        if _relearn && _relearnDue(settled) && _relearnIfDue(values, settled: settled) {
            // The baseline moved to the rest after a release.
        } else if idle && _endsInTouch(values) {
            _touchedBlock(first: values[0], settled: settled)
        } else {
            _trackBlock(values, settled: settled)
        }
    }

    /// Whether a block ends in a touch: its last reading at or above the
    /// touch band (``ClassifierParameters/touchBand`` above the baseline).
    /// Asked of a block idle throughout (no press, no peek, no fault in it):
    /// it is then the approach of a press whose peek, if any, falls in a
    /// later block, or a touch below the peek level: no unloaded panel
    /// (`_touchedBlock`). A block with a peek in it is the settle rule's
    /// (`_settledBits`, which leaves out the peek's approach), and the tracker
    /// takes it as before. Both paths ask this of the block's filtered
    /// readings with the baseline the block was classified against (it
    /// moves only at a block's end), so they track alike.
    @inlinable @inline(__always)
    internal func _endsInTouch(_ v: SIMD16<Float>) -> Bool {
        v[Classifier.blockScans - 1] >= _baseline + _parameters.touchBand
    }

    /// The baseline tracker's step for a block that ends in a touch
    /// (`_endsInTouch`): it learns nothing from it. The settle rule
    /// (`_settledBits`) leaves out a peek's approach only within the peek's
    /// own block, so a rise that peaked in the next block counted as
    /// unloaded, and where it read at a drift's rate the block's mean lifted
    /// the baseline for the press that followed (some 0.03 N at 80 scans/s:
    /// a pop 4 scans late). The whole block, not only its readings past the band: a slow
    /// rise's readings below the band are its approach too, and kept alone
    /// they read as a drift to follow. A touch measures no unloaded panel, so
    /// the release level is the bare one (as the tracker sets it for a block
    /// that reads above the noise faster than drift), and smoothing starts
    /// afresh from the next block (as after a press).
    @usableFromInline @inline(never)
    internal mutating func _touchedBlock(first: Float, settled: UInt32) {
        _seeded = false
        // Settled throughout and above the band from its first reading to its
        // last: the panel rested there (a zero a ramp carried off, or a
        // resting finger), no approach from a rest below.
        if settled == Classifier.blockBits && first >= _baseline + _parameters.touchBand {
            _restSinceRelease.saw(nearBaseline: false)
        }
        if _state == .idle && !_suspended {
            _releaseLevel = _parameters.release
            // The approach: the unloaded panel's fall goes on under it.
            _carryFall(scans: Int32(Classifier.blockScans))
        }
    }

    /// The readings of a block that tell the unloaded panel (bit k: scan k),
    /// from its busy scans and peeks: a reading is settled once the panel has
    /// been idle `settleScans` scans in a row up to it (this one included; the
    /// run carried across blocks in `_quietScans`), so the valleys between the
    /// taps of a burst never count while a quiet stretch counts from its
    /// settle time on, at any rate (in whole blocks, 1.6 s at 10 scans/s, a
    /// thermal ramp outran the baseline). The `settleScans` readings before a
    /// peek in the block do not count either: they were its approach (a
    /// finger's rise starts below the touch and peek levels).
    /// Both paths call this once per block; the common blocks (quiet and
    /// settled, or busy throughout) take the first two returns.
    @inlinable @inline(__always)
    internal mutating func _settledBits(busy: UInt32, peeks: UInt32) -> UInt32 {
        if busy == 0 && _quietScans >= _parameters.settleScans &- 1 {
            // The first reading is the settleScans-th idle one in a row or later; no busy scan, so no peek.
            _quietScans = _min(_quietScans &+ Int32(Classifier.blockScans), Classifier.countCeiling)
            return Classifier.blockBits
        }
        if busy == Classifier.blockBits {
            _quietScans = 0
            return 0
        }
        return _settledBitsPartly(busy: busy, peeks: peeks)
    }

    /// `_settledBits` for a block partly busy, or idle but not settled from its
    /// first reading: the rule scan by scan, on bits (small on a microcontroller).
    @usableFromInline @inline(never)
    internal mutating func _settledBitsPartly(busy: UInt32, peeks: UInt32) -> UInt32 {
        let s = _parameters.settleScans
        if Platform.hasFastPath && busy == 0 {
            // Idle throughout (so no peek) while the run since the last press
            // settles: the readings from the one the run reaches `s` at, in
            // closed form (`_settlingBits`; the microcontrollers, whose image
            // stays as small, take the loop below).
            let settling = Classifier._settlingBits(run: _quietScans, settleScans: s)
            _quietScans = settling.quietScans
            return settling.bits
        }
        var run = _quietScans
        var settled: UInt32 = 0
        // A while loop: a range's iterator allocates in an unoptimised build.
        var k: Int32 = 0
        while k < Int32(Classifier.blockScans) {
            let bit: UInt32 = 1 &<< UInt32(truncatingIfNeeded: k)
            run = busy & bit != 0 ? 0 : _min(run &+ 1, Classifier.countCeiling)
            if run >= s && busy & bit == 0 { settled |= bit }
            // A peek here: the settleScans scans before it were its approach.
            if peeks & bit != 0 {
                settled &= ~(bit &- 1) | ((1 &<< UInt32(truncatingIfNeeded: _max(k &- s, 0))) &- 1)
            }
            k &+= 1
        }
        _quietScans = run
        return settled
    }

    /// The settle rule's closed form for an idle block while the quiet run
    /// `run` settles (`_settledBitsPartly` with no busy scan): the settled bits from the one the run reaches
    /// `settleScans` at, and the run after the block.
    @_alwaysEmitIntoClient @inline(__always)
    internal static func _settlingBits(run: Int32, settleScans s: Int32) -> (bits: UInt32, quietScans: Int32) {
        let quietScans = _min(run &+ Int32(Classifier.blockScans), Classifier.countCeiling)
        guard s <= Classifier.countCeiling else { return (0, quietScans) }
        let first = Int64(s) &- Int64(run) &- 1
        if first <= 0 { return (Classifier.blockBits, quietScans) }
        if first >= Int64(Classifier.blockScans) { return (0, quietScans) }
        return (Classifier.blockBits & ~((1 &<< UInt32(truncatingIfNeeded: first)) &- 1), quietScans)
    }

    /// The baseline after a block of `scans` pressed or touched: the trend's
    /// carried fall (``BaselineTrend/carry(scans:baseline:floor:)``), never
    /// below the panel's floor.
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _carryFall(scans: Int32) {
        _baseline = _trend.carry(scans: scans, baseline: _baseline, floor: _parameters.baselineFloor)
    }

    /// Follows the unloaded panel once per block of ``blockScans`` scans:
    /// quickly downwards (relaxation after a press), slowly upwards (drift),
    /// never while pressed or touched. Both the per-scan path and the fast
    /// path call this with the same block, so they track identically.
    /// Inlined into its entries: `_trackBlock` (the per-scan path's, from
    /// `_closeBlock`), and on hosts the block step's `_trackWholeBaseline`
    /// and `_trackPartBaseline`.
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func _trackBaseline(block v: SIMD16<Float>, settled bits: UInt32) {
        // Readings taken during a press would drag the baseline up: only the
        // settled ones (bit k set: see `_settledBits`; weight 1, the others 0)
        // count, and a block with fewer than four is skipped.
        let whole = bits == Classifier.blockBits
        let n = Int32(Classifier.blockScans)
        // The mean of the settled readings and the block's noise, the mean
        // absolute residual about its straight-line trend, which a slow ramp
        // or drift inside the block does not inflate (`_blockFit`): nil where
        // fewer than four readings are settled (none in a busy block, common
        // after a press).
        guard !_suspended, let fit = Classifier._blockFit(v, settled: bits) else {
            // After a press, smoothing starts afresh from the first idle block.
            _seeded = false
            // Pressed: the unloaded panel's fall goes on under the press
            // (`BaselineTrend`). Not in the unsettled blocks after a release:
            // the tracker measures the panel again from them on.
            if _state != .idle && !_suspended { _carryFall(scans: n) }
            return
        }
        let mean = fit.mean, spread = fit.spread
        // Freshly seeded (start, or the first idle block after a press): the
        // rise rate is not known yet, so the baseline may fall, and rise only
        // within the panel's noise (below the touch level).
        let fresh = !_seeded
        if fresh {
            _seeded = true
            _smoothed = mean
            _slope = 0
            // Idle (after a press or a touch, or at the start): the trend is
            // measured afresh from here; a seeding inside a press keeps the
            // trend measured before it.
            if _state == .idle { _trend.restart(level: mean, settleScans: _parameters.settleScans) }
        }
        let previous = _smoothed
        _smoothed += _parameters.blockSmoothing * (mean - _smoothed)
        _slope += _parameters.blockSlopeSmoothing * ((_smoothed - previous) * Classifier.inverseBlockScans - _slope)
        // Frozen while pressed.
        guard _state == .idle else {
            _seeded = false
            _carryFall(scans: n)
            return
        }
        let d = _smoothed - _baseline
        // The let-go rule's evidence of the rest since the last release
        // (`RestSinceRelease`); once near the baseline, a quiet block pays a test.
        if !_restSinceRelease.nearBaseline { _restSinceRelease.saw(nearBaseline: mean - _baseline <= _parameters.touchBand) }
        // An undershoot (a cell swinging below zero after a release) lasts well
        // under a second; only a drop below the touch band that persists is a
        // real zero shift to follow.
        _lowScans = d < _parameters.underTouchBand ? _min(_lowScans &+ n, Classifier.countCeiling) : 0
        // A touch is a rise several noise widths above the baseline (capped
        // by the configured fraction of the peek level) that is faster than
        // drift: on a quiet panel a slow press freezes the baseline long
        // before it can absorb any of it, while drift is still followed.
        // The touch level comes from the noise measured so far: a block with a
        // press starting in it must not widen its own threshold.
        let touch = Float._min(_parameters.touchBand,
                               Float._max(_parameters.touchFloor, Classifier.touchNoiseWidths * _noise))
        if whole && d < touch { _noise += _parameters.blockFall * (Float._min(spread, _parameters.touchBand) - _noise) }
        // The baseline rises slowly so that a slow touch never becomes the
        // zero; but a block it rises toward was judged unloaded (settled,
        // idle, within the noise or at a drift's rate), and it measures where
        // the unloaded panel reads now. A release is the force falling below
        // half the peek level above that panel, so the release level stands
        // on that measurement, not on the lagging baseline: between presses
        // at 10 scans/s (a block is 1.6 s, and a busy stretch leaves few to
        // learn from) a thermal ramp outran the baseline by 0.1-0.15 N, and
        // the valleys of a tap burst read above the release level. It holds
        // through the presses that follow (the baseline is frozen then, and
        // so is the measurement), never learns from a press or a burst's
        // valleys (only settled readings reach here), and is at most the
        // touch band: a touch, or a block below the baseline, measures nothing.
        var unloaded: Float = 0
        // Whether the block measured the unloaded panel within its noise (or
        // below the baseline): the trend a press carries is learnt from such
        // blocks (`BaselineTrend`).
        var quiet = false
        if _warmup > 0 {
            _warmup &-= n
            if Float._abs(d) < _parameters.touchBand { _baseline += _parameters.blockFall * d }
        } else if d < _parameters.underTouchBand && _lowScans < _parameters.undershootScans {
            // An undershoot so far: keep the zero.
        } else if d < 0 {
            _baseline += _parameters.blockFall * d
            quiet = true
        } else if d < touch || (!fresh && d < _parameters.touchBand && _slope < _parameters.driftPerScan) {
            // Quiet (within the panel's noise of the zero: no touch, whatever
            // its rate, so also in the first block after a press), or rising
            // no faster than drift does (which needs the rate): follow it slowly.
            // A quiet block follows faster (`blockQuietRise`, rise_ms times
            // `quietRiseFractionOfRise`): it is no touch at any rate, and a
            // baseline lagging a thermal ramp by `rise_ms` times its rate
            // (0.1 N at 0.03 N/s) put the idle readings before a press above
            // it, so a slow press crossed the peek or pop level early. A block
            // between the noise and the touch band (a slow touch, if any)
            // still rises at `rise_ms`. Not at 9-10 scans/s (the same as
            // `blockRise` there): a block there is 1.6 s and already moves the
            // baseline a third of the way; faster, it followed a block's
            // noise into a false release.
            _baseline += (d < touch ? _parameters.blockQuietRise : _parameters.blockRise) * d
            // Counted only beyond the panel's noise width: the mean of four
            // or more readings strays from the panel's level by less (1.6 of
            // its standard errors for four, 3 for sixteen), so a quiet panel's
            // noise never moves the level, while a ramp's lag does.
            unloaded = Float._max(0, _smoothed - _baseline - _noise)
            quiet = d < touch
        }
        // Never above the peek level (validated: release <= peek), which the
        // comparisons in `step` and the block path rely on.
        _releaseLevel = Float._min(_parameters.release + unloaded, _parameters.peek)
        if quiet { _trend.learn(level: _smoothed, noise: _noise, scans: n, settleScans: _parameters.settleScans) }
    }
}

/// The unloaded panel's fall, carried through a press. The baseline is frozen
/// while pressed (a press must not become the zero), but a panel whose
/// unloaded reading was falling when the press began (a relaxation after the
/// last press, a thermal ramp) keeps falling under the finger, and a frozen
/// baseline then reads the press's force short by that fall: a slow climb
/// crosses the peek and pop levels late. So, while pressed or touched, the
/// unloaded level the tracker last measured moves on at the fall rate it
/// measured before the approach, once per block, at most by the fall the
/// panel had shown since the tracker was seeded (a fall is never
/// extrapolated further than it was seen to go), and the baseline follows
/// it down where it passes below (never up: a baseline below a decaying tail
/// stays where it is; and never down by more than the carried fall).
///
/// The rate is measured over windows of `settleScans` (at least four blocks)
/// of quiet blocks, from the first after the tracker is seeded: the
/// smoothed level's fall across each, counted beyond the panel's noise. It
/// is the lesser fall of the two windows before the latest, so a fall the
/// panel kept up (the end of a step, such as a touch's tail, is no trend:
/// the smoothed slope `_slope` remembers a step for several of its time
/// constants), and measured at least a window before the approach (a
/// press's approach starts below the touch band and lifts the level of the
/// blocks it falls in, as the settle rule leaves out the `settleScans`
/// readings before a peek). A rise is not carried: the baseline rises slowly
/// by design, so that a slow touch never becomes the zero.
@usableFromInline
internal struct BaselineTrend: Equatable, BitwiseCopyable, Sendable {
    /// The fall per scan carried through a press (zero or negative).
    @usableFromInline var rate: Float = 0
    /// The level at the latest window's start, the scans left to its end
    /// (zero or less: it ends at the next quiet block), and the fall per
    /// scan of the last two windows (the latest first).
    @usableFromInline var anchor: Float = 0
    @usableFromInline var due: Int32 = 0
    @usableFromInline var fall: Float = 0
    @usableFromInline var fallBefore: Float = 0
    /// The unloaded level last measured, carried on while pressed; the
    /// highest at a window's start since the tracker was seeded idle; and the
    /// fall still to carry (the fall from that high seen when the rate was
    /// set, less what presses have carried since).
    @usableFromInline var level: Float = 0
    @usableFromInline var high: Float = 0
    @usableFromInline var left: Float = 0

    @inlinable init() {}

    /// The tracker seeded idle at `level`: nothing is measured yet; the
    /// first window ends `settleScans` on.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func restart(level: Float, settleScans: Int32) {
        self = BaselineTrend()
        self.level = rate < 0 ? Float._min(self.level, level) : level
        anchor = level
        high = level
        due = BaselineTrend.window(settleScans)
    }

    /// A window's scans: `settleScans`, and at least
    /// ``Classifier/trendWindowBlocks`` blocks.
    @_alwaysEmitIntoClient @inline(__always)
    static func window(_ settleScans: Int32) -> Int32 {
        _max(settleScans, Classifier.trendWindowBlocks &* Int32(Classifier.blockScans))
    }

    /// A quiet block of `scans` that measured the unloaded panel at the
    /// smoothed `level`, on a panel whose noise is `noise`: a window of
    /// `settleScans` closes once `due` has counted down (per quiet block only
    /// a store and a count, on the fast path's common block). While a fall is
    /// carried, the level only falls: a quiet block that reads above the last
    /// is a slow approach's start (below the touch band, still quiet), and
    /// the carry through the press that follows starts from the unloaded
    /// panel, not from the lift.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func learn(level: Float, noise: Float, scans: Int32, settleScans: Int32) {
        self.level = rate < 0 ? Float._min(self.level, level) : level
        due &-= scans
        if due <= 0 { close(noise: noise, settleScans: settleScans) }
    }

    /// A window closes at `level`: its fall per scan, beyond `noise`, is
    /// kept, and the rate becomes the lesser fall of the two windows before
    /// (`due` is zero or less: the window's scans are `window(settleScans) - due`).
    @_alwaysEmitIntoClient @inline(__always)
    mutating func close(noise: Float, settleScans: Int32) {
        let drop = anchor - level, scans = BaselineTrend.window(settleScans) &- due
        high = Float._max(high, anchor)
        anchor = level
        due = BaselineTrend.window(settleScans)
        rate = -Float._min(fall, fallBefore)
        left = Float._max(0, high - level)
        fallBefore = fall
        fall = drop > noise ? drop / Float(scans) : 0
    }

    /// The baseline after a block of `scans` pressed or touched, from
    /// `baseline`: the unloaded level moved on by the rate's fall, up to the
    /// fall left to carry, and the baseline lowered to it where it passes
    /// below. A level measured below the baseline (which follows a fall
    /// within `fall_ms`) is carried from the baseline: the carry moves the
    /// baseline by the fall under the press, never by a gap the tracker had
    /// not closed (nor to a level measured before a touch or a burst).
    /// Never below `floor`, the lowest the panel can read
    /// (``BaselineSettings/floorNewtons``): a relaxation ends at the panel's
    /// floor however fast it fell before the press.
    /// Out of line: once a block while pressed, and one copy in a
    /// microcontroller's image.
    @usableFromInline @inline(never)
    mutating func carry(scans: Int32, baseline: Float, floor: Float) -> Float {
        let step = Float._max(rate * Float(scans), -left)
        left += step
        level = Float._max(level, baseline) + step
        return Float._min(baseline, Float._max(level, floor))
    }
}
