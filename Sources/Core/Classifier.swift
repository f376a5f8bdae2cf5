/// Where a press stands.
public enum PressState: UInt8, Equatable, BitwiseCopyable, Sendable {
    /// Nothing pressed (or a touch below the peek level).
    case idle
    /// Past the peek level; may still pop.
    case peeking
    /// Popped: a commit. Only release follows.
    case popped
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
    /// The unloaded panel's fall, carried through a press (``BaselineTrend``).
    @usableFromInline internal var _trend = BaselineTrend()
    @usableFromInline internal var _warmup: Int32
    /// Debounce runs, locks and the levels' crossings (``LevelDebounce``).
    @usableFromInline internal var _debounce = LevelDebounce()
    /// A score of how often the reading comes back to its highest word
    /// (`_creepWord`) while peeking: a clipped reading (`_advanceCreeping`).
    /// Here, not beside it: it fills a hole in the layout, which keeps the
    /// firmware's offsets small.
    @usableFromInline internal var _creepFlat: Float = 0
    @usableFromInline internal var _peekSample: Int64 = 0
    /// The hold timer (``HoldTimer``).
    @usableFromInline internal var _hold = HoldTimer()
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
    /// The crest of the current run past the peek level while idle: a peek
    /// after a rise from rest faster than a finger waits, watching for an
    /// oscillation turning over.
    @usableFromInline internal var _crest: Float = 0
    /// The last scan at rest (below the touch band, or below zero) and the
    /// shape of the rise from it (``RiseShape``; see `_decide`).
    @usableFromInline internal var _rise = RiseShape()
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
    /// newtons; the largest float before any: a rest near the baseline since,
    /// see `_armLetGo`, disarms the rule anyway), and that release's scan; at a peek, the
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
    /// What the baseline tracker's blocks told of the rest since the last release (``RestSinceRelease``).
    @usableFromInline internal var _restSinceRelease = RestSinceRelease()
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
        // neighbour high too and passes (see `SpikeFilter.filter`).
        let filtered: Float
        if _parameters.spikeRejection && _history >= 2 {
            let a = _older, b = _previous, c = force
            filtered = SpikeFilter.filter(a, b, c, isolated: _parameters.spikeIsolated, agreement: _parameters.spikeAgreement,
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
        // The last scan at rest and the shape of a rise from it, for the vibration rule in `_decide`.
        if !_rise.observe(y, sample: sample, touchBand: _parameters.touchBand, curveScans: _parameters.vibrationCurveScans)
            && _state == .idle {
            // The let-go rule's rest above the touch band (`_armLetGo`), in
            // newtons as every path rounds it (the reading less the baseline, plus it).
            _restLow = Float._min(_restLow, y + _baseline)
        }
        // Latency accounting runs on the unfiltered readings, debounce on the filtered ones.
        // Whether the creep rules ran on this scan: the levels then saw `_creepForce`.
        var creeping = false
        advance: do {
            // A shortcut of the fast path; the microcontrollers keep the one
            // general form below, for the size of their image.
            if Platform.hasFastPath && x < _releaseLevel && y < _releaseLevel {
                // Both readings below the release level, so below peek, pop and
                // the pop level (validated: release <= peek < pop; the pop level
                // is never below pop): the debounce for one scan, decided by these
                // two comparisons.
                _debounce.belowRelease(sample: sample, timestampNs: timestampNs)
                break advance
            }
            if _parameters.creepRules {
                // An FSR: the peek and pop levels see the finger's force estimated
                // from the reading, and pop allows for the creep left over; the
                // release compares the reading (out of line: not the quiet path's
                // code, nor a load cell's).
                _advanceCreeping(x: x, y: y, sample: sample, timestampNs: timestampNs)
                creeping = true
                break advance
            }
            _debounce.advance(crossing: (x >= _parameters.peek, x >= _parameters.pop, x < _releaseLevel),
                     runs: (y >= _parameters.peek, y >= _parameters.pop, y < _releaseLevel),
                     scans: 1, sample: sample, timestampNs: timestampNs)
        }

        let pressedBefore = _state != .idle
        // Idle with no scan past the peek level decides nothing (a peek needs
        // `pressScans` >= 1 of them): the common scan skips the call.
        if !_suspended && (pressedBefore || _debounce.peekRun > 0) {
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
            _fillBlock(scans: 1)
        }
        #if DEBUG
        _checkInvariants()
        #endif
    }

    /// Queues an event, its latency counted from `crossing`'s first scan.
    /// Out of line: events are rare, and each inlined copy of the ring's
    /// push and the 64-bit latency arithmetic is a microcontroller's
    /// image grown for nothing.
    @usableFromInline @inline(never)
    internal mutating func _emit(_ kind: EventKind, crossing: LevelCrossing?, force: Float, sample: Int64,
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
        _debounce.restart()
    }

    /// Ends a press in progress (shutdown): emits `release` if needed.
    public mutating func finish(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if _state != .idle {
            _emit(.release, crossing: nil, force: _lastForce, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .idle
        }
    }
}

extension Classifier {
    /// A block's scans as bits, bit k for scan k.
    @usableFromInline internal static let blockBits: UInt32 = 0xFFFF  // blockScans bits
}
