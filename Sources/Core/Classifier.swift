// Over 300 lines: the press state machine: debounce, hysteresis, hold, stuck and baseline rules that read the same state.
/// Where a press stands.
public enum PressState: UInt8, Equatable, BitwiseCopyable, Sendable {
    /// Nothing pressed (or a touch below the peek level).
    case idle
    /// Past the peek level; may still pop.
    case peeking
    /// Popped: a commit. Only release follows.
    case popped
}

/// The start of the current run of scans past one level, for latency accounting.
@usableFromInline
internal struct _Crossing: BitwiseCopyable, Sendable {
    @usableFromInline var active = false
    @usableFromInline var sample: Int64 = 0
    @usableFromInline var timestampNs: Int64 = 0

    @inlinable init() {}

    @inlinable
    mutating func update(_ past: Bool, sample: Int64, timestampNs: Int64) {
        if past && !active {
            self.sample = sample
            self.timestampNs = timestampNs
        }
        active = past
    }
}

/// The per-scan classifier: spike rejection, baseline tracking, levels with
/// hysteresis and debounce, and the peek / pop / release / hold state machine.
///
/// A value type with fixed-size state: `step` neither allocates nor calls
/// through an existential. Events go into an ``EventRing`` the caller drains.
public struct Classifier: Sendable {
    /// The resolved parameters.
    public var parameters: ClassifierParameters { _parameters }
    @usableFromInline internal var _parameters: ClassifierParameters
    /// The current press state.
    public var state: PressState { _state }
    @usableFromInline internal var _state: PressState = .idle
    /// The tracked baseline in newtons (the unloaded panel's reading).
    public var baseline: Float { _baseline }
    /// With the creep rules on: the filtered reading the peek and pop levels
    /// saw on the last scan past the release level (creep-compensated until
    /// the pop; for a trace).
    public var creepForce: Float { _creepForce }
    @usableFromInline internal var _baseline: Float = 0
    /// The level a press's net force must fall below to release: the release
    /// level above where the tracker last measured the unloaded panel, which
    /// may be above the slowly rising baseline (see `_trackBaseline`); never
    /// above the peek level.
    @usableFromInline internal var _releaseLevel: Float
    /// Whether a sensor fault has suspended classification.
    public var suspended: Bool { _suspended }
    @usableFromInline internal var _suspended: Bool = false
    /// Scans whose value the spike filter replaced by more than a quarter of the peek level.
    public var spikesRejected: Int64 { _spikesRejected }
    @usableFromInline internal var _spikesRejected: Int64 = 0

    @usableFromInline internal var _older: Float = 0
    @usableFromInline internal var _previous: Float = 0
    @usableFromInline internal var _history: Int32 = 0
    @usableFromInline internal var _smoothed: Float = 0
    @usableFromInline internal var _seeded = false
    /// Mean absolute scan-to-scan change of the spike-filtered reading while
    /// idle: the panel's noise, which sets how small a rise counts as a touch.
    @usableFromInline internal var _noise: Float = 0
    /// The smoothed reading's change per scan, itself smoothed: slow drift
    /// versus the rise of a press.
    @usableFromInline internal var _slope: Float = 0
    @usableFromInline internal var _warmup: Int32
    @usableFromInline internal var _peekRun: Int32 = 0
    @usableFromInline internal var _popRun: Int32 = 0
    @usableFromInline internal var _releaseRun: Int32 = 0
    @usableFromInline internal var _pressLock: Int32 = 0
    @usableFromInline internal var _releaseLock: Int32 = 0
    /// A score of how often the reading comes back to its highest word
    /// (`_creepWord`) while peeking: a clipped reading (`_advanceCreeping`).
    /// Here, not beside it: it fills a hole in the layout (in its place the
    /// riscv32 firmware grew 262 B).
    @usableFromInline internal var _creepFlat: Float = 0
    @usableFromInline internal var _peekSample: Int64 = 0
    @usableFromInline internal var _holdDone = false
    /// The highest level the current peek settled at, and when it got there:
    /// `hold` waits until the force stops climbing above it.
    @usableFromInline internal var _holdRef: Float = 0
    @usableFromInline internal var _holdRefSample: Int64 = 0
    /// The peek's slowly smoothed level, the reference for the creep allowance.
    @usableFromInline internal var _settled: Float = 0
    /// Creep compensation: the compensated reading's smoothed level at the
    /// last press scan, that scan, and its smoothed rise per scan (`_advanceCreeping`).
    @usableFromInline internal var _creepLast: Float = 0
    @usableFromInline internal var _creepLastSample: Int64 = Classifier.distantPastSample
    @usableFromInline internal var _creepRate: Float = 0
    /// The filtered reading the levels saw on the last press scan (`_advanceCreeping`).
    @usableFromInline internal var _creepForce: Float = 0
    /// While peeking, the reading's highest word (`_creepFlat`: how often it
    /// comes back to it exactly; `_advanceCreeping`).
    @usableFromInline internal var _creepWord: Float = 0
    /// The last scan that read below the baseline by more than the touch band.
    @usableFromInline internal var _undershootSample: Int64 = Classifier.distantPastSample
    /// The last scan that read below the touch band (at rest or below zero),
    /// and the crest of the current run past the peek level while idle: a
    /// peek after a rise from rest faster than a finger waits, watching for
    /// an oscillation turning over.
    @usableFromInline internal var _restSample: Int64 = Classifier.distantPastSample
    @usableFromInline internal var _crest: Float = 0
    /// The reading at that last scan at rest, the reading one curve span
    /// after it, and whether the rise from it was concave (see `_decide`).
    @usableFromInline internal var _restForce: Float = 0
    @usableFromInline internal var _riseMid: Float = 0
    @usableFromInline internal var _riseConcave = false
    /// Scans in a row whose raw reading stayed within a hundredth of the peek
    /// level of the one before during that wait: two (three readings) mean
    /// pinned to a rail or a stop.
    @usableFromInline internal var _flatRun: Int32 = 0
    /// Idle scans in a row up to the end of the last full block (timed per
    /// scan; the baseline learns only from readings `settleScans` into such a
    /// run, see `_settledBits`), and scans of
    /// blocks in a row whose mean lay below the baseline by more than the touch band.
    @usableFromInline internal var _quietScans: Int32 = Classifier.countCeiling
    @usableFromInline internal var _lowScans: Int32 = 0
    /// The let-go rule (`_letGoIfEvident`): the lowest filtered reading of
    /// the idle scans above the touch band since the last release (absolute
    /// newtons; the largest float before any: a scan at rest since, see
    /// `_restSample`, disarms the rule anyway), and that release's scan; at a peek, the
    /// press's rest level (absolute; the baseline is frozen through the
    /// press, so it stands as far above it throughout), whether that rest stood above
    /// the touch band (the baseline is stale: the rule is armed), and the
    /// press's highest reading in the current and the previous let-go span
    /// (the current one started at `_letGoSpanStart`). After every release
    /// the baseline may re-learn from the first settled readings
    /// (`_relearn`, `_relearnIfDue`).
    @usableFromInline internal var _restLow: Float = Float.greatestFiniteMagnitude
    @usableFromInline internal var _releaseSample: Int64 = Classifier.distantPastSample
    @usableFromInline internal var _pressRest: Float = Float.greatestFiniteMagnitude
    @usableFromInline internal var _letGoHigh: Float = 0
    @usableFromInline internal var _letGoHighBefore: Float = 0
    @usableFromInline internal var _letGoSpanStart: Int64 = 0
    @usableFromInline internal var _letGoArmed = false
    @usableFromInline internal var _relearn = false
    @usableFromInline internal var _peekCrossing = _Crossing()
    @usableFromInline internal var _popCrossing = _Crossing()
    @usableFromInline internal var _releaseCrossing = _Crossing()
    @usableFromInline internal var _lastForce: Float = 0
    /// The spike-filtered readings of the current block; the baseline
    /// tracker runs once per full block, on the block's mean and spread.
    @usableFromInline internal var _block = InlineArray<16, Float>(repeating: 0)
    @usableFromInline internal var _blockFill: Int32 = 0
    /// Bit k set where scan k of the current block was busy (a press or a
    /// fault in progress), and where a peek was emitted at it: which readings
    /// tell the unloaded panel is decided from them once per block.
    @usableFromInline internal var _blockBusy: UInt32 = 0
    @usableFromInline internal var _blockPeeks: UInt32 = 0
    /// Blocks taken whole by the fast path (for the benchmark's report).
    public var fastBlocks: Int64 { _fastBlocks }
    @usableFromInline internal var _fastBlocks: Int64 = 0

    /// Scans per baseline-tracking block, and per fast-path step.
    public static let blockScans = 16

    /// Creates a classifier.
    public init(parameters: ClassifierParameters) {
        self._parameters = parameters
        self._warmup = _parameters.warmupScans
        self._releaseLevel = parameters.release
    }

