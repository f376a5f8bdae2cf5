import Benchmark
import ForceStageBench
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

/// One recording of each panel kind, synthesized in memory from fixed seeds
/// (the same as `forcestage synth --corpus`): nothing is read from disk.
let panels: [(name: String, workload: Workload)] = {
    let wanted = ["hx711-10-s1", "hx711-80-s1", "fsr-ads1115-s1", "panel4-s1"]
    return Synthesizer.standardCorpus.filter { wanted.contains($0.stem) }.map { entry in
        let recording = try! Synthesizer.synthesize(entry.options).recording
        return (entry.stem, try! Workload(recording, name: entry.stem))
    }
}()

/// In CI only the allocation counts are checked against the committed
/// (`thresholds check` compares the p90 of each metric, so the tolerance is set at p90)
/// thresholds (zero on the per-scan path); time depends on the machine.
let ciOnly = ProcessInfo.processInfo.environment["FORCESTAGE_BENCH_CI"] != nil
let timed: [BenchmarkMetric] = ciOnly ? [.mallocCountTotal] : [.wallClock, .throughput, .mallocCountTotal]
nonisolated(unsafe) let zeroAllocations: [BenchmarkMetric: BenchmarkThresholds] = [
    .mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 0]),
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: timed, maxDuration: .seconds(ciOnly ? 1 : 3), maxIterations: 10_000)
    for (name, w) in panels {
        // One iteration = one whole pass over the recording (w.scanCount scans).
        // Names have no spaces: the threshold files are looked up by the raw name.
        Benchmark("decode+classify@\(name)",
                  configuration: .init(thresholds: zeroAllocations)) { benchmark in
            var sink = EventSink()
            for _ in benchmark.scaledIterations { blackHole(w.run(.decodeClassify, events: &sink)) }
        }
        Benchmark("classify@\(name)",
                  configuration: .init(thresholds: zeroAllocations)) { benchmark in
            var sink = EventSink()
            for _ in benchmark.scaledIterations { blackHole(w.run(.classify, events: &sink)) }
        }
        Benchmark("decode+classify-per-scan@\(name)",
                  configuration: .init(thresholds: zeroAllocations)) { benchmark in
            var sink = EventSink()
            for _ in benchmark.scaledIterations { blackHole(w.run(.decodeClassifyPerScan, events: &sink)) }
        }
        if !ciOnly {
            Benchmark("sum-baseline@\(name)") { benchmark in
                var sink = EventSink()
                for _ in benchmark.scaledIterations { blackHole(w.run(.sum, events: &sink)) }
            }
            Benchmark("iio_channel_convert-baseline@\(name)") { benchmark in
                var sink = EventSink()
                for _ in benchmark.scaledIterations { blackHole(w.run(.iioConvert, events: &sink)) }
            }
        }
    }
}
