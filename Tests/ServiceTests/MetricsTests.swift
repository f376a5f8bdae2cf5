import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import ForceStageService

/// Checks text against the Prometheus exposition format as node_exporter's textfile
/// collector parses it: HELP and TYPE once per family before its samples, sample lines
/// `name{labels} value`, no series twice. Returns the samples by series.
func parsePrometheus(_ text: String) throws -> [String: Double] {
    struct Bad: Error, CustomStringConvertible { var description: String }
    var samples: [String: Double] = [:]
    var typed: [String: String] = [:]
    var helped: Set<String> = []
    #expect(text.hasSuffix("\n"))
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
        if line.hasPrefix("# HELP ") {
            let name = String(line.dropFirst(7).prefix { $0 != " " })
            guard helped.insert(name).inserted else { throw Bad(description: "HELP twice: \(line)") }
            continue
        }
        if line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            guard parts.count == 4, ["counter", "gauge", "summary"].contains(parts[3]), typed[String(parts[2])] == nil else {
                throw Bad(description: "bad TYPE: \(line)")
            }
            typed[String(parts[2])] = String(parts[3])
            continue
        }
        guard let m = line.wholeMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-z_]+="(?:[^"\\]|\\.)*"(?:,[a-z_]+="(?:[^"\\]|\\.)*")*\})? (-?[0-9.e+-]+|NaN|[+-]Inf)/) else {
            throw Bad(description: "not a sample line: \(line)")
        }
        let name = String(m.1)
        let family = typed[name] != nil ? name : String(name.replacing(/_(count|sum)$/, with: ""))
        guard typed[family] != nil, helped.contains(family) else { throw Bad(description: "sample before its TYPE/HELP: \(line)") }
        let series = name + String(m.2 ?? "")
        guard samples[series] == nil, let v = Double(m.3) else { throw Bad(description: "series twice or bad value: \(line)") }
        samples[series] = v
    }
    return samples
}

/// `status --prometheus` and `run --metrics-file` on a real service in the emulator.
@Suite("Prometheus metrics", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary"))
struct MetricsTests {
    let fs = forcestage ?? ""

    @Test("While running, status --prometheus parses and counts; at the end the .prom file holds the final counts, written atomically")
    func metricsFileAndStatus() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, recording) = try writePressTrain(in: dir, leadIn: 500, presses: 6, hold: 40, rest: 80)
        let socket = dir.appendingPathComponent("ev.sock").path
        let metrics = dir.appendingPathComponent("forcestage.prom").path
        let service = try Running([fs, "emulate", "--speed", "2", url.path, "--", fs, "run", "--calibration", url.path, "--socket", socket,
                                   "--metrics-file", metrics, "--metrics-interval", "0.2", "--exit-on-timeout"], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "\(service.stderr)")
        #expect(waitUntil(20) { (try? String(contentsOfFile: metrics, encoding: .utf8))?.contains("forcestage_scans_total") == true })
        let live = try runProcess([fs, "status", "--socket", socket, "--prometheus"], in: dir, timeout: 10)
        #expect(live.status == 0, "\(live.stderr)")
        let s = try parsePrometheus(live.stdout)
        #expect(s["forcestage_health{state=\"streaming\"}"] == 1 && s["forcestage_health{state=\"lost\"}"] == 0, "\(live.stdout)")
        #expect((s["forcestage_scans_total"] ?? 0) > 0)
        #expect(s["forcestage_overflows_total{ring=\"event\"}"] == 0)
        // No budget stated: the press train's worst case at 250 scans/s (16 ms) plus the host's 10 ms.
        #expect(s["forcestage_budget_seconds"] == 0.026)
        #expect(s["forcestage_info{device=\"ads1015 (test-panel, iio:device0)\",profile=\"\(url.path)\",version=\"\(forceStageVersion)\"}"] == 1, "\(live.stdout)")

        #expect(service.wait(timeout: 60) == 0, "\(service.stderr)")
        let final = try parsePrometheus(try String(contentsOfFile: metrics, encoding: .utf8))
        let printed = lines(service.stdout).count
        #expect(final["forcestage_events_total"] == Double(printed), "every event printed is counted")
        #expect(final["forcestage_scans_total"] == Double(recording.scanCount), "every scan of the recording")
        // Exact whatever the machine's load: the emulator never drops a scan (a full FIFO makes it
        // wait) and replays the recording's own timestamps, which have no gap.
        #expect(final["forcestage_dropped_scans_total"] == 0)
        let p50 = try #require(final["forcestage_latency_seconds{quantile=\"0.5\"}"])
        let p99 = try #require(final["forcestage_latency_seconds{quantile=\"0.99\"}"])
        let worst = try #require(final["forcestage_latency_seconds{quantile=\"1\"}"])
        #expect(p50 > 0 && p50 <= p99 && p99 <= worst)
        // One latency per press event (peek, pop, release, hold) printed.
        let measured = try #require(final["forcestage_latency_seconds_count"])
        let pressEvents = lines(service.stdout).filter { kind($0).map { ["peek", "pop", "release", "hold"].contains($0) } ?? false }.count
        #expect(measured == Double(pressEvents) && measured > 0, "\(measured) latencies for \(pressEvents) press events")
        // Whether the budget was met is the machine's speed (measured by the benchmarks, not here); what
        // holds on any machine: the counter counts measured latencies over the budget, so it is at most
        // their number, and it is non-zero exactly when the largest latency is over the budget.
        let violations = try #require(final["forcestage_budget_violations_total"])
        let budget = try #require(final["forcestage_budget_seconds"])
        #expect(violations >= 0 && violations <= measured && violations == violations.rounded(), "\(violations) of \(measured)")
        #expect(violations > 0 ? worst >= budget : worst <= budget, "\(violations) over the budget \(budget) s, the worst \(worst) s")
        // Only the file itself is left: the atomic writer's temporary files are gone.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("prom") }
        #expect(left == ["forcestage.prom"], "\(left)")
    }

    @Test("A metrics path that is not .prom, or in no directory, is refused with one line before streaming")
    func refusals() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 50, presses: 1)
        let txt = try runProcess([fs, "emulate", url.path, "--", fs, "run", "--calibration", url.path, "--metrics-file", dir.appendingPathComponent("m.txt").path], in: dir)
        #expect(txt.status == 1 && txt.stderr.contains("textfile collector reads only *.prom files"), "\(txt.stderr)")
        let nowhere = try runProcess([fs, "emulate", url.path, "--", fs, "run", "--calibration", url.path, "--metrics-file", "/nonexistent/dir/fs.prom"], in: dir)
        #expect(nowhere.status == 1 && nowhere.stderr.contains("--metrics-file /nonexistent/dir/fs.prom: cannot write it"), "\(nowhere.stderr)")
        #expect(lines(nowhere.stderr).filter { $0.hasPrefix("forcestage run:") }.count == 1, "\(nowhere.stderr)")
    }
}
