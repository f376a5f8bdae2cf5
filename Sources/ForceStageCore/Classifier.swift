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
    @usableFromInline internal var _baseline: Float = 0
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
    @usableFromInline internal var _lastFiltered: Float = 0
    /// The smoothed reading's change per scan, itself smoothed: slow drift
    /// versus the rise of a press.
    @usableFromInline internal var _slope: Float = 0
    @usableFromInline internal var _warmup: Int32
    @usableFromInline internal var _peekRun: Int32 = 0
    @usableFromInline internal var _popRun: Int32 = 0
    @usableFromInline internal var _releaseRun: Int32 = 0
    @usableFromInline internal var _pressLock: Int32 = 0
    @usableFromInline internal var _releaseLock: Int32 = 0
    @usableFromInline internal var _peekSample: Int64 = 0
    @usableFromInline internal var _holdDone = false
    @usableFromInline internal var _peekCrossing = _Crossing()
    @usableFromInline internal var _popCrossing = _Crossing()
    @usableFromInline internal var _releaseCrossing = _Crossing()
    @usableFromInline internal var _lastForce: Float = 0

    /// Creates a classifier.
    public init(parameters: ClassifierParameters) {
        self._parameters = parameters
        self._warmup = _parameters.warmupScans
    }

    /// Replaces the parameters (a profile reload); state and baseline are kept.
    public mutating func reconfigure(_ parameters: ClassifierParameters) {
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
        let p = parameters
        // Spike rejection: the median of the last three readings.
        let filtered: Float
        if p.spikeRejection && _history >= 2 {
            let a = _older, b = _previous, c = force
            filtered = max(min(a, b), min(max(a, b), c))
            if abs(filtered - b) > p.peek * 0.25 && abs(a - c) < abs(b - a) { _spikesRejected &+= 1 }
        } else {
            filtered = force
        }
        _older = _previous
        _previous = force
        if _history < 2 { _history &+= 1 }

        let x = force - baseline
        let y = filtered - baseline
        _lastForce = y

        // Latency accounting runs on the unfiltered readings.
        _peekCrossing.update(x >= p.peek, sample: sample, timestampNs: timestampNs)
        _popCrossing.update(x >= p.pop, sample: sample, timestampNs: timestampNs)
        _releaseCrossing.update(x < p.release, sample: sample, timestampNs: timestampNs)

        // Debounce runs on the filtered readings.
        _peekRun = y >= p.peek ? _peekRun &+ 1 : 0
        _popRun = y >= p.pop ? _popRun &+ 1 : 0
        _releaseRun = y < p.release ? _releaseRun &+ 1 : 0
        if _pressLock > 0 { _pressLock &-= 1 }
        if _releaseLock > 0 { _releaseLock &-= 1 }

        if !suspended {
            _decide(y: y, sample: sample, timestampNs: timestampNs, into: &events)
        }
        if p.baselineEnabled {
            _trackBaseline(filtered)
        }
    }

    @inlinable
    internal mutating func _decide(y: Float, sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        let p = parameters
        if state == .idle {
            guard _pressLock == 0 && _peekRun >= p.pressScans else { return }
            _emit(.peek, crossing: _peekCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .peeking
            _peekSample = sample
            _holdDone = false
            _releaseLock = p.pressLockScans
        }
        if state == .peeking {
            if _popRun >= p.pressScans {
                _emit(.pop, crossing: _popCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
                _state = .popped
                _releaseLock = p.pressLockScans
                return
            }
            if p.holdScans > 0 && !_holdDone && sample &- _peekSample >= p.holdScans {
                _holdDone = true
                _emit(.hold, crossing: nil, force: y, sample: sample, timestampNs: timestampNs, into: &events)
            }
        }
        if _releaseLock == 0 && _releaseRun >= p.releaseScans {
            _emit(.release, crossing: _releaseCrossing, force: y, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .idle
            _pressLock = p.releaseLockScans
        }
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

    /// Follows the unloaded panel: quickly downwards (relaxation after a
    /// press), slowly upwards (drift), never while pressed or touched.
    @inlinable
    internal mutating func _trackBaseline(_ filtered: Float) {
        let p = parameters
        if !_seeded {
            _seeded = true
            _smoothed = filtered
        }
        let previous = _smoothed
        _smoothed += p.baselineSmoothing * (filtered - _smoothed)
        _slope += p.slopeSmoothing * ((_smoothed - previous) - _slope)
        let step = abs(filtered - _lastFiltered)
        _lastFiltered = filtered
        guard state == .idle && !suspended else { return }
        let d = _smoothed - baseline
        // A touch is a rise several noise widths above the baseline (capped
        // by the configured fraction of the peek level) that is faster than
        // drift: on a quiet panel a slow press freezes the baseline long
        // before it can absorb any of it, while drift is still followed.
        if d < p.touchBand { _noise += p.baselineFall * (min(step, p.touchBand) - _noise) }
        let touch = min(p.touchBand, max(p.touchBand * 0.05, 8 * _noise))
        if _warmup > 0 {
            _warmup &-= 1
            if abs(d) < p.touchBand { _baseline += p.baselineFall * d }
        } else if d < 0 {
            _baseline += p.baselineFall * d
        } else if d < touch || (d < p.touchBand && _slope < p.driftPerScan) {
            // Quiet, or rising no faster than drift does: follow it slowly.
            _baseline += p.baselineRise * d
        }
    }

    /// A sensor fault (stuck, lost): a press in progress is released, so that
    /// every begin gets an end, and classification waits for ``sensorRecovered()``.
    public mutating func sensorFault(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        if state != .idle {
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
        if state != .idle {
            _emit(.release, crossing: nil, force: _lastForce, sample: sample, timestampNs: timestampNs, into: &events)
            _state = .idle
        }
    }
}