    /// Replaces the parameters (a profile reload); state and baseline are kept.
    public mutating func reconfigure(_ parameters: ClassifierParameters) {
        // The unloaded panel measured above the baseline is kept with it.
        self._releaseLevel = Float._min(parameters.release + (_releaseLevel - _parameters.release), parameters.peek)
        self._parameters = parameters
    }

    /// Classifies one scan's calibrated force.
    ///
    /// - Parameters:
    ///   - force: the panel's force in newtons (sum of calibrated channels).
    ///   - sample: the scan's 0-based index.
    ///   - timestampNs: the scan's timestamp.
    ///   - events: where decisions are appended.
    /// - Complexity: O(1), no allocation.
    @inlinable
    public mutating func step(force: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        // Spike rejection: the median of the last three readings. Where a scan
        // is longer than a spike (a low scan rate), only an isolated reading
        // whose two neighbours agree is replaced: a real two-scan tap has a
        // neighbour high too and passes (see `_spikeFilter`).
        let filtered: Float
        if _parameters.spikeRejection && _history >= 2 {
            let a = _older, b = _previous, c = force
            filtered = _spikeFilter(a, b, c, isolated: _parameters.spikeIsolated, agreement: _parameters.spikeAgreement,
                                    floor: _baseline - _parameters.touchBand)
            if Float._abs(filtered - b) > _parameters.spikeSize
                && Float._abs(a - c) < Float._abs(b - a) { _spikesRejected &+= 1 }
        } else {
            filtered = force
        }
        _older = _previous
        _previous = force
        if _history < 2 { _history &+= 1 }

        let x = force - _baseline
        let y = filtered - _baseline
        _lastForce = y
        // A press never pulls the panel below its zero: a swing that far down is
        // vibration (or a cell's undershoot), and a peek waits it out.
        // The raw reading counts too: the spike filter takes out a one-scan
        // dip, and a shake sampled at 10-100 scans/s (aliased) often shows its
        // swings below zero in single scans; at 10 scans/s the filter also
        // decides a scan late, so a reading past peek whose next scan swings
        // below zero is held off. A lone negative spike costs at most a
        // hold-off's wait on a press that starts right after it.
        if Float._min(x, y) < _parameters.underTouchBand { _undershootSample = sample }
        if y < _parameters.touchBand {
            _restSample = sample
            _restForce = y
        } else {
            // The let-go rule's rest above the touch band (`_armLetGo`), in
            // newtons as every path rounds it (the reading less the baseline, plus it).
            if _state == .idle { _restLow = Float._min(_restLow, y + _baseline) }
            // The shape of a rise from rest, for the vibration rule in `_decide`:
            // read one and two curve spans after the last scan at rest (never
            // at rest, so the quiet panel pays only the store above).
            let m = _parameters.vibrationCurveScans
            let since = sample &- _restSample
            if since == m {
                _riseMid = y
            } else if since == 2 &* m {
                _riseConcave = y - _restForce < Classifier.vibrationConcaveRatio * (_riseMid - _restForce)
            }
        }
        // Latency accounting runs on the unfiltered readings, debounce on the filtered ones.
        // Whether the creep rules ran on this scan: the levels then saw `_creepForce`.
        var creeping = false
        advance: do {
            #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
            // Not on the microcontrollers, which keep the one general form
            // below: this shortcut costs 72 (armv7em) and 108 (riscv32) bytes of image there.
            if x < _releaseLevel && y < _releaseLevel {
                // Both readings below the release level, so below peek, pop and
                // the pop level (validated: release <= peek < pop; the pop level
                // is never below pop): `_advance` for one scan, decided by these
                // two comparisons.
                _peekCrossing.active = false
                _popCrossing.active = false
                _releaseCrossing.update(true, sample: sample, timestampNs: timestampNs)
                _peekRun = 0
                _popRun = 0
                _releaseRun &+= 1
                _pressLock = _max(0, _pressLock &- 1)
                _releaseLock = _max(0, _releaseLock &- 1)
                break advance
            }
            #endif
            if _parameters.creepRules {
                // An FSR: the peek and pop levels see the finger's force estimated
                // from the reading, and pop allows for the creep left over; the
                // release compares the reading (out of line: not the quiet path's
                // code, nor a load cell's).
                _advanceCreeping(x: x, y: y, sample: sample, timestampNs: timestampNs)
                creeping = true
                break advance
            }
            _advance(crossing: (x >= _parameters.peek, x >= _parameters.pop, x < _releaseLevel),
                     runs: (y >= _parameters.peek, y >= _parameters.pop, y < _releaseLevel),
                     scans: 1, sample: sample, timestampNs: timestampNs)
        }

        let pressedBefore = _state != .idle
        // Idle with no scan past the peek level decides nothing (a peek needs
        // `pressScans` >= 1 of them): the common scan skips the call.
        if !_suspended && (pressedBefore || _peekRun > 0) {
            _decide(y: creeping ? _creepForce : y, sample: sample, timestampNs: timestampNs, into: &events)
        }
        if _parameters.baselineEnabled {
            // _blockFill < blockScans always: stored without a bounds check.
            let at = Int(truncatingIfNeeded: _blockFill) &* MemoryLayout<Float>.stride
            // Per scan only whether a press (or fault) was in progress: the
            // quiet scan pays a test. Which readings are settled is decided
            // once per block (`_settledBits`).
            if pressedBefore || _state != .idle || _suspended {
                _blockBusy |= 1 &<< UInt32(truncatingIfNeeded: _blockFill)
            }
            withUnsafeMutableBytes(of: &_block) { $0.storeBytes(of: filtered, toByteOffset: at, as: Float.self) }
            _blockFill &+= 1
            if _blockFill == Int32(Classifier.blockScans) {
                _blockFill = 0
                _closeBlock()
            }
        }
        #if DEBUG
        _checkInvariants()
        #endif
    }

