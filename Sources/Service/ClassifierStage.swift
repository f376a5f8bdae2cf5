import ForceStageCore
import ForceStageFormats
import ForceStageGestures

/// The scan thread's classification: each refill's scans go through the
/// pipeline's batch path in one call (the block fast path wherever the
/// classifier's state allows it), and the decided events go to the sinks
/// through the ``EventChannel``. A value type driven by one thread; no
/// allocation and no lock per scan.
struct ClassifierStage {
    /// The pipeline in force.
    private(set) var pipeline: ForcePipeline
    /// The calibration the pipeline was built from: a reload with the same one
    /// keeps the pipeline (nil, not known: a reload always builds a new one).
    private var calibration: PanelCalibration?
    private var events = EventRing()
    private let counters: ServiceCounters
    private let output: EventChannel
    /// Offsets carried across a pipeline replaced by a reload, so sample numbers and counters keep rising.
    private var sampleBase: Int64 = 0
    private var scanBase: Int64 = 0
    private var droppedBase: Int64 = 0
    private var lastArrival: Int64 = 0
    private var lost = false
    /// The longest a scan can plausibly have waited between its timestamp and its arrival
    /// (the kernel queue plus scheduling); 0 when the device's stamps are not on CLOCK_MONOTONIC.
    private let plausibleAgeNs: Int64
    /// Scans in a row whose refill's last stamp had a plausible age; stamps are trusted after a second of them.
    private var plausibleRun: Int64 = 0
    private let trustAfterScans: Int64
    /// The gesture layer, when it runs: then every scan goes through it (see ``GestureStage``).
    private var gestures: GestureStage?

    /// A stage over `pipeline`, publishing into `counters` and `output`.
    ///
    /// - Parameter plausibleAgeNs: when the device stamps scans on CLOCK_MONOTONIC, the
    ///   longest a scan can wait in the kernel before its refill; a stamp that old or
    ///   younger is trusted to measure the kernel's share of the latency. 0: never trusted
    ///   (latency is then measured from the refill's arrival).
    init(pipeline: ForcePipeline, calibration: PanelCalibration? = nil, counters: ServiceCounters, output: EventChannel,
         plausibleAgeNs: Int64 = 0, gestures: GestureStage? = nil) {
        self.pipeline = pipeline
        self.calibration = calibration
        self.gestures = gestures
        self.counters = counters
        self.output = output
        self.plausibleAgeNs = plausibleAgeNs
        trustAfterScans = max(1, Int64(pipeline.classifier.parameters.sampleRateHz))
    }

    /// Classifies the whole scans of one refill, arrived at `arrivalNs` (CLOCK_MONOTONIC).
    ///
    /// - Returns: the scans classified (a trailing partial scan is ignored; the kernel never returns one).
    /// - Complexity: O(scans); no allocation, no lock unless events were decided.
    mutating func classify(_ bytes: UnsafeRawBufferPointer, arrivalNs: Int64) -> Int {
        let size = pipeline.layout.scanSize
        let whole = bytes.count / size * size
        guard whole > 0, let base = bytes.baseAddress else { return 0 }
        // The scans' own stamps measure the kernel's share too, when they are on CLOCK_MONOTONIC and
        // have kept an age the kernel queue can explain for a second (a replayed recording's do not).
        let monotonic = plausibleRun >= trustAfterScans
        var rest = UnsafeRawBufferPointer(start: base, count: gestures == nil ? whole : 0)
        if gestures != nil {
            let n = gestures!.classify(base, count: whole / size, size: size, pipeline: &pipeline, events: &events,
                                       sampleBase: sampleBase, arrivalNs: arrivalNs, monotonic: monotonic, output: output)
            counters.events.add(Int64(n), ordering: .relaxed)
        }
        while !rest.isEmpty {
            let used = pipeline.process(scans: rest, into: &events)
            rest = UnsafeRawBufferPointer(rebasing: rest[used...])
            if !events.isEmpty { drain(arrival: arrivalNs, monotonic: monotonic) }
        }
        lastArrival = arrivalNs
        let age = arrivalNs &- pipeline.lastTimestampNs
        plausibleRun = age >= 0 && age <= plausibleAgeNs ? plausibleRun &+ Int64(whole / size) : 0
        counters.scans.store(scanBase &+ pipeline.counters.scans, ordering: .relaxed)
        counters.droppedScans.store(droppedBase &+ pipeline.counters.droppedScans, ordering: .relaxed)
        if lost || counters.healthState == .starting {
            lost = false
            if counters.healthState != .stopping { counters.setHealth(.streaming) }
        }
        return whole / size
    }

    /// The sensor was lost at `stampNs` (CLOCK_MONOTONIC): a press in progress is released.
    mutating func sensorLost(stampNs: Int64) {
        let stamp = pipeline.lastTimestampNs &+ (stampNs &- lastArrival)
        if gestures != nil {
            let n = gestures!.sensorLost(timestampNs: stamp, pipeline: &pipeline, events: &events, sampleBase: sampleBase, output: output)
            counters.events.add(Int64(n), ordering: .relaxed)
        } else {
            pipeline.sensorLost(timestampNs: stamp, into: &events)
        }
        counters.losses.add(1, ordering: .relaxed)
        lost = true
        if counters.healthState != .stopping { counters.setHealth(.lost) }
        drain(arrival: 0, monotonic: false)
    }

    /// The stream ended: a press in progress is released.
    mutating func finish() {
        if gestures != nil {
            let n = gestures!.finish(pipeline: &pipeline, events: &events, sampleBase: sampleBase, output: output)
            counters.events.add(Int64(n), ordering: .relaxed)
            return
        }
        pipeline.finish(into: &events)
        drain(arrival: 0, monotonic: false)
    }

    /// Applies a reloaded setup: new levels and tuning keep the classifier's
    /// state; a new calibration needs a new pipeline, so a press in progress is released first.
    mutating func apply(_ next: PanelSetup) {
        if next.calibration == calibration && next.layout == pipeline.layout {
            pipeline.reconfigure(next.parameters)
            gestures?.apply(settings: next.settings)
            return
        }
        finish()
        gestures?.apply(settings: next.settings)
        sampleBase &+= pipeline.nextSample
        scanBase &+= pipeline.counters.scans
        droppedBase &+= pipeline.counters.droppedScans
        pipeline = next.makePipeline()
        calibration = next.calibration
    }

    /// Moves the classifier's events into the sinks' ring (a full ring refuses and counts).
    private mutating func drain(arrival: Int64, monotonic: Bool) {
        let n = output.push(&events, sampleBase: sampleBase, arrivalNs: arrival, monotonic: monotonic)
        counters.events.add(Int64(n), ordering: .relaxed)
        counters.classifierOverflows.store(Int64(events.overflowCount), ordering: .relaxed)
    }
}
