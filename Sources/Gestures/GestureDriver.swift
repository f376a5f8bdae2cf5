import ForceStageCore

/// Drives ``PanelGestures`` from a ``ForcePipeline`` one scan at a time: the
/// one loop `replay --gestures` and `run` share, so for the same scans they
/// decide the same events.
///
/// Per scan: while the classifier is idle, it takes the levels of the region
/// under the finger (the region's own, else the panel's); the scan is
/// classified; the gesture layer gets the press force, the centre of pressure
/// and the scan's events. After ``step(scan:pipeline:events:)``, ``output``
/// holds the scan's gesture events and ``otherEvents`` the pipeline's health
/// events (`saturated`, `stuck`, `lost`, `recovered`), which the gesture layer
/// does not name.
///
/// Per scan, the classifier's single-scan path: the block fast path cannot
/// hand out each scan's force and position, which moves, spring loading and
/// the region levels need. Nothing is allocated per scan once the two arrays
/// have their capacity (reserved at init).
public struct GestureDriver: Sendable {
    public private(set) var gestures: PanelGestures
    /// The gesture events of the last step.
    public private(set) var output: [GestureEvent] = []
    /// The pipeline's events of the last step the gesture layer does not take (health).
    public private(set) var otherEvents: [ForceEvent] = []
    private var scanEvents: [ForceEvent] = []
    private var settings: ClassifierSettings
    private let sampleRateHz: Double
    /// The levels the classifier was last given (the panel's at start).
    private var levels: (peek: Float, pop: Float)

    /// Events a step can put out at most: each of the pipeline's events with
    /// its follow-up (actions, open, dismiss), plus a move, a spring and a progress.
    public static let maximumOutputPerStep = 2 * EventRing.capacityCount + 3

    /// - Parameters:
    ///   - regions: the profile's regions (none: every press, named by no region).
    ///   - settings: the panel's levels and tuning (the pipeline's).
    ///   - progressHz: `progress` events per second at most; nil: none computed.
    public init(regions: [Region], settings: ClassifierSettings, sampleRateHz: Double, moveHz: Double = 30,
                progressHz: Double? = nil) {
        gestures = PanelGestures(regions: regions, panelPeek: settings.peekNewtons, panelPop: settings.popNewtons,
                                 releaseFraction: settings.releaseFraction, sampleRateHz: sampleRateHz,
                                 moveHz: moveHz, progressHz: progressHz)
        self.settings = settings
        self.sampleRateHz = sampleRateHz
        levels = (settings.peekNewtons, settings.popNewtons)
        output.reserveCapacity(Self.maximumOutputPerStep)
        otherEvents.reserveCapacity(EventRing.capacityCount)
        scanEvents.reserveCapacity(EventRing.capacityCount)
    }

    /// `progress` at most `hz` per second from now on; nil: none computed.
    public mutating func setProgress(hz: Double?) {
        gestures.progressInterval = PanelGestures.interval(hz: hz, sampleRateHz: sampleRateHz)
    }

    /// New settings (a profile reload that kept the calibration): the panel's
    /// levels for presses outside every region; the press in progress goes on.
    /// The caller has given the pipeline the new parameters.
    public mutating func apply(settings next: ClassifierSettings) {
        settings = next
        levels = (next.peekNewtons, next.popNewtons)
        gestures.setPanelLevels(peek: next.peekNewtons, pop: next.popNewtons, releaseFraction: next.releaseFraction)
    }

    /// Classifies one scan through `pipeline` (its events staged in `events`,
    /// which is drained) and runs the gesture layer on it.
    /// - Complexity: O(force channels + regions); no allocation.
    public mutating func step(scan: UnsafeRawPointer, pipeline: inout ForcePipeline, events: inout EventRing) {
        if !gestures.regions.isEmpty && pipeline.classifier.state == .idle {
            let want = gestures.levels(at: pipeline.centreOfPressure)
            if want != levels {
                var next = settings
                next.peekNewtons = want.peek
                next.popNewtons = want.pop
                if let parameters = try? ClassifierParameters(next, sampleRateHz: Float(sampleRateHz)) {
                    pipeline.reconfigure(parameters)
                    levels = want
                }
            }
        }
        let sample = pipeline.nextSample
        pipeline.process(scan: scan, into: &events)
        feed(sample: sample, force: pipeline.pressForce, position: pipeline.centreOfPressure, events: &events)
    }

    /// The stream ended: a press in progress is released (and named, dismissed).
    public mutating func finish(pipeline: inout ForcePipeline, events: inout EventRing) {
        pipeline.finish(into: &events)
        feed(sample: pipeline.nextSample, force: 0, position: nil, events: &events)
    }

    /// The sensor was lost: `lost`, and a press in progress released.
    public mutating func sensorLost(timestampNs: Int64, pipeline: inout ForcePipeline, events: inout EventRing) {
        pipeline.sensorLost(timestampNs: timestampNs, into: &events)
        feed(sample: pipeline.nextSample, force: 0, position: nil, events: &events)
    }

    private mutating func feed(sample: Int64, force: Float, position: PlatePoint?, events: inout EventRing) {
        output.removeAll(keepingCapacity: true)
        otherEvents.removeAll(keepingCapacity: true)
        scanEvents.removeAll(keepingCapacity: true)
        while let e = events.popFirst() {
            if e.kind.isGesture { scanEvents.append(e) } else { otherEvents.append(e) }
        }
        gestures.scan(sample: sample, force: force, position: position, events: scanEvents, into: &output)
    }
}