    /// An FSR's levels on a scan past the release level (the press path;
    /// the creep rules are on):
    ///
    /// - Creep compensation (`creepAmount` > 0): under a press an FSR reads
    ///   its force times `1 + amount (1 - exp(-t / tau))`, t from the press's
    ///   start (the last scan at rest), so a slow rise read raw crosses a
    ///   level before the finger's force does. Until the pop, the raw and
    ///   filtered readings are divided by that factor, then projected
    ///   `creepLeadMilliseconds` ahead on their smoothed rise (never above
    ///   the reading), before the peek and pop levels see them: a fast rise
    ///   crosses with the reading, a slow one at most the lead before the
    ///   compensated reading would. Not once popped: on unloading an FSR reads 5-10 %
    ///   lower than on loading, about what its creep added (1.05-1.14 x
    ///   0.90-0.95), so the release compares the reading as it is.
    /// - Creep allowance: while peeking, pop needs the force above the level
    ///   the press settled at by the allowance (capped at pop x (1 +
    ///   allowance)), so the creep left under a constant load never pops,
    ///   while a deliberate push from a lighter hold still pops at `pop`.
    ///
    /// Advances the crossings and runs on the readings so moved, keeping the
    /// filtered one in `_creepForce` for `_decide`.
    @usableFromInline @inline(never)
    internal mutating func _advanceCreeping(x rawX: Float, y rawY: Float, sample: Int64, timestampNs: Int64) {
        var x = rawX, y = rawY
        if _state != .popped && _parameters.creepAmount > 0 {
            // exp(-u) as (1 / (1 + v + v^2/2 + v^3/6))^8, v = u / 8: within
            // 0.2 % up to u = 3, decaying to 0 beyond (no libm in the core).
            let u = Float._min(Float(sample &- _restSample) * _parameters.creepPerScan, 64)
            let v = u * 0.125
            var decay = 1 / (1 + v * (1 + v * (0.5 + v * (1 / 6))))
            decay *= decay
            decay *= decay
            decay *= decay
            var gain = 1 / (1 + _parameters.creepAmount * (1 - decay))
            // A reading that keeps coming back to its exact highest word is
            // clipped, against a mechanical stop or the converter's full
            // scale: the stop, not the force, sets it, so it carries no creep
            // to take off (compensated, a firm press held at a stop 1.15 x pop
            // would read below pop and never pop). While peeking the reading's
            // highest word is kept, and scored: +4 a scan back on it exactly,
            // -1 one below it (a live reading meets its own maximum's exact
            // word rarely), afresh on a new highest; the compensation stops
            // while the score is at 10 ms of scans or more (the smoothed
            // level's span, `creepLevelSmoothingMilliseconds`).
            let lagScans = ClassifierParameters.creepLevelSmoothingMilliseconds * _parameters.sampleRateHz * 0.001
            let peeking = _state == .peeking
            _creepFlat = !peeking || x > _creepWord ? 0
                : x == _creepWord ? Float._min(_creepFlat + 4, 64) : Float._max(0, _creepFlat - 1)
            _creepWord = peeking ? Float._max(_creepWord, x) : x
            if _creepFlat >= lagScans { gain = 1 }
            // The compensated reading's rise per scan: while peeking (scan by
            // scan on every path) the rise of its smoothed level (below),
            // smoothed from scan to scan; otherwise, and on a peek's first
            // scan, the mean rise since the last scan at rest, which the block
            // paths keep as this path does (they take idle scans below the
            // peek level in closed form, never these), the smoothed level
            // then set where that rise would have left it.
            //
            // A slow climb toward pop (the peek more than
            // `slowCrossingSeconds` ago) is read on that smoothed level
            // (`creepLevelSmoothingMilliseconds`) plus its lag on the rise,
            // not on the reading: an FSR's counts noise reads some five
            // times larger in newtons at the pop level than at rest (its
            // curve flattens: a typical FSR reads some 14,600 counts/N at
            // rest and 2,900 at pop), and on a low-SNR FSR the median of
            // three carries it past pop 40-70 ms before the force.
            // A fast push from the peek keeps the reading (the smoothing
            // would make it late).
            let yc = y * gain
            var level = yc
            if _state == .peeking && _creepLastSample == sample &- 1 {
                let before = _creepLast
                _creepLast += (yc - _creepLast) / (1 + lagScans)
                _creepRate += _parameters.creepRateSmoothing * (_creepLast - before - _creepRate)
                if Float(sample &- _peekSample) > _parameters.sampleRateHz * Classifier.slowCrossingSeconds {
                    level = _creepLast + Float._max(0, _creepRate) * lagScans
                }
            } else {
                _creepRate = (yc - _restForce) / Float._max(1, Float(sample &- _restSample))
                _creepLast = yc - Float._max(0, _creepRate) * lagScans
            }
            if _state == .peeking { _creepLastSample = sample }
            // Projected `creepLeadScans` ahead on that rise, never above the
            // reading: a fast rise crosses a level with the reading (the
            // compensation would move it by less than the lead), a slow one
            // the lead before the compensated reading would.
            let lead = Float._max(0, _creepRate) * _parameters.creepLeadScans
            x = Float._min(x, x * gain + lead)
            y = Float._min(y, level + lead)
        }
        var pop = _parameters.pop
        if _state == .peeking && _parameters.creepAllowance > 0 {
            let grow = 1 + _parameters.creepAllowance
            pop = Float._max(_parameters.pop, Float._min(_parameters.pop * grow, _settled * grow))
        }
        _creepForce = y
        _advance(crossing: (x >= _parameters.peek, x >= _parameters.pop, rawX < _releaseLevel),
                 runs: (y >= _parameters.peek, y >= pop, rawY < _releaseLevel),
                 scans: 1, sample: sample, timestampNs: timestampNs)
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
            _touchedBlock()
        } else {
            _trackBaseline(block: values, settled: settled)
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
    internal mutating func _touchedBlock() {
        _seeded = false
        if _state == .idle && !_suspended { _releaseLevel = _parameters.release }
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
        #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
        if busy == 0 {
            // Idle throughout (so no peek) while the run since the last press
            // settles: the readings from the one the run reaches `s` at, in
            // closed form (not on the microcontrollers, whose image stays as small).
            let settling = Classifier._settlingBits(run: _quietScans, settleScans: s)
            _quietScans = settling.quietScans
            return settling.bits
        }
        #endif
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

    #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
    /// An idle block while the quiet run `run` settles (`_settledBitsPartly`
    /// with no busy scan): the settled bits from the one the run reaches
    /// `settleScans` at, and the run after the block.
    @inlinable @inline(__always)
    internal static func _settlingBits(run: Int32, settleScans s: Int32) -> (bits: UInt32, quietScans: Int32) {
        let quietScans = _min(run &+ Int32(Classifier.blockScans), Classifier.countCeiling)
        guard s <= Classifier.countCeiling else { return (0, quietScans) }
        let first = Int64(s) &- Int64(run) &- 1
        if first <= 0 { return (Classifier.blockBits, quietScans) }
        if first >= Int64(Classifier.blockScans) { return (0, quietScans) }
        return (Classifier.blockBits & ~((1 &<< UInt32(truncatingIfNeeded: first)) &- 1), quietScans)
    }
    #endif

    /// Advances the latency crossings and the debounce runs over `scans`
    /// scans on which each condition holds throughout (one scan on the
    /// per-scan path, a whole block on the block path), and counts the locks down.
    @inlinable @inline(__always)
    internal mutating func _advance(crossing: (peek: Bool, pop: Bool, release: Bool), runs: (peek: Bool, pop: Bool, release: Bool),
                                    scans n: Int32, sample: Int64, timestampNs: Int64) {
        _peekCrossing.update(crossing.peek, sample: sample, timestampNs: timestampNs)
        _popCrossing.update(crossing.pop, sample: sample, timestampNs: timestampNs)
        _releaseCrossing.update(crossing.release, sample: sample, timestampNs: timestampNs)
        _peekRun = runs.peek ? _peekRun &+ n : 0
        _popRun = runs.pop ? _popRun &+ n : 0
        _releaseRun = runs.release ? _releaseRun &+ n : 0
        _pressLock = _max(0, _pressLock &- n)
        _releaseLock = _max(0, _releaseLock &- n)
    }

    @inlinable
    internal mutating func _decide(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if _state == .idle {
            // Vibration whose first swing is upward: a 20-60 Hz oscillation
            // climbs from rest past the peek level within a quarter period
            // (4-12.5 ms), faster than a finger (20 ms and more; only a slam is
            // as quick). After so fast a rise the peek waits a few scans, kept
            // inside the latency budget, and is dropped if the force falls a
            // quarter below its crest meanwhile: an oscillation turning over
            // (a slam holds or climbs). That fall starts the hold-off, so the
            // burst's later swings (each after a swing below zero) wait too.
            //
            // The wait cannot see a 20-40 Hz swing that starts from its zero
            // crossing: it crests 6-12.5 ms in, after the wait. Its shape gives it
            // away: a ringing plate starts at its fastest and slows at once (a
            // sine, concave), while a finger's force from rest first speeds up
            // (the fingertip stiffens: convex, or a straight ramp at worst). So
            // the rise is measured one and two curve spans after the last scan
            // at rest; if concave, the peek waits until a 20 Hz swing would
            // have turned over (`vibrationCurveWaitScans` after rest), dropped
            // like the rest if it falls a quarter below its crest. A slam that
            // reaches its plateau within the span pays that wait, unless it is
            // pinned there: three raw readings in a row, each within a
            // hundredth of the peek level of the one before (a rail, a stop),
            // are no oscillation. Near its crest a swing of amplitude A sampled
            // N times a period moves A (2 pi / N)^2 between the second and the
            // third reading about the crest (taken where the crest falls
            // midway between two readings, the flattest case): a swing past
            // the peek level (A at least that) of 20 Hz or more moves at least
            // 2 % of the peek level there at up to 860 scans/s (N <= 43), 1 %
            // at 1250; the wait runs only where the curve span holds two
            // scans (some 440 scans/s and more). The raw readings, not the
            // median of three: the median shows the two readings beside a
            // crest (nearly equal on a sine) up to three times in a row, so it
            // needed four of its readings, a scan later than the raw three
            // (a slam pinned on a cell's rail at 500 scans/s peeked 12 ms after
            // its crossing, 2 ms past the budget).
            if _peekRun > 0 {
                // _previous is this scan's raw reading, _older the one before.
                _flatRun = Float._abs(_previous - _older) <= _parameters.peek * Classifier.vibrationFlatFraction
                    ? (_peekRun > 1 ? _flatRun &+ 1 : 1) : 0
                if _flatRun >= 2 { _riseConcave = false }
                _crest = _peekRun == 1 ? y : Float._max(_crest, y)
                let first = sample &- Int64(_peekRun) &+ 1
                let m = _parameters.vibrationCurveScans
                let since = sample &- _restSample
                if first &- _restSample <= _parameters.vibrationRiseScans
                    && (_peekRun < _parameters.vibrationConfirmRun
                        || (m > 0 && (since < 2 &* m || (_riseConcave && since < _parameters.vibrationCurveWaitScans)))) {
                    if y < _crest * Classifier.vibrationTurnFraction { _undershootSample = sample }
                    return
                }
            }
            guard _pressLock == 0 && _peekRun >= _parameters.pressScans
                    && sample &- _undershootSample > _parameters.vibrationHoldoffScans else { return }
            // A slow rise on a noisy panel: three readings past the level.
            if _noisyCrossingWaits(run: _peekRun, pop: false, since: sample &- _restSample) { return }
            _emit(.peek, crossing: _peekCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
            // The readings of the settle time before it, within this block,
            // were its approach: not settled (see `_settledBits`).
            _blockPeeks |= 1 &<< UInt32(truncatingIfNeeded: _blockFill)
            _state = .peeking
            _peekSample = sample
            _holdDone = false
            _holdRef = y
            _holdRefSample = sample
            _settled = y
            _releaseLock = _parameters.pressLockScans
            _armLetGo()
        }
        // A let-go from a press whose rest stood above the touch band.
        if _letGoArmed && _letGoIfEvident(y: y, sample: sample, timestampNs: timestampNs, into: &events) { return }
        if _state == .peeking {
            if _parameters.creepAllowance > 0 { _settled += _parameters.creepSmoothing * (y - _settled) }
            // Still climbing toward pop: the hold timer's settle clock restarts.
            if _parameters.holdScans > 0 && !_holdDone && y > _holdRef + _parameters.holdRise {
                _holdRef = y
                _holdRefSample = sample
            }
            // A slow rise on a noisy panel: two readings past the level.
            let popDue = _popRun >= _parameters.pressScans
                && !_noisyCrossingWaits(run: _popRun, pop: true, since: sample &- _peekSample)
            if popDue {
                _emit(.pop, crossing: _popCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
                _state = .popped
                _releaseLock = _parameters.pressLockScans
                return
            }
            // A hold is a peek held: never on a reading at or below the
            // release level (a let-go, whose release may wait a scan for the
            // held press's margin, `_releaseEvident`). The block path never
            // fires a hold itself (it leaves every scan where one may fire to
            // this code), so both paths agree.
            if _parameters.holdScans > 0 && !_holdDone && sample &- _peekSample >= _parameters.holdScans
                && sample &- _holdRefSample >= _parameters.holdSettleScans && y > _releaseLevel {
                _holdDone = true
                _emit(.hold, crossing: nil, force: y, sample: sample, timestampNs: timestampNs, into: &events)
            }
        }
        if _releaseLock == 0 && _releaseRun >= _parameters.releaseScans {
            _releaseIfEvident(y: y, sample: sample, timestampNs: timestampNs, into: &events)
        }
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

    /// A release the debounce allows: emitted if the readings show it
    /// (``_releaseEvident(_:sample:)``). Out of line: releases are rare, and
    /// the press scans' `_decide` stays as small as it was (with the emit
    /// inline there, kiosk classify costs 3 % more a scan).
    @usableFromInline @inline(never)
    internal mutating func _releaseIfEvident(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        guard _releaseEvident(y, sample: sample) else { return }
        _release(y: y, crossing: _releaseCrossing, sample: sample, timestampNs: timestampNs, into: &events)
    }

    /// Ends the press: the release event, the release lock, and the let-go
    /// rule's state (the rest since this release is measured afresh, and the
    /// baseline may re-learn from it, `_relearnIfDue`).
    @usableFromInline @inline(never)
    internal mutating func _release(y: Float, crossing: _Crossing?, sample: Int64, timestampNs: Int64,
                                    into events: inout EventRing) {
        _emit(.release, crossing: crossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
        _state = .idle
        _pressLock = _parameters.releaseLockScans
        _restLow = Float.greatestFiniteMagnitude
        _releaseSample = sample
        // Only an armed press stood on a rest above the touch band, the one
        // the re-learning is for (`_relearnIfDue`: a press from rest took the
        // baseline as its rest, and the rest after it reads near it).
        _relearn = _letGoArmed
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
    /// not a relaxation tail above it, which decays) and does not end in a
    /// rise from its mean (the next press's approach), the baseline moves
    /// to their mean. Otherwise the tracker follows as before.
    /// Returns whether the baseline moved.
    @usableFromInline @inline(never)
    internal mutating func _relearnIfDue(_ v: SIMD16<Float>, settled: UInt32) -> Bool {
        // The settled readings' mean as the tracker takes it (nil where fewer than four).
        #if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
        let settledMean = Classifier._meanAndSpread(v, settled: settled)?.mean
        #else
        let settledMean = Classifier._settledMean(v, settled)
        #endif
        guard let mean = settledMean else { return false }
        _relearn = false
        guard mean - _baseline > _parameters.touchBand && Float._abs(mean - _pressRest) < _parameters.touchBand
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
    /// rises from its rest, and a slow approach reads above it. Where a scan
    /// since read at rest (below the touch band), the baseline: the tracker
    /// follows a rest that near. Armed only after a release, where no scan
    /// since read at rest, the lowest stands above the touch band, and the
    /// panel rested since the release (the quiet run reached the settle
    /// time: a press soon after a release rose from the let-go's tail). Where
    /// that rest stands above the touch band, the baseline did not follow the
    /// unloaded panel (it refuses a rise that large: a slow touch must never
    /// become the zero; a thermal ramp outran it during earlier presses), so
    /// the release level, which stands on the baseline, may never be reached:
    /// the rule is armed for this press (`_letGoIfEvident`).
    @usableFromInline @inline(never)
    internal mutating func _armLetGo() {
        let restSince = _restSample > _releaseSample
        _pressRest = restSince ? _baseline : _restLow
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
        guard _releaseLock == 0 && y < _pressRest - _baseline + _parameters.release
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
        !_parameters.spikeIsolated || _releaseRun > 1 || sample &- _peekSample <= _parameters.holdScans
            || y < _releaseLevel - _parameters.peek * Classifier.releaseMarginOfPeek
    }

    @inlinable
    internal mutating func _emit(_ kind: EventKind, crossing: _Crossing?, force: Float, sample: Int64,
                                 timestampNs: Int64, into events: inout EventRing) {
        var latency: Int64 = 0
        var latencyNs: Int64 = 0
        if let crossing, crossing.sample <= sample {
            latency = sample &- crossing.sample
            latencyNs = timestampNs &- crossing.timestampNs
        }
        events.pushLast(ForceEvent(kind: kind, sample: sample, timestampNs: timestampNs, forceNewtons: force,
                                   latencyScans: Int32(truncatingIfNeeded: latency), latencyNs: latencyNs))
    }

    /// Follows the unloaded panel once per block of ``blockScans`` scans:
    /// quickly downwards (relaxation after a press), slowly upwards (drift),
    /// never while pressed or touched. Both the per-scan path and the fast
    /// path call this with the same block, so they track identically.
    /// On hosts inlined into its entries (`_closeBlock`, and the block step's
    /// `_trackWholeBaseline` and `_trackPartBaseline`); on the microcontrollers
    /// (no block step) as it was.
    #if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
    @inlinable
    #else
    @inlinable @inline(__always)
    #endif
    internal mutating func _trackBaseline(block v: SIMD16<Float>, settled bits: UInt32) {
        // Readings taken during a press would drag the baseline up: only the
        // settled ones (bit k set: see `_settledBits`; weight 1, the others 0)
        // count, and a block with fewer than four is skipped.
        let whole = bits == Classifier.blockBits
        let n = Int32(Classifier.blockScans)
        #if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
        // The mean and the noise below (the trend's residuals) in loops over
        // the block in memory (`_meanAndSpread`): nil where fewer than four
        // readings are settled (none in a busy block, common after a press).
        guard !_suspended, let fit = Classifier._meanAndSpread(v, settled: bits) else {
            // After a press, smoothing starts afresh from the first idle block.
            _seeded = false
            return
        }
        let mean = fit.mean, spread = fit.spread
        #else
        // The same, with the whole block's mean summed from `v` itself (no
        // copy of the block merged with `_settledOnly`'s), the partly settled
        // block's out of line (`_settledMean`: nil where fewer than four).
        let mean: Float
        if whole {
            guard !_suspended else {
                _seeded = false
                return
            }
            mean = _sum16(v) / Float(Classifier.blockScans)
        } else {
            guard bits != 0, let settledMean = Classifier._settledMean(v, bits), !_suspended else {
                // After a press, smoothing starts afresh from the first idle block.
                _seeded = false
                return
            }
            mean = settledMean
        }
        #endif
        // The noise: the mean absolute residual about the block's straight-line
        // trend, which a slow ramp or drift inside the block does not inflate.
        // (On the microcontrollers `_meanAndSpread` above.)
        #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
        let ramp = Classifier.blockRamp
        // The same trend: `_trendQuarter`'s lanes halved as `_sum16` halves them.
        let trendQuarter = Classifier._trendQuarter(v, mean)
        let trendHalf = trendQuarter.lowHalf + trendQuarter.highHalf
        let trend = (trendHalf[0] + trendHalf[1]) * Classifier.inverseRampSquares
        let residual = v - (mean + trend * ramp)
        // `_spread` returns the sum's last four lanes: its final halving here,
        // where LLVM cannot push it back through the lane abs (see `_spread`).
        let spreadQuarter = Classifier._spread(residual)
        let spreadHalf = spreadQuarter.lowHalf + spreadQuarter.highHalf
        let spread = (spreadHalf[0] + spreadHalf[1]) * Classifier.inverseBlockScans
        #endif
        // Freshly seeded (start, or the first idle block after a press): the
        // rise rate is not known yet, so the baseline may fall, and rise only
        // within the panel's noise (below the touch level).
        let fresh = !_seeded
        if fresh {
            _seeded = true
            _smoothed = mean
            _slope = 0
        }
        let previous = _smoothed
        _smoothed += _parameters.blockSmoothing * (mean - _smoothed)
        _slope += _parameters.blockSlopeSmoothing * ((_smoothed - previous) * Classifier.inverseBlockScans - _slope)
        // Frozen while pressed.
        guard _state == .idle else {
            _seeded = false
            return
        }
        let d = _smoothed - _baseline
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
        if _warmup > 0 {
            _warmup &-= n
            if Float._abs(d) < _parameters.touchBand { _baseline += _parameters.blockFall * d }
        } else if d < _parameters.underTouchBand && _lowScans < _parameters.undershootScans {
            // An undershoot so far: keep the zero.
        } else if d < 0 {
            _baseline += _parameters.blockFall * d
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
        }
        // Never above the peek level (validated: release <= peek), which the
        // comparisons in `step` and the block path rely on.
        _releaseLevel = Float._min(_parameters.release + unloaded, _parameters.peek)
    }

    /// A partly settled block (rare): the others' readings weigh 0; returns
    /// the readings kept and how many. Out of line, so that the baseline
    /// tracker keeps its block in registers (no stack copy for the lane
    /// stores, no stack protector).
    @usableFromInline @inline(never)
    internal static func _settledOnly(_ v: SIMD16<Float>, _ bits: UInt32) -> (SIMD16<Float>, Float) {
        var kept = v
        var count: Float = 0
        withUnsafeMutableBytes(of: &kept) { lanes in
            var k = 0
            while k < Classifier.blockScans {
                if bits & (1 &<< UInt32(truncatingIfNeeded: k)) != 0 {
                    count += 1
                } else {
                    lanes.storeBytes(of: 0, toByteOffset: k &* MemoryLayout<Float>.stride, as: Float.self)
                }
                k &+= 1
            }
        }
        return (kept, count)
    }

    /// The baseline tracker's mean of a block's settled readings (bit k of
    /// `bits`: scan k) and the block's noise, the mean absolute residual
    /// about its straight-line trend, as the microcontrollers take them; nil
    /// where fewer than ``minimumIdleScans`` readings are settled. The same
    /// as on hosts: the settled readings kept and counted as `_settledOnly`
    /// does (the others 0), `_sum16` of them over the count, the trend
    /// `_sum16((v - mean) * blockRamp)` times ``inverseRampSquares``, and
    /// `_sum16` of `_laneAbs(v - (mean + trend * blockRamp))` times
    /// ``inverseBlockScans``: the same operations on each lane and each sum in
    /// `_sum16`'s pairwise order, so the same bits, in loops over the block's
    /// floats on the stack. Written on `SIMD16` there (no vector unit, and no
    /// FPU on riscv32), every lane's add, multiply and compare was a
    /// soft-float call of its own, unrolled: the tracker was 2.5 kB of the
    /// riscv32 image. CoreTests checks this against the vector form, bit
    /// for bit.
    @usableFromInline @inline(never)
    internal static func _meanAndSpread(_ v: SIMD16<Float>, settled bits: UInt32) -> (mean: Float, spread: Float)? {
        withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 2) { lanes in
            lanes.initializeElement(at: 0, to: v)
            lanes.initializeElement(at: 1, to: v)
            return lanes.baseAddress!.withMemoryRebound(to: Float.self, capacity: 2 &* Classifier.blockScans) {
                _meanAndSpread(lanes: $0, scans: Classifier.blockScans, settled: bits)
            }
        }
    }

    /// `_meanAndSpread` on the block's `scans` (16) floats at `p` twice: the
    /// first copy is overwritten (the kept readings, then the sums' terms).
    /// The count is a parameter: a constant, LLVM unrolled each loop.
    @usableFromInline
    internal static func _meanAndSpread(lanes p: UnsafeMutablePointer<Float>, scans: Int,
                                        settled bits: UInt32) -> (mean: Float, spread: Float)? {
        var count: Float = 0
        var k = 0
        while k < scans {
            if bits & (1 &<< UInt32(truncatingIfNeeded: k)) != 0 { count += 1 } else { p[k] = 0 }
            k &+= 1
        }
        guard count >= Classifier.minimumIdleScans else { return nil }
        let mean = _pairwiseSum(p, scans) / count
        // `blockRamp`'s lane k is k - 7.5, counted up by ones (exact).
        let firstRamp = -Float(Classifier.blockScans &- 1) / 2
        var ramp = firstRamp
        k = 0
        while k < scans {
            p[k] = (p[scans &+ k] - mean) * ramp
            ramp += 1
            k &+= 1
        }
        let trend = _pairwiseSum(p, scans) * Classifier.inverseRampSquares
        ramp = firstRamp
        k = 0
        while k < scans {
            let residual = p[scans &+ k] - (mean + trend * ramp)
            p[k] = residual < 0 ? -residual : residual
            ramp += 1
            k &+= 1
        }
        return (mean, _pairwiseSum(p, scans) * Classifier.inverseBlockScans)
    }

    /// `_sum16` of the `scans` (16) floats at `p`, in place: lanes k and k + 8
    /// added, then k and k + 4, k and k + 2, 0 and 1 (the same additions in the same order).
    @usableFromInline
    internal static func _pairwiseSum(_ p: UnsafeMutablePointer<Float>, _ scans: Int) -> Float {
        var width = scans >> 1
        while width > 0 {
            var k = 0
            while k < width {
                p[k] = p[k] + p[k &+ width]
                k &+= 1
            }
            width >>= 1
        }
        return p[0]
    }

    #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
    /// The mean of a partly settled block's settled readings (`_settledOnly`),
    /// nil where fewer than ``minimumIdleScans`` are settled.
    @usableFromInline @inline(never)
    internal static func _settledMean(_ v: SIMD16<Float>, _ bits: UInt32) -> Float? {
        let (kept, count) = _settledOnly(v, bits)
        guard count >= Classifier.minimumIdleScans else { return nil }
        return _sum16(kept) / count
    }
    #endif

    /// The sum of a block's absolute residuals as far as its last four
    /// lanes (`_sum16`'s first two halvings, the same additions in the same
    /// order); the caller adds those as `_sum16` does and scales by
    /// ``inverseBlockScans``: the mean absolute residual, the same bits.
    /// Out of line: inlined into the baseline tracker, LLVM sinks it into the
    /// code that uses it and computes it lane by lane, testing each lane.
    /// The last halving is the caller's: here LLVM's vectoriser would take
    /// its two lanes as its width and do the whole abs and sum two lanes at
    /// a time, each four-lane step twice.
    /// Not on the 32-bit microcontrollers, which have no vector unit.
    #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
    /// The trend's sum, `(v - mean) * blockRamp` summed as far as its last
    /// four lanes (as `_spread`, and for the same reason: inlined, LLVM did
    /// the products two lanes at a time for the sake of the last halving).
    @usableFromInline @inline(never)
    internal static func _trendQuarter(_ v: SIMD16<Float>, _ mean: Float) -> SIMD4<Float> {
        let moments = (v - mean) * Classifier.blockRamp
        let h8 = moments.lowHalf + moments.highHalf
        return h8.lowHalf + h8.highHalf
    }

    @usableFromInline @inline(never)
    internal static func _spread(_ residual: SIMD16<Float>) -> SIMD4<Float> {
        let v = SIMD16<Float>._abs(residual)
        let h8 = v.lowHalf + v.highHalf
        return h8.lowHalf + h8.highHalf
    }
    #endif

    /// A sensor fault (stuck, lost): a press in progress is released, so that
    /// every begin gets an end, and classification waits for ``sensorRecovered()``.
    public mutating func sensorFault(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if _state != .idle {
            _emit(.release, crossing: nil, force: _lastForce, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .idle
        }
        _suspended = true
    }

    /// The sensor is back: classification resumes from fresh filter history;
    /// the baseline is kept.
    public mutating func sensorRecovered() {
        _suspended = false
        _history = 0
        _peekRun = 0
        _popRun = 0
        _releaseRun = 0
        _pressLock = 0
        _releaseLock = 0
    }

    /// Ends a press in progress (shutdown): emits `release` if needed.
    public mutating func finish(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if _state != .idle {
            _emit(.release, crossing: nil, force: _lastForce, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .idle
        }
    }
    /// Classifies up to `count` consecutive scans, taking quiet blocks whole;
    /// returns how many it took.
    ///
    /// It stops early rather than let the event ring overflow: drain `events`
    /// and call again with the rest. The events and state are exactly those of
    /// calling ``step(force:sample:timestampNs:into:)`` for each scan in turn.
    /// - Complexity: O(count), no allocation.
    @inlinable
    public mutating func step(forces: UnsafePointer<Float>, timestamps: UnsafePointer<Int64>, count: Int,
                              firstSample: Int64, into events: inout EventRing) -> Int {
        var i = 0
        let n = Classifier.blockScans
        while i < count {
            // (Where the block path is off, as before: no code for the window below.)
            if _blockFill == 0 && count - i >= n && (i >= 2 || Classifier.blockPathEnabled) {
                // A block may raise up to two events a scan: it waits for a drained ring.
                if !events.isEmpty { break }
                #if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
                let a, b, c: SIMD16<Float>
                if i >= 2 {
                    let raw = UnsafeRawPointer(forces + (i - 2))
                    a = raw.loadUnaligned(as: SIMD16<Float>.self)
                    b = raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self)
                    c = raw.loadUnaligned(fromByteOffset: 8, as: SIMD16<Float>.self)
                } else {
                    // The first scans of a call (after every drain): the two
                    // readings before come from the classifier, which holds
                    // the last two stepped, so the block need not wait for
                    // two scans of this call (a block lost per event before).
                    var window = SIMD32<Float>()
                    window[0] = _older
                    window[1] = _previous
                    withUnsafeMutableBytes(of: &window) { bytes in
                        bytes.storeBytes(of: UnsafeRawPointer(forces + i).loadUnaligned(as: SIMD16<Float>.self),
                                         toByteOffset: 8, as: SIMD16<Float>.self)
                    }
                    (a, b, c) = withUnsafeBytes(of: &window) { raw in
                        (raw.loadUnaligned(as: SIMD16<Float>.self),
                         raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self),
                         raw.loadUnaligned(fromByteOffset: 8, as: SIMD16<Float>.self))
                    }
                }
                let took = stepBlock(older: a, previous: b, forces: c, firstSample: firstSample &+ Int64(i),
                                     firstTimestampNs: timestamps[i])
                #else
                // The window passed by its address: the block step reads it
                // where it needs it, and no copy of it goes through the stack.
                let took: Bool
                if i >= 2 {
                    took = _stepBlock(window: UnsafeRawPointer(forces + (i - 2)), firstSample: firstSample &+ Int64(i),
                                      firstTimestampNs: timestamps[i])
                } else {
                    // The first scans of a call (after every drain): the two
                    // readings before come from the classifier, which holds
                    // the last two stepped, so the block need not wait for
                    // two scans of this call (a block lost per event before).
                    var window = SIMD32<Float>()
                    window[0] = _older
                    window[1] = _previous
                    withUnsafeMutableBytes(of: &window) { bytes in
                        bytes.storeBytes(of: UnsafeRawPointer(forces + i).loadUnaligned(as: SIMD16<Float>.self),
                                         toByteOffset: 8, as: SIMD16<Float>.self)
                    }
                    let first = firstSample &+ Int64(i), stamp = timestamps[i]
                    took = withUnsafeBytes(of: &window) { raw in
                        _stepBlock(window: raw.baseAddress!, firstSample: first, firstTimestampNs: stamp)
                    }
                }
                #endif
                if took {
                    i &+= n
                    continue
                }
                #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
                // Refused: taken here all the same (the ring is empty: room for
                // two events a scan), in closed form up to each scan that may decide something.
                _stepRefused(forces, at: i, timestamps: timestamps, firstSample: firstSample, into: &events)
                i &+= n
                continue
                #endif
            }
            guard EventRing.capacityCount - events.count >= Classifier.maximumEventsPerStep else { break }
            step(force: forces[i], sample: firstSample &+ Int64(i), timestampNs: timestamps[i], into: &events)
            i &+= 1
        }
        return i
    }

    /// The fast path: takes a whole block of ``blockScans`` scans at once
    /// when nothing in it can change the state or emit an event, and
    /// returns false (having changed nothing) otherwise.
    ///
    /// - Parameters:
    ///   - older: the readings two scans before each of the block's scans.
    ///   - previous: the readings one scan before each of the block's scans.
    ///   - forces: the block's readings.
    /// - Precondition: `older[0]` and `previous[0]` are the last two readings stepped.
    @inlinable
    public mutating func stepBlock(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                   firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        #if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
        // The block path is off here (Classifier.blockPathEnabled): none of it is built.
        return false
        #else
        return _stepBlockEntry(older: { a }, previous: { b }, forces: { c }, extremes: { Classifier._windowExtremes(a, c) },
                               firstSample: firstSample, firstTimestampNs: firstTimestampNs)
        #endif
    }
}

// The block path only: not built where it is off (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension Classifier {

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
        // `_maxLane`/`_minLane` of the lane max and min, their last halving
        // here (see `_windowExtremes`): the same comparisons in the same order.
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

    /// `_advance` over a block whose runs follow its crossings: the locks
    /// counted down only where one runs (both are 0 on a quiet panel, and
    /// `max(0, 0 - n)` is 0: the same values).
    @inlinable @inline(__always)
    internal mutating func _advanceBlock(crossing c: (peek: Bool, pop: Bool, release: Bool), scans n: Int32,
                                         sample: Int64, timestampNs: Int64) {
        _peekCrossing.update(c.peek, sample: sample, timestampNs: timestampNs)
        _popCrossing.update(c.pop, sample: sample, timestampNs: timestampNs)
        _releaseCrossing.update(c.release, sample: sample, timestampNs: timestampNs)
        _peekRun = c.peek ? _peekRun &+ n : 0
        _popRun = c.pop ? _popRun &+ n : 0
        _releaseRun = c.release ? _releaseRun &+ n : 0
        if _pressLock | _releaseLock != 0 {
            _pressLock = _max(0, _pressLock &- n)
            _releaseLock = _max(0, _releaseLock &- n)
        }
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
            // The last scan at rest, as the per-scan path records it: a block
            // on one side of the touch band moves it in closed form.
            let atRest = high < _parameters.touchBand
            if atRest {
                _restSample = lastSample
                restNow = true
            } else if low < _parameters.touchBand || _riseShapeDue(firstSample: firstSample, lastSample: lastSample) {
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
            // The creep reference and compensation move every scan: per scan.
            if _parameters.creepRules { return false }
            if _parameters.holdScans > 0 && !_holdDone {
                if high > _holdRef + _parameters.holdRise {
                    // A new high may restart the hold's settle clock: followed
                    // scan by scan, and per scan where the hold would fire.
                    guard _followHold(older: a(), previous: b(), forces: c(), firstSample: firstSample) else { return false }
                } else if lastSample &- _peekSample >= _parameters.holdScans
                    && lastSample &- _holdRefSample >= _parameters.holdSettleScans {
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
        _advanceBlock(crossing: (abovePeek, abovePop, belowRelease), scans: n, sample: firstSample,
                      timestampNs: firstTimestampNs)
        // The median where a scan is no longer than a spike (the common
        // rates); the isolated rule (9-10 scans/s) out of line, so that its
        // registers are not saved around it on every quiet block.
        // The median's operations written out (`_median`'s, in its order):
        // the generic one was left out of line in this function.
        let filtered = _parameters.spikeIsolated ? _isolatedFilter(a(), b(), c())
            : _laneMax(_laneMin(a(), b()), _laneMin(_laneMax(a(), b()), c()))
        if countingSpikes {
            _spikesRejected &+= Classifier._spikesCounted(a(), b(), c(), filtered: filtered,
                                                          size: _parameters.spikeSize)
        }
        _older = c()[14]
        _previous = c()[15]
        _lastForce = filtered[15] - _baseline
        if restNow || _restSample == lastSample { _restForce = _lastForce }
        // A block at rest (every reading below the touch band) ends in no touch;
        // one taken while pressed is busy throughout.
        // An idle block wholly above the touch band: its lowest reading is the
        // let-go rule's rest as `step` lowers it (`_followRest` takes the others).
        if aboveBand { _restLow = Float._min(_restLow, (_minLane(filtered) - _baseline) + _baseline) }
        if _relearn && _relearnDue(settled.bits) && _relearnIfDue(filtered, settled: settled.bits) {
            // The baseline moved to the rest after a release (as in `_closeBlock`).
        } else if !restNow && _state == .idle && _endsInTouch(filtered) {
            _touchedBlock()
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

    /// The window's lane max and min (`older` and `forces`: `previous` lies
    /// inside them) halved twice as `_maxLane` and `_minLane` halve them: the
    /// highest four in the low half, the lowest four in the high half. Out of
    /// line, the last halving the caller's: inlined, LLVM's vectoriser took
    /// that step's two lanes as its width and did both reductions two lanes
    /// at a time from the window up, each four-lane step twice.
    @usableFromInline @inline(never)
    internal static func _windowExtremes(_ a: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD8<Float> {
        _windowExtremesBody(a, c)
    }
    /// `_windowExtremes` of the window at `window` (see `_stepBlock(window:firstSample:firstTimestampNs:)`).
    @usableFromInline @inline(never)
    internal static func _windowExtremes(window: UnsafeRawPointer) -> SIMD8<Float> {
        _windowExtremesBody(window.loadUnaligned(as: SIMD16<Float>.self),
                            window.loadUnaligned(fromByteOffset: 2 &* MemoryLayout<Float>.stride, as: SIMD16<Float>.self))
    }
    @inlinable @inline(__always)
    internal static func _windowExtremesBody(_ a: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD8<Float> {
        let x = SIMD16<Float>._max(a, c), n = SIMD16<Float>._min(a, c)
        let x8 = _laneMax(x.lowHalf, x.highHalf), n8 = _laneMin(n.lowHalf, n.highHalf)
        return SIMD8<Float>(lowHalf: _laneMax(x8.lowHalf, x8.highHalf), highHalf: _laneMin(n8.lowHalf, n8.highHalf))
    }

    /// The spike filter of a block where a scan is longer than a spike
    /// (`spikeIsolated`): ``_spikeFilter(_:_:_:isolated:agreement:floor:)``
    /// with the block step's arguments, out of line.
    @usableFromInline @inline(never)
    internal func _isolatedFilter(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
        _spikeFilter(a, b, c, isolated: true, agreement: _parameters.spikeAgreement,
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
        let filtered = _spikeFilter(a, b, c, isolated: _parameters.spikeIsolated, agreement: _parameters.spikeAgreement,
                                    floor: _baseline - _parameters.touchBand)
        let m = _parameters.vibrationCurveScans
        var k = 0
        while k < Classifier.blockScans {
            let y = filtered[k] - _baseline
            let sample = firstSample &+ Int64(truncatingIfNeeded: k)
            if y < _parameters.touchBand {
                _restSample = sample
                _restForce = y
            } else {
                _restLow = Float._min(_restLow, y + _baseline)
                let since = sample &- _restSample
                if since == m {
                    _riseMid = y
                } else if since == 2 &* m {
                    _riseConcave = y - _restForce < Classifier.vibrationConcaveRatio * (_riseMid - _restForce)
                }
            }
            k &+= 1
        }
    }

    /// Whether `step` reads the rise's shape at a scan of the block from
    /// `firstSample` to `lastSample` (one or two curve spans after the last
    /// scan at rest), for a block wholly above the touch band: such a block
    /// is followed scan by scan, as it is where it crosses the band.
    @inlinable @inline(__always)
    internal func _riseShapeDue(firstSample: Int64, lastSample: Int64) -> Bool {
        let m = _parameters.vibrationCurveScans
        let first = firstSample &- _restSample, last = lastSample &- _restSample
        return (first <= m && m <= last) || (first <= 2 &* m && 2 &* m <= last)
    }

    /// A peeking block whose readings may climb past the hold's reference:
    /// the reference followed scan by scan as `step` follows it. Returns
    /// false, having changed nothing, where the hold would fire in the block.
    @usableFromInline @inline(never)
    internal mutating func _followHold(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                       firstSample: Int64) -> Bool {
        let filtered = _spikeFilter(a, b, c, isolated: _parameters.spikeIsolated, agreement: _parameters.spikeAgreement,
                                    floor: _baseline - _parameters.touchBand)
        var reference = _holdRef, referenceSample = _holdRefSample
        var k = 0
        while k < Classifier.blockScans {
            let y = filtered[k] - _baseline
            let sample = firstSample &+ Int64(truncatingIfNeeded: k)
            if y > reference + _parameters.holdRise {
                reference = y
                referenceSample = sample
            }
            if sample &- _peekSample >= _parameters.holdScans && sample &- referenceSample >= _parameters.holdSettleScans {
                return false
            }
            k &+= 1
        }
        _holdRef = reference
        _holdRefSample = referenceSample
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
#endif

// The block path only: not built where it is off (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension Classifier {
    /// A block ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``
    /// refused, exactly as `step` takes its scans one by one: each run of
    /// scans up to the next that can change a crossing, a debounce run or the
    /// state (a reading across a level, a hold due) is taken in closed form,
    /// and only that scan is stepped. The block's readings, filtered, and each
    /// scan's conditions are computed once. Out of line, so that the quiet
    /// block's code stays as it was. `stamps` holds the block's 16 timestamps.
    /// - Precondition: `older[0]` and `previous[0]` are the last two readings
    ///   stepped, the block starts a baseline block and the event ring has
    ///   room for two events a scan.
    @usableFromInline @inline(never)
    internal mutating func _stepRefused(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                        stamps: UnsafePointer<Int64>, firstSample: Int64, into events: inout EventRing) {
        var j = 0
        if Classifier.blockPathEnabled && _blockFill == 0 && _history >= 2 && !_suspended && _parameters.spikeRejection
            && _parameters.baselineEnabled {
            let p = _parameters
            // Every scan's readings as `step` computes them (the median as `_stepBlock` writes it).
            let filtered = p.spikeIsolated ? _isolatedFilter(a, b, c) : _laneMax(_laneMin(a, b), _laneMin(_laneMax(a, b), c))
            // The spikes `step` counts (the same comparisons as `_spikesCounted`), per scan.
            let moved = SIMD16<Float>._abs(filtered - b) .> SIMD16<Float>(repeating: p.spikeSize)
            let apart = SIMD16<Float>._abs(a - c) .< SIMD16<Float>._abs(b - a)
            let spikes = Classifier._prefixBits(moved .& apart)
            // The block's readings: `step` stores the same ones again at the scans it takes.
            withUnsafeMutableBytes(of: &_block) { $0.storeBytes(of: filtered, as: SIMD16<Float>.self) }
            // The lanes the runs read, in memory once (passed by value, the
            // vectors were copied through the stack at every run): the readings
            // one scan before, the readings, the filtered ones (less the
            // baseline below) and each scan's conditions.
            var lanes = (b, c, filtered, SIMD16<Float>())
            let changes = withUnsafeMutableBytes(of: &lanes) { raw in
                // Each scan's conditions, as `step` computes them, one bit each
                // (see `_stepRun`), four scans at a time (in 16 lanes, LLVM
                // spilled most of the temporaries: some 240 instructions a block).
                let base = SIMD4<Float>(repeating: _baseline)
                let peek = SIMD4<Float>(repeating: p.peek), pop = SIMD4<Float>(repeating: p.pop)
                let release = SIMD4<Float>(repeating: _releaseLevel)  // as `step` (constant within a baseline block)
                let under = SIMD4<Float>(repeating: p.underTouchBand), band = SIMD4<Float>(repeating: p.touchBand)
                @inline(__always) func bits(_ m: SIMDMask<SIMD4<Int32>>, _ weight: Int32) -> SIMD4<Int32> {
                    unsafeBitCast(m, to: SIMD4<Int32>.self) & SIMD4<Int32>(repeating: weight)
                }
                var q = 0
                while q < 4 {
                    let x = raw.load(fromByteOffset: 64 &+ q &* 16, as: SIMD4<Float>.self) - base
                    let y = raw.load(fromByteOffset: 128 &+ q &* 16, as: SIMD4<Float>.self) - base
                    raw.storeBytes(of: y, toByteOffset: 128 &+ q &* 16, as: SIMD4<Float>.self)
                    let code = bits(x .>= peek, 1) | bits(x .>= pop, 2) | bits(x .< release, 4)
                        | bits(y .>= peek, 8) | bits(y .>= pop, 16) | bits(y .< release, 32)
                        | bits(_laneMin(x, y) .< under, 64) | bits(y .< band, 128)
                    raw.storeBytes(of: code, toByteOffset: 192 &+ q &* 16, as: SIMD4<Int32>.self)
                    q &+= 1
                }
                // Bit l where scan l's conditions differ from scan l-1's: a run ends before it.
                let code = raw.load(fromByteOffset: 192, as: SIMD16<Int32>.self)
                let before = raw.loadUnaligned(fromByteOffset: 188, as: SIMD16<Int32>.self)
                return Classifier._prefixBits(code .!= before)
            }
            withUnsafeBytes(of: &lanes) { raw in
                let lanes = raw.baseAddress!
                while j < Classifier.blockScans {
                    let k = _stepRun(from: j, lanes: lanes, changes: changes, spikes: spikes, stamps: stamps, firstSample: firstSample)
                    if k > 0 {
                        j &+= k
                        continue
                    }
                    // A scan that may decide something.
                    step(force: lanes.load(fromByteOffset: 64 &+ j &* 4, as: Float.self),
                         sample: firstSample &+ Int64(truncatingIfNeeded: j), timestampNs: stamps[j], into: &events)
                    j &+= 1
                }
            }
            return
        }
        while j < Classifier.blockScans {
            step(force: c[j], sample: firstSample &+ Int64(truncatingIfNeeded: j), timestampNs: stamps[j], into: &events)
            j &+= 1
        }
    }

    /// ``_stepRefused(older:previous:forces:stamps:firstSample:into:)`` for
    /// the block at `forces + i` of a batch (`timestamps + i` its stamps), its
    /// window read again here, so that the batch loop holds no vector across
    /// the block step for it.
    @usableFromInline @inline(never)
    internal mutating func _stepRefused(_ forces: UnsafePointer<Float>, at i: Int, timestamps: UnsafePointer<Int64>,
                                        firstSample: Int64, into events: inout EventRing) {
        let a, b, c: SIMD16<Float>
        if i >= 2 {
            let raw = UnsafeRawPointer(forces + (i - 2))
            a = raw.loadUnaligned(as: SIMD16<Float>.self)
            b = raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self)
            c = raw.loadUnaligned(fromByteOffset: 8, as: SIMD16<Float>.self)
        } else {
            var window = SIMD32<Float>()
            window[0] = _older
            window[1] = _previous
            withUnsafeMutableBytes(of: &window) { bytes in
                bytes.storeBytes(of: UnsafeRawPointer(forces + i).loadUnaligned(as: SIMD16<Float>.self),
                                 toByteOffset: 8, as: SIMD16<Float>.self)
            }
            (a, b, c) = withUnsafeBytes(of: &window) { raw in
                (raw.loadUnaligned(as: SIMD16<Float>.self),
                 raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self),
                 raw.loadUnaligned(fromByteOffset: 8, as: SIMD16<Float>.self))
            }
        }
        _stepRefused(older: a, previous: b, forces: c, stamps: timestamps + i, firstSample: firstSample &+ Int64(i), into: &events)
    }

    /// Scans `j`, `j + 1`, ... of a refused block in closed form, exactly as
    /// `step` would leave them (the block's end too, where the run reaches
    /// it), up to the first whose conditions differ from scan j's
    /// (`changes`) or a hold due; returns
    /// how many (0 where scan j itself may decide something). `lanes` holds
    /// four 16-lane vectors: the readings one scan before each scan, the
    /// scans' readings, the filtered ones less the baseline and each scan's
    /// conditions (`Int32`; bits 0-2: the raw reading less the baseline at or
    /// past peek, at or past pop, below release; 3-5: the filtered one's; 6:
    /// either below the touch band under zero; 7: the filtered one at rest);
    /// `spikes` the scans whose spike `step` counts.
    @inlinable @inline(__always)
    internal mutating func _stepRun(from j: Int, lanes: UnsafeRawPointer, changes: UInt32, spikes: UInt32,
                                    stamps: UnsafePointer<Int64>, firstSample: Int64) -> Int {
        let p = _parameters
        @inline(__always) func lane(_ vector: Int, _ k: Int) -> Float {
            lanes.load(fromByteOffset: vector &* 64 &+ k &* 4, as: Float.self)
        }
        let code = lanes.load(fromByteOffset: 3 &* 64 &+ j &* 4, as: Int32.self)
        // What `_decide` does over the run: nothing, where it is not called
        // (idle below the peek level) or can raise nothing (peeking below pop
        // and above release, popped above release, the debounce runs being at
        // least one scan), apart from the hold, followed below. FSR creep moves
        // the pop level every peeking scan: per scan.
        switch _state {
        case .idle: if code & 8 != 0 { return 0 }
        case .peeking: if p.creepRules || _letGoArmed || code & (16 | 32) != 0 { return 0 }
        case .popped: if _letGoArmed || code & 32 != 0 { return 0 }
        }
        // Up to the next change after scan j, or the block's end.
        let after = changes & ~((2 &<< UInt32(truncatingIfNeeded: j)) &- 1)
        var k = (after | 0x1_0000).trailingZeroBitCount &- j
        if k <= 0 { return 0 }
        let firstRun = firstSample &+ Int64(truncatingIfNeeded: j)
        if _state == .peeking && p.holdScans > 0 && !_holdDone {
            // The hold's reference scan by scan, as `_decide` moves it; the run
            // ends before a scan where the hold would fire.
            var reference = _holdRef, referenceSample = _holdRefSample
            var taken = 0
            while taken < k {
                let at = j &+ taken
                let sample = firstSample &+ Int64(truncatingIfNeeded: at)
                var r = reference, rs = referenceSample
                let y = lane(2, at)
                if y > r + p.holdRise {
                    r = y
                    rs = sample
                }
                if sample &- _peekSample >= p.holdScans && sample &- rs >= p.holdSettleScans { break }
                reference = r
                referenceSample = rs
                taken &+= 1
            }
            if taken == 0 { return 0 }
            k = taken
            _holdRef = reference
            _holdRefSample = referenceSample
        }
        // Commit what `step` leaves after the run's k scans.
        let last = j &+ k &- 1
        let run = ((1 &<< UInt32(truncatingIfNeeded: k)) &- 1) &<< UInt32(truncatingIfNeeded: j)
        let lastSample = firstSample &+ Int64(truncatingIfNeeded: last)
        if spikes & run != 0 { _spikesRejected &+= Int64((spikes & run).nonzeroBitCount) }
        _older = lane(0, last)
        _previous = lane(1, last)
        _lastForce = lane(2, last)
        if code & 64 != 0 { _undershootSample = lastSample }
        // The last scan at rest and the rise's shape (see `step`).
        if code & 128 != 0 {
            _restSample = lastSample
            _restForce = _lastForce
        } else {
            // Idle above the touch band: the let-go rule's rest (`step`'s).
            if _state == .idle { _restLow = _lowestLane(lanes, vector: 2, from: j, upTo: j &+ k, plus: _baseline, below: _restLow) }
            // No scan at rest: only the scans `m` and `2m` after the last one count.
            let m = p.vibrationCurveScans
            let since = firstRun &- _restSample
            if m > 0 && since <= 2 &* m && since &+ Int64(truncatingIfNeeded: k &- 1) >= m {
                _followRise(lanes.loadUnaligned(fromByteOffset: 2 &* 64, as: SIMD16<Float>.self), from: j, upTo: j &+ k,
                            firstSample: firstSample)
            }
        }
        let n = Int32(truncatingIfNeeded: k)
        _advance(crossing: (code & 1 != 0, code & 2 != 0, code & 4 != 0),
                 runs: (code & 8 != 0, code & 16 != 0, code & 32 != 0),
                 scans: n, sample: firstRun, timestampNs: stamps[j])
        // The readings are in the block already; whether a press was in progress at them.
        if _state != .idle { _blockBusy |= run }
        _blockFill &+= n
        if _blockFill == Int32(Classifier.blockScans) {
            // The block's last scan: its end, as `step` closes it.
            _blockFill = 0
            _closeBlock()
        }
        #if DEBUG
        _checkInvariants()
        #endif
        return k
    }

    /// A 16-lane mask as bits, bit k for lane k, as `_stepRun` needs them:
    /// each lane's weight as a float (1, 2, 4, ...) kept where the mask is set
    /// and summed (distinct powers of two below 2^16: exact in any order).
    /// `_laneBits` was lowered lane by lane there, some 90 instructions a mask.
    @inlinable @inline(__always)
    internal static func _prefixBits(_ m: SIMDMask<SIMD16<Int32>>) -> UInt32 {
        let weights = unsafeBitCast(_laneWeightsFloat, to: SIMD16<Int32>.self)
        return UInt32(_sum16(unsafeBitCast(_laneMask(m) & weights, to: SIMD16<Float>.self)))
    }

    /// `below` lowered to lanes `from..<upTo` of the 16-lane vector `vector`
    /// at `lanes`, each plus `plus` (the filtered readings less the baseline,
    /// back to newtons as `step` keeps them).
    @usableFromInline @inline(never)
    internal func _lowestLane(_ lanes: UnsafeRawPointer, vector: Int, from: Int, upTo: Int, plus: Float,
                              below: Float) -> Float {
        var low = below
        var k = from
        while k < upTo {
            low = Float._min(low, lanes.load(fromByteOffset: vector &* 64 &+ k &* 4, as: Float.self) + plus)
            k &+= 1
        }
        return low
    }

    /// The last scan at rest, its reading and the rise's shape over scans
    /// `from..<upTo` of a block, scan by scan as `step` moves them.
    @usableFromInline @inline(never)
    internal mutating func _followRise(_ y: SIMD16<Float>, from: Int, upTo: Int, firstSample: Int64) {
        let m = _parameters.vibrationCurveScans
        var k = from
        while k < upTo {
            let sample = firstSample &+ Int64(truncatingIfNeeded: k)
            if y[k] < _parameters.touchBand {
                _restSample = sample
                _restForce = y[k]
            } else {
                let since = sample &- _restSample
                if since == m {
                    _riseMid = y[k]
                } else if since == 2 &* m {
                    _riseConcave = y[k] - _restForce < Classifier.vibrationConcaveRatio * (_riseMid - _restForce)
                }
            }
            k &+= 1
        }
    }
}

/// Lane k's bit, 2^k, as floats, a tuple of literals (constant data, no lazy global).
@usableFromInline internal let _laneWeightsFloat: (Float, Float, Float, Float, Float, Float, Float, Float,
                                                   Float, Float, Float, Float, Float, Float, Float, Float) =
    (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
#endif

extension Classifier {
    /// A block's scans as bits, bit k for scan k.
    @usableFromInline internal static let blockBits: UInt32 = 0xFFFF  // blockScans bits
}
