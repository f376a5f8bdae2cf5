import ArgumentParser
import ForceStageCommandLine
import ForceStageBench
import ForceStageCore
import ForceStageFormats
import ForceStageFormatsURL
import ForceStageTools
import Foundation

/// `forcestage-bench`: the benchmark figures on the user's own board. A program of its
/// own because it links malloc-interposer to count allocations, which the shipped
/// `forcestage` must never carry.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forcestage-bench",
        abstract: "Measure throughput, allocations and detection latency on recordings.",
        discussion: """
        Holds each recording in memory and times whole passes of: decode+classify and \
        classify alone (the batched block fast path), the same one scan at a time, and two \
        baselines over the same samples: a vectorised sum (the memory-bound limit) and \
        libiio's iio_channel_convert per sample (what a libiio user would otherwise write). \
        The best pass counts. Allocations are counted with malloc-interposer over one whole \
        pass. Latency is the classifier's own, from the first scan past the level; with \
        labels, the score is printed too. Build with -c release for meaningful figures.
        """,
        version: forceStageVersion)

    @Argument(help: "Recordings (STEM.json); default: the bundled demo recording.")
    var recordings: [String] = []

    /// --profile or --calibration instead of the recording's own calibration.
    @OptionGroup var calibration: CalibrationOptions

    @Option(help: "Seconds to spend timing each loop on each recording.")
    var seconds: Double = 0.5

    @Flag(help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
    }

    /// Every failure is one line and a documented exit status, as in `forcestage`.
    static func main() { runCommandLine(Self.self) }

    func run() throws {
        var paths = recordings
        if paths.isEmpty {
            guard let demo = bundledDemoRecording() else {
                throw CommandFailure(.usage, "no recording given and the bundled demo (hardware/recordings/demo-hx711.json) is not here; pass REC.json")
            }
            paths = [demo.path]
        }
        var reports: [WorkloadReport] = []
        for path in paths {
            let recording = try loadRecording(path)
            let setup = try makeSetup(for: recording, path: path, calibration: calibration)
            let name = URL(fileURLWithPath: path).lastPathComponent
            let workload: Workload
            do { workload = try Workload(recording, name: name, setup: setup) } catch { throw CommandFailure(.badInput, "\(path): \(error)") }
            reports.append(measure(workload, seconds: seconds))
        }
        emit(json ? benchJSON(reports).rendered(indent: 2) : benchText(reports))
    }
}

private func f(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }

/// The table `forcestage-bench` prints.
func benchText(_ reports: [WorkloadReport]) -> String {
    var lines: [String] = []
    #if DEBUG
    lines.append("note: a debug build; figures from `swift build -c release` are the ones to quote")
    #endif
    for r in reports {
        lines.append("\(r.name): \(r.scans) scans at \(f(r.sampleRateHz, 0)) scans/s, fast path took \(f(r.fastBlockFraction * 100, 1)) % of 16-scan blocks")
        lines.append("  " + "loop".padding(toLength: 30, withPad: " ", startingAt: 0) + "   ns/scan     Mscans/s   vs sum   vs iio   allocs/scan")
        for k in r.kernels {
            let vsSum = r.ratio(k.kernel, to: .sum).map { f($0, $0 < 0.1 ? 3 : 2) + "x" } ?? "-"
            let vsIIO = r.ratio(k.kernel, to: .iioConvert).map { f($0, 1) + "x" } ?? "-"
            let name = k.kernel.rawValue.padding(toLength: 30, withPad: " ", startingAt: 0)
            lines.append("  \(name) \(f(k.nsPerScan, 2).leftPad(9))  \(f(k.scansPerSecond / 1e6, 2).leftPad(11))  \(vsSum.leftPad(7))  \(vsIIO.leftPad(7))  \(f(k.allocationsPerScan, 4).leftPad(12))")
        }
        let l = r.detectionLatencyScans, m = r.detectionLatencyMs
        lines.append("  detection latency (\(l.count) peeks and pops): p50 \(f(l.p50, 0))/\(f(m.p50, 1)) ms  p90 \(f(l.p90, 0))/\(f(m.p90, 1)) ms  p99 \(f(l.p99, 0))/\(f(m.p99, 1)) ms  max \(f(l.max, 0))/\(f(m.max, 1)) ms (scans/ms)")
        if let s = r.score {
            lines.append("  against labels: F1 \(f(s.f1, 3)), \(f(s.withinTargetFraction * 100, 1)) % of peeks and pops within max(2 scans, 10 ms)")
        }
        if r.eventOverflows > 0 { lines.append("  WARNING: \(r.eventOverflows) events overflowed the event ring") }
    }
    return lines.joined(separator: "\n")
}

/// The same report as JSON.
func benchJSON(_ reports: [WorkloadReport]) -> JSON {
    .array(reports.map { r in
        var fields: [(String, JSON)] = [
            ("recording", .string(r.name)), ("scans", .int(Int64(r.scans))),
            ("sampleRateHz", .double(r.sampleRateHz)), ("fastBlockFraction", .double(r.fastBlockFraction)),
        ]
        fields.append(("loops", .array(r.kernels.map { k in
            var o: [(String, JSON)] = [
                ("loop", .string(k.kernel.rawValue)), ("nsPerScan", .double(k.nsPerScan)),
                ("scansPerSecond", .double(k.scansPerSecond)), ("allocationsPerScan", .double(k.allocationsPerScan)),
            ]
            if let v = r.ratio(k.kernel, to: .sum) { o.append(("ratioToSum", .double(v))) }
            if let v = r.ratio(k.kernel, to: .iioConvert) { o.append(("ratioToIIOConvert", .double(v))) }
            return .object(o)
        })))
        func lat(_ l: LatencySummary) -> JSON {
            .object([("count", .int(Int64(l.count))), ("p50", .double(l.p50)), ("p90", .double(l.p90)),
                     ("p99", .double(l.p99)), ("max", .double(l.max))])
        }
        fields.append(("detectionLatencyScans", lat(r.detectionLatencyScans)))
        fields.append(("detectionLatencyMs", lat(r.detectionLatencyMs)))
        if let s = r.score {
            fields.append(("f1", .double(s.f1)))
            fields.append(("withinTargetFraction", .double(s.withinTargetFraction)))
        }
        fields.append(("eventOverflows", .int(Int64(r.eventOverflows))))
        return .object(fields)
    })
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
