import ForceStageCore
import ForceStageGestures
import ForceStageFormats

/// The outcome of classifying a whole recording.
public struct ReplayResult: Sendable {
    /// Every event, in order (health events included).
    public var events: [ForceEvent]
    /// The pipeline's counters at the end.
    public var counters: PipelineCounters
    /// Events the ring refused (never expected in replay, reported if it happens).
    public var eventOverflows: UInt64
    /// Spikes the filter replaced.
    public var spikesRejected: Int64

    /// Only peek, pop and release: what labels describe.
    public var transitions: [ForceEvent] { events.filter { $0.kind.isTransition } }
}

/// Classifies the scans of a recording with `setup`, as the service would
/// classify them live: the same pipeline, fed buffer by buffer.
///
/// - Parameter finish: emit a closing `release` if the recording ends mid-press.
public func replay(_ recording: Recording, setup: PanelSetup, finish: Bool = true) -> ReplayResult {
    var pipeline = setup.makePipeline()
    var ring = EventRing()
    var events: [ForceEvent] = []
    events.reserveCapacity(64)
    let scanSize = setup.layout.scanSize
    // Two fast-path blocks per chunk: the ring (64 events) is drained after
    // each, far more often than even a burst of presses fills it.
    let chunk = 2 * Classifier.blockScans * scanSize
    recording.scans.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let end = min(raw.count, offset + chunk)
            offset += pipeline.process(scans: UnsafeRawBufferPointer(rebasing: raw[offset..<end]), into: &ring)
            while let e = ring.popFirst() { events.append(e) }
            if end - offset < scanSize && end == raw.count { break }
        }
    }
    if finish {
        pipeline.finish(into: &ring)
        while let e = ring.popFirst() { events.append(e) }
    }
    return ReplayResult(events: events, counters: pipeline.counters, eventOverflows: ring.overflowCount,
                        spikesRejected: pipeline.classifier.spikesRejected)
}

/// Per-scan internals of the classifier for scans `from...to`: the input
/// force, the baseline, the state after the scan and the events it decided.
public func traceScans(_ recording: Recording, setup: PanelSetup, from: Int, to: Int) -> [String] {
    var lines: [String] = []
    traceScans(recording, setup: setup, from: from, to: to) { _, line in lines.append(line) }
    return lines
}

/// The same trace, one line at a time as it is made (with its scan index), for a trace too long to hold.
public func traceScans(_ recording: Recording, setup: PanelSetup, from: Int, to: Int, each: (Int, String) -> Void) {
    var pipeline = setup.makePipeline()
    var ring = EventRing()
    let size = setup.layout.scanSize
    recording.scans.withUnsafeBytes { raw in
        let end = to >= recording.scanCount ? recording.scanCount : max(0, to + 1)
        for i in 0..<end {
            let scan = raw.baseAddress! + i * size
            let force = pipeline.force(scan: scan)
            pipeline.process(scan: scan, into: &ring)
            var names: [String] = []
            while let e = ring.popFirst() { names.append(e.kind.name) }
            if i >= from {
                let c = pipeline.classifier
                each(i, "\(i) force \(fixed(Double(force), 4)) baseline \(fixed(Double(c.baseline), 4)) net \(fixed(Double(force - c.baseline), 4)) state \(c.state)\(c.parameters.creepRules ? " levels-see \(fixed(Double(c.creepForce), 4))" : "") \(names.joined(separator: " "))")
            }
        }
    }
}

/// Classifies a recording through the gesture layer (``GestureDriver``, the
/// loop `run` drives too): the classifier takes each region's own levels
/// while idle, positions come from the pipeline.
/// - Parameters:
///   - progressHz: nil for no `progress` events.
///   - perScan: every scan through ``GestureDriver/step(scan:pipeline:events:)``,
///     never a fast-path block (what `advance` must equal).
public func replayGestures(_ recording: Recording, setup: PanelSetup, regions: [Region], progressHz: Double? = nil,
                           moveHz: Double = 30, perScan: Bool = false) -> [GestureEvent] {
    var pipeline = setup.makePipeline()
    var driver = GestureDriver(regions: regions, settings: setup.settings, sampleRateHz: setup.sampleRateHz,
                               moveHz: moveHz, progressHz: progressHz)
    var ring = EventRing()
    var out: [GestureEvent] = []
    func collect() {
        for k in 0..<driver.output.count { out.append(driver.output[k].gestureEvent(regions: regions)) }
    }
    let size = setup.layout.scanSize
    recording.scans.withUnsafeBytes { raw in
        var i = 0
        while i < recording.scanCount {
            if perScan {
                driver.step(scan: raw.baseAddress! + i * size, pipeline: &pipeline, events: &ring)
                i += 1
            } else {
                i += driver.advance(scans: raw.baseAddress! + i * size, count: recording.scanCount - i, size: size,
                                    pipeline: &pipeline, events: &ring)
            }
            collect()
        }
    }
    driver.finish(pipeline: &pipeline, events: &ring)
    collect()
    return out
}
