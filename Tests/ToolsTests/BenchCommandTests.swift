import Foundation
import TestSupport
import Testing

/// The built `forcestage-bench` executable, beside `forcestage`.
let forcestageBenchBinary = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-bench")

/// Runs the real `forcestage-bench` binary.
func forcestageBench(_ arguments: [String]) throws -> ProcessResult {
    try run(forcestageBenchBinary, arguments)
}

/// `forcestage-bench`, run as a user runs it.
@Suite("forcestage-bench")
struct BenchCommandTests {
    @Test("On the bundled demo: every loop, zero allocations, the fast path used, the score")
    func demo() throws {
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let r = try forcestageBench([demo, "--seconds", "0.02", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]]
        let report = try #require(parsed?.first)
        let loops = try #require(report["loops"] as? [[String: Any]])
        let names = loops.compactMap { $0["loop"] as? String }
        #expect(names == ["decode+classify", "classify", "decode+classify per-scan", "classify per-scan",
                          "sum baseline", "iio_channel_convert baseline", "decode+classify+gestures"])
        for loop in loops {
            // ForceStage's own loops. The baselines are not held to it: in the debug build
            // the iio_channel_convert loop makes one allocation per scan (none in release).
            if let name = loop["loop"] as? String, !name.contains("baseline") {
                #expect((loop["allocationsPerScan"] as? Double) == 0, "\(loop)")
            }
            #expect(((loop["nsPerScan"] as? Double) ?? 0) > 0, "\(loop)")
            #expect(loop["ratioToSum"] is Double && loop["ratioToIIOConvert"] is Double)
        }
        #expect(((report["fastBlockFraction"] as? Double) ?? 0) > 0.3)
        #expect((report["f1"] as? Double) == 1)
        #expect((report["eventOverflows"] as? Int) == 0)
        let latency = try #require(report["detectionLatencyScans"] as? [String: Any])
        #expect(((latency["count"] as? Int) ?? 0) > 0)
    }

    @Test("A recording that is not there gets one line naming it and a non-zero exit")
    func missing() throws {
        let r = try forcestageBench(["/nonexistent/rec.json"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("/nonexistent/rec.json"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }
}
