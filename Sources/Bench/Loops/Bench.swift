import ForceStageClock
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation
import MallocInterposerSwift
import Synchronization

/// The loops `forcestage-bench` and the benchmark package measure.
public enum Kernel: String, CaseIterable, Sendable {
    /// Decode, calibrate, health checks and classify, batched (block fast path).
    case decodeClassify = "decode+classify"
    /// Classify the per-scan forces, batched (block fast path).
    case classify = "classify"
    /// Decode and classify one scan at a time.
    case decodeClassifyPerScan = "decode+classify per-scan"
    /// Classify one scan at a time.
    case classifyPerScan = "classify per-scan"
    /// Baseline: a vectorised sum of the forces (the memory-bound limit).
    case sum = "sum baseline"
    /// Baseline: libiio's iio_channel_convert per sample plus the scale.
    case iioConvert = "iio_channel_convert baseline"
    /// Decode and classify through the gesture layer (`run` with regions):
    /// two regions, the plate's left and right halves, the left with its own levels; no progress.
    case decodeClassifyGestures = "decode+classify+gestures"
    /// Decode and classify, batched, with the panel's cell positions left out:
    /// against decode+classify, what press positions cost (panels with positions only).
    case decodeClassifyNoPositions = "decode+classify, no positions"
}

extension Workload {
    /// One pass of `kernel` over the whole recording; returns a value that depends on all of it.
    @discardableResult
    public func run(_ kernel: Kernel, events sink: inout EventSink) -> Double {
        switch kernel {
        case .decodeClassify: return Double(runDecodeClassify(events: &sink))
        case .classify: return Double(runClassify(events: &sink))
        case .decodeClassifyPerScan: return Double(runDecodeClassifyPerScan(events: &sink))
        case .classifyPerScan: return Double(runClassifyPerScan(events: &sink))
        case .sum: return Double(runSum())
        case .iioConvert: return Double(runIIOConvert())
        case .decodeClassifyGestures: return Double(runDecodeClassifyGestures(events: &sink))
        case .decodeClassifyNoPositions: return Double(runDecodeClassify(events: &sink, positions: false))
        }
    }
}


/// The thread whose allocations are counted.
nonisolated(unsafe) private var countedThread: pthread_t?
nonisolated(unsafe) private var countedAllocations = 0
private let allocationHook: MallocInterposerSwift.AllocationHook = { _ in
    if let t = countedThread, pthread_equal(pthread_self(), t) != 0 { countedAllocations += 1 }
}

/// One count at a time: the counted thread and the tally are process-wide, so
/// two tests counting at once (swift-testing runs suites in parallel) would
/// reset and unhook each other.
private let countingLock = Mutex(())

/// Allocations `body` makes on the calling thread, counted by malloc-interposer.
public func countAllocations(_ body: () -> Void) -> Int {
    countingLock.withLock { _ in countOnThisThread(body) }
}

private func countOnThisThread(_ body: () -> Void) -> Int {
    MallocInterposerSwift.setAllocationHook(allocationHook)
    MallocInterposerSwift.hook()
    countedAllocations = 0
    countedThread = pthread_self()
    body()
    countedThread = nil
    MallocInterposerSwift.unhook()
    return countedAllocations
}

/// One kernel's figures on one workload.
public struct KernelFigures: Sendable {
    public var kernel: Kernel
    /// Best pass, nanoseconds per scan.
    public var nsPerScan: Double
    public var scansPerSecond: Double { 1e9 / nsPerScan }
    /// Allocations in one whole pass, divided by its scans (the pass's setup included).
    public var allocationsPerScan: Double
    /// Allocations in a whole pass.
    public var allocations: Int
}

/// Percentiles of a latency distribution.
public struct LatencySummary: Sendable {
    public var count: Int
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double

    init(_ values: [Double]) {
        let s = values.sorted()
        count = s.count
        func q(_ f: Double) -> Double { s.isEmpty ? 0 : s[min(s.count - 1, Int((f * Double(s.count - 1)).rounded(.up)))] }
        p50 = q(0.5)
        p90 = q(0.9)
        p99 = q(0.99)
        max = s.last ?? 0
    }
}

/// Everything `forcestage-bench` reports for one recording.
public struct WorkloadReport: Sendable {
    public var name: String
    public var scans: Int
    public var sampleRateHz: Double
    public var kernels: [KernelFigures]
    /// Fraction of 16-scan blocks the classify fast path took whole.
    public var fastBlockFraction: Double
    /// Peek and pop latency the classifier reports (from the first scan past the level), ms.
    public var detectionLatencyMs: LatencySummary
    /// The same in scans.
    public var detectionLatencyScans: LatencySummary
    /// Against the recording's labels, when it has them.
    public var score: Score?
    public var eventOverflows: UInt64

    public func figures(_ k: Kernel) -> KernelFigures? { kernels.first { $0.kernel == k } }

    /// Throughput of `k` relative to `baseline` (higher is better for `k`).
    public func ratio(_ k: Kernel, to baseline: Kernel) -> Double? {
        guard let a = figures(k), let b = figures(baseline) else { return nil }
        return b.nsPerScan / a.nsPerScan
    }
}

/// Measures `workload`: each kernel runs whole passes until `seconds` have
/// gone by (at least three passes), the best pass counts.
public func measure(_ workload: Workload, seconds: Double = 0.5, kernels: [Kernel] = Kernel.allCases) -> WorkloadReport {
    var figures: [KernelFigures] = []
    var blackhole = 0.0
    for kernel in kernels {
        if kernel == .decodeClassifyNoPositions && workload.setup.positions == nil { continue }
        var sink = EventSink()
        // Warm up, then count the allocations of one whole pass.
        blackhole += workload.run(kernel, events: &sink)
        let passAllocations = countAllocations { blackhole += workload.run(kernel, events: &sink) }
        var best = Int64.max
        let deadline = monotonicNanoseconds() + Int64(seconds * 1e9)
        var passes = 0
        while passes < 3 || monotonicNanoseconds() < deadline {
            let t0 = monotonicNanoseconds()
            blackhole += workload.run(kernel, events: &sink)
            best = min(best, monotonicNanoseconds() - t0)
            passes += 1
        }
        figures.append(KernelFigures(kernel: kernel, nsPerScan: Double(best) / Double(max(1, workload.scanCount)),
                                     allocationsPerScan: Double(passAllocations) / Double(max(1, workload.scanCount)),
                                     allocations: passAllocations))
    }
    if blackhole.isNaN { print("") }
    // The events themselves, once (replay runs the same batched pipeline), for
    // the latency distribution, the score and the overflow count.
    var sink = EventSink()
    let fast = workload.runClassify(events: &sink)
    let replayed = replay(workload.recording, setup: workload.setup)
    let presses = replayed.events.filter { $0.kind == .peek || $0.kind == .pop }
    let rate = workload.setup.sampleRateHz
    let labels = workload.recording.metadata.labels
    let score = labels.isEmpty ? nil : ForceStageTools.score(events: replayed.events, labels: labels, sampleRateHz: rate)
    let blocks = max(1, workload.scanCount / Classifier.blockScans)
    return WorkloadReport(
        name: workload.name, scans: workload.scanCount, sampleRateHz: rate, kernels: figures,
        fastBlockFraction: Double(fast) / Double(blocks),
        detectionLatencyMs: LatencySummary(presses.map { Double($0.latencyNs) / 1e6 }),
        detectionLatencyScans: LatencySummary(presses.map { Double($0.latencyScans) }),
        score: score, eventOverflows: replayed.eventOverflows)
}
