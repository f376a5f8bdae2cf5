import ForceStageCore
import ForceStageFormats

/// Simpler classifiers that the evaluation runs on the same recordings, so
/// the report shows what ForceStage's pipeline gains over each. All three
/// read the same calibrated force (no baseline tracking, no spike filter)
/// and the same peek and pop levels.
public enum ComparisonClassifier: String, CaseIterable, Sendable {
    /// Peek at or above the peek level, pop at or above the pop level, release
    /// below the peek level; no hysteresis, no debounce.
    case threshold = "plain threshold"
    /// libinput-style pressure hysteresis: a press begins at the "down" level and
    /// ends only below a lower "up" level (here the same release level as
    /// ForceStage's); pop likewise with its own band. No debounce.
    case hysteresis = "libinput-style hysteresis"
    /// QMK-style deferred debounce (sym_defer_g): each level's contact is a key
    /// whose change is accepted once it has held for 5 ms (at least one scan).
    case deferred = "QMK-style deferred debounce"

    /// The transitions this classifier emits for `forces` (one per scan).
    public func events(forces: [Float], parameters p: ClassifierParameters) -> [ForceEvent] {
        var out: [ForceEvent] = []
        var state = PressState.idle
        func emit(_ kind: EventKind, _ i: Int, _ f: Float) {
            out.append(ForceEvent(kind: kind, sample: Int64(i), timestampNs: Int64(i) &* p.periodNs, forceNewtons: f))
        }
        switch self {
        case .threshold, .hysteresis:
            let releaseLevel = self == .threshold ? p.peek : p.release
            for (i, f) in forces.enumerated() {
                switch state {
                case .idle:
                    if f >= p.peek {
                        emit(.peek, i, f)
                        state = .peeking
                        if f >= p.pop { emit(.pop, i, f); state = .popped }
                    }
                case .peeking:
                    if f >= p.pop { emit(.pop, i, f); state = .popped }
                    else if f < releaseLevel { emit(.release, i, f); state = .idle }
                case .popped:
                    if f < releaseLevel { emit(.release, i, f); state = .idle }
                }
            }
        case .deferred:
            // Two debounced keys: "at or past peek" and "at or past pop".
            let hold = max(1, Int((0.005 * Double(p.sampleRateHz)).rounded(.up)))
            var peekKey = false, popKey = false
            var peekRun = 0, popRun = 0
            for (i, f) in forces.enumerated() {
                let peekRaw = f >= p.peek, popRaw = f >= p.pop
                peekRun = peekRaw != peekKey ? peekRun + 1 : 0
                popRun = popRaw != popKey ? popRun + 1 : 0
                if peekRun >= hold { peekKey = peekRaw; peekRun = 0 }
                if popRun >= hold { popKey = popRaw; popRun = 0 }
                switch state {
                case .idle:
                    if peekKey {
                        emit(.peek, i, f)
                        state = .peeking
                        if popKey { emit(.pop, i, f); state = .popped }
                    }
                case .peeking:
                    if popKey { emit(.pop, i, f); state = .popped }
                    else if !peekKey { emit(.release, i, f); state = .idle }
                case .popped:
                    if !peekKey { emit(.release, i, f); state = .idle }
                }
            }
        }
        if state != .idle { emit(.release, forces.count, forces.last ?? 0) }
        return out
    }
}

/// The calibrated panel force of every scan of `recording`, as `setup` computes it.
public func calibratedForces(_ recording: Recording, setup: PanelSetup) -> [Float] {
    let pipeline = setup.makePipeline()
    var forces: [Float] = []
    forces.reserveCapacity(recording.scanCount)
    let size = setup.layout.scanSize
    recording.scans.withUnsafeBytes { raw in
        for i in 0..<recording.scanCount { forces.append(pipeline.force(scan: raw.baseAddress! + i * size)) }
    }
    return forces
}
