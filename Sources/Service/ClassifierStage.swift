import ForceStageCore
import ForceStageFormats

/// The classifier thread's work on one slot of the scan ring: classify a scan
/// (or handle a lost / end marker) and move the resulting events into the
/// sinks' ring. A value type driven by one thread; no allocation per scan.
public struct ClassifierStage {
    /// The pipeline in force.
    public private(set) var pipeline: ForcePipeline
    private var events = EventRing()
    private let counters: ServiceCounters
    private let output: SPSCRing<ServiceEvent>
    /// Offsets carried across a pipeline replaced by a reload, so sample numbers and counters keep rising.
    private var sampleBase: Int64 = 0
    private var scanBase: Int64 = 0
    private var droppedBase: Int64 = 0
    private var lastArrival: Int64 = 0
    private var lost = false
    /// The longest a scan can plausibly have waited between its timestamp and its arrival
    /// (the kernel queue plus scheduling); 0 when the device's stamps are not on CLOCK_MONOTONIC.
    private let plausibleAgeNs: Int64
    /// Scans in a row whose stamp had a plausible age; stamps are trusted after a second of them.
    private var plausibleRun: Int64 = 0
    private let trustAfterScans: Int64

    /// A stage over `pipeline`, publishing into `counters` and `output`.
    ///
    /// - Parameter plausibleAgeNs: when the device stamps scans on CLOCK_MONOTONIC, the
    ///   longest a scan can wait in the kernel before its refill; a stamp that old or
    ///   younger is trusted to measure the kernel's share of the latency. 0: never trusted
    ///   (latency is then measured from the refill's arrival).
    public init(pipeline: ForcePipeline, counters: ServiceCounters, output: SPSCRing<ServiceEvent>, plausibleAgeNs: Int64 = 0) {
        self.pipeline = pipeline
        self.counters = counters
        self.output = output
        self.plausibleAgeNs = plausibleAgeNs
        trustAfterScans = max(1, Int64(pipeline.classifier.parameters.sampleRateHz))
    }

    /// Handles one slot.
    ///
    /// - Returns: whether events were pushed (the caller wakes the sinks).
    /// - Complexity: O(force channels) for a scan; no allocation, no lock.
    @inline(__always)
    public mutating func consume(kind: ScanRing.Kind, stampNs: Int64, scan: UnsafeRawPointer) -> Bool {
        switch kind {
        case .scan:
            pipeline.process(scan: scan, into: &events)
            lastArrival = stampNs
            let age = stampNs &- pipeline.lastTimestampNs
            plausibleRun = age >= 0 && age <= plausibleAgeNs ? plausibleRun &+ 1 : 0
            counters.scans.store(scanBase &+ pipeline.counters.scans, ordering: .relaxed)
            counters.droppedScans.store(droppedBase &+ pipeline.counters.droppedScans, ordering: .relaxed)
            if lost || counters.healthState == .starting {
                lost = false
                if counters.healthState != .stopping { counters.setHealth(.streaming) }
            }
            guard !events.isEmpty else { return false }
            // The scan's own stamp measures the kernel's share too, when it is on CLOCK_MONOTONIC and has
            // kept an age the kernel queue can explain for a second (a replayed recording's stamps do not).
            return drain(arrival: stampNs, monotonic: plausibleRun >= trustAfterScans)
        case .lost:
            pipeline.sensorLost(timestampNs: pipeline.lastTimestampNs &+ (stampNs &- lastArrival), into: &events)
            counters.losses.add(1, ordering: .relaxed)
            lost = true
            if counters.healthState != .stopping { counters.setHealth(.lost) }
            return drain(arrival: 0, monotonic: false)
        case .end:
            pipeline.finish(into: &events)
            return drain(arrival: 0, monotonic: false)
        }
    }

    /// Applies a reloaded setup: new levels and tuning keep the classifier's
    /// state; a new calibration needs a new pipeline, so a press in progress is released first.
    /// - Returns: whether events were pushed.
    public mutating func apply(_ next: PanelSetup) -> Bool {
        if next.calibration == pipeline.calibration && next.layout == pipeline.layout {
            pipeline.reconfigure(next.parameters)
            return false
        }
        pipeline.finish(into: &events)
        let pushed = drain(arrival: 0, monotonic: false)
        sampleBase &+= pipeline.nextSample
        scanBase &+= pipeline.counters.scans
        droppedBase &+= pipeline.counters.droppedScans
        pipeline = next.makePipeline()
        return pushed
    }

    /// Moves the classifier's events into the sinks' ring (a full ring refuses and counts).
    private mutating func drain(arrival: Int64, monotonic: Bool) -> Bool {
        var any = false
        while var e = events.popFirst() {
            e.sample &+= sampleBase
            counters.events.add(1, ordering: .relaxed)
            output.push(ServiceEvent(event: e, arrivalNs: arrival, monotonicStamp: monotonic))
            any = true
        }
        counters.classifierOverflows.store(Int64(events.overflowCount), ordering: .relaxed)
        return any
    }
}
