import Synchronization
import ForceStageCore
import ForceStageGestures

/// What the sink thread tells the scan thread about the gesture layer: the
/// `progress` rate asked for (the most any subscribed client or `--progress-hz`
/// asks), so progress is computed only while someone wants it.
final class GestureControl: Sendable {
    /// `progress` events per second asked for, in thousandths; 0: none (and none is computed).
    let progressMilliHz = Atomic<Int64>(0)

    /// Sets the rate asked for (nil or 0: none).
    func requestProgress(hz: Double?) {
        let milli = hz.map { Int64(($0 * 1000).rounded()) } ?? 0
        progressMilliHz.store(max(0, milli), ordering: .relaxed)
    }
}

/// The scan thread's gesture layer: each refill's scans go through the
/// ``GestureDriver`` (the loop `replay --gestures` runs: quiet 16-scan blocks
/// through the fast path, one scan at a time around presses), and what
/// it decides goes to the sinks as ``ServiceEvent``s carrying a
/// ``GestureRecord`` (regions by index: no reference counts cross the ring).
/// Staged in a fixed ring and pushed under one lock per refill that decided
/// something. No allocation per scan.
struct GestureStage {
    private(set) var driver: GestureDriver
    private let control: GestureControl
    private var progressMilliHz: Int64 = 0
    private var staged = Ring<64, ServiceEvent>(filler: .end)

    /// Events one step can stage at most: the gesture layer's, plus the pipeline's health events.
    static let maximumPerStep = GestureDriver.maximumOutputPerStep + ForcePipeline.maximumEventsPerScan

    init(regions: [Region], settings: ClassifierSettings, sampleRateHz: Double, control: GestureControl) {
        driver = GestureDriver(regions: regions, settings: settings, sampleRateHz: sampleRateHz)
        self.control = control
    }

    /// Classifies `count` scans of `size` bytes from `base` and pushes what they decided.
    /// - Returns: the events pushed.
    /// - Complexity: O(scans × (force channels + regions)); one relaxed atomic load, no allocation.
    mutating func classify(_ base: UnsafeRawPointer, count: Int, size: Int, pipeline: inout ForcePipeline,
                           events: inout EventRing, sampleBase: Int64, arrivalNs: Int64, monotonic: Bool,
                           output: EventChannel) -> Int {
        let want = control.progressMilliHz.load(ordering: .relaxed)
        if want != progressMilliHz {
            progressMilliHz = want
            driver.setProgress(hz: want > 0 ? Double(want) / 1000 : nil)
        }
        var pushed = 0
        var k = 0
        while k < count {
            // A quiet 16-scan block through the fast path (nothing to stage), else one scan.
            let used = driver.advance(scans: base + k &* size, count: count &- k, size: size, pipeline: &pipeline, events: &events)
            k &+= used
            if driver.output.isEmpty && driver.otherEvents.isEmpty { continue }
            stage(sampleBase: sampleBase, arrivalNs: arrivalNs, monotonic: monotonic)
            if Ring<64, ServiceEvent>.capacityCount &- staged.count < Self.maximumPerStep {
                pushed &+= output.push(staged: &staged)
            }
        }
        if !staged.isEmpty { pushed &+= output.push(staged: &staged) }
        return pushed
    }

    /// The sensor was lost: `lost`, and a press in progress released through the gesture layer.
    mutating func sensorLost(timestampNs: Int64, pipeline: inout ForcePipeline, events: inout EventRing,
                             sampleBase: Int64, output: EventChannel) -> Int {
        driver.sensorLost(timestampNs: timestampNs, pipeline: &pipeline, events: &events)
        stage(sampleBase: sampleBase, arrivalNs: 0, monotonic: false)
        return output.push(staged: &staged)
    }

    /// The stream ended (or the pipeline is replaced): a press in progress is released.
    mutating func finish(pipeline: inout ForcePipeline, events: inout EventRing, sampleBase: Int64, output: EventChannel) -> Int {
        driver.finish(pipeline: &pipeline, events: &events)
        stage(sampleBase: sampleBase, arrivalNs: 0, monotonic: false)
        return output.push(staged: &staged)
    }

    /// New levels from a reload that kept the calibration.
    mutating func apply(settings: ClassifierSettings) { driver.apply(settings: settings) }

    /// The last step's events into the staging ring, sample numbers offset by `sampleBase`.
    private mutating func stage(sampleBase: Int64, arrivalNs: Int64, monotonic: Bool) {
        var i = 0
        while i < driver.otherEvents.count {
            var e = driver.otherEvents[i]
            e.sample &+= sampleBase
            staged.pushLast(ServiceEvent(event: e, arrivalNs: arrivalNs, monotonicStamp: monotonic))
            i &+= 1
        }
        i = 0
        while i < driver.output.count {
            var r = driver.output[i]
            r.sample &+= sampleBase
            staged.pushLast(ServiceEvent(event: r.event, arrivalNs: arrivalNs, monotonicStamp: monotonic, gesture: r))
            i &+= 1
        }
    }
}
