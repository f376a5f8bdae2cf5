import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools

@Suite("Scoring")
struct ScoringTests {
    static func ev(_ kind: EventKind, _ sample: Int64) -> ForceEvent {
        ForceEvent(kind: kind, sample: sample, timestampNs: 0, forceNewtons: 0)
    }

    @Test("Windows follow the spec at a slow and a fast rate")
    func windows() {
        let slow = MatchWindows(sampleRateHz: 10)
        #expect(slow.early == 2 && slow.late == 3 && slow.releaseLate == 3 && slow.target == 2)
        let fast = MatchWindows(sampleRateHz: 1000)
        #expect(fast.early == 30 && fast.late == 50 && fast.releaseLate == 100 && fast.target == 10)
    }

    @Test("Events match inside [label - early, label + late]; release opens at windowStart")
    func matching() {
        // 100 scans/s: early 3, late 5, release late 10.
        let labels = [Label(event: .peek, sample: 100), Label(event: .pop, sample: 200),
                      Label(event: .release, sample: 300, windowStart: 280)]
        let s = score(events: [Self.ev(.peek, 97), Self.ev(.pop, 206), Self.ev(.release, 278), Self.ev(.hold, 150)],
                      labels: labels, sampleRateHz: 100)
        #expect(s.matches.map(\.label.event) == [.peek, .release])
        #expect(s.misses.map(\.event) == [.pop])
        #expect(s.falseEvents.map(\.sample) == [206], "hold is not scored; the late pop is a false event")
        #expect(abs(s.precision - 2.0 / 3) < 1e-9 && abs(s.recall - 2.0 / 3) < 1e-9)
    }

    @Test("Each label matches at most one event, and each event at most one label")
    func oneToOne() {
        let labels = [Label(event: .peek, sample: 100), Label(event: .peek, sample: 104)]
        let s = score(events: [Self.ev(.peek, 101), Self.ev(.peek, 102), Self.ev(.peek, 103)], labels: labels, sampleRateHz: 100)
        #expect(s.matches.count == 2 && s.falseEvents.count == 1)
        #expect(s.f1 == 0.8)
    }

    @Test("Presses within max(2 scans, 10 ms) are counted, misses count against it")
    func withinTarget() {
        let labels = [Label(event: .peek, sample: 100), Label(event: .pop, sample: 200), Label(event: .peek, sample: 300)]
        let s = score(events: [Self.ev(.peek, 102), Self.ev(.pop, 203)], labels: labels, sampleRateHz: 100)
        #expect(s.pressLabels == 3 && s.pressesWithinTarget == 1)
    }

    @Test("The independent recordings score F1 1.0 with 99 % of presses in target overall",
          .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func sharedRecordingsScore() throws {
        var entries: [EvaluationReport.Entry] = []
        for stem in ["hx711-80hz-sample", "fsr-ads1115-860hz-sample", "panel4-500hz-sample"] {
            let url = sharedRecordings.appendingPathComponent("\(stem).json")
            let rec = try Recording.load(url)
            let setup = try PanelSetup(metadata: rec.metadata, file: url.path)
            let result = replay(rec, setup: setup)
            let s = score(events: result.events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
            #expect(s.f1 == 1.0, "\(stem): F1 \(s.f1), false \(s.falseEvents.map(\.sample)), missed \(s.misses.map(\.sample))")
            entries.append(.init(name: stem, score: s, counters: result.counters))
        }
        let overall = EvaluationReport(entries: entries).overall
        #expect(overall.f1 == 1.0)
        #expect(overall.withinTarget >= 0.99, "within target: \(overall.withinTarget)")
    }

    @Test("evaluate --min-f1 fails the run when F1 is too low", .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func minF1() throws {
        let path = sharedRecordings.appendingPathComponent("hx711-80hz-sample.json").path
        let ok = try forcestage(["evaluate", path, "--min-f1", "0.99", "--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        let overall = report?["overall"] as? [String: Any]
        #expect(overall?["f1"] as? Double == 1.0)
        // A profile with levels far off the panel's gives misses, and the threshold trips.
        let dir = try temporaryDirectory()
        let profile = dir.appendingPathComponent("off.toml")
        try """
        schema = 1
        [levels]
        peek_newtons = 3.0
        pop_newtons = 6.0
        [[channel]]
        id = "voltage0"
        zero_raw = 8203788
        newtons_per_count = 2.500756958304642e-05
        """.write(to: profile, atomically: true, encoding: .utf8)
        let bad = try forcestage(["evaluate", path, "--profile", profile.path, "--min-f1", "0.99"])
        #expect(bad.status == 1, "\(bad.stdout)\(bad.stderr)")
        #expect(bad.stderr.contains("below --min-f1"))
    }
}

@Suite("Own corpus")
struct CorpusScoreTests {
    @Test("The synthesized standard corpus scores F1 ≥ 0.999 with ≥ 99 % of presses in target")
    func corpus() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try Synthesizer.writeCorpus(to: dir)
        #expect(files.count == 12)
        var entries: [EvaluationReport.Entry] = []
        for url in files {
            let rec = try Recording.load(url)
            let setup = try PanelSetup(metadata: rec.metadata, file: url.path)
            let result = replay(rec, setup: setup)
            entries.append(.init(name: url.lastPathComponent,
                                 score: score(events: result.events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz),
                                 counters: result.counters))
        }
        let overall = EvaluationReport(entries: entries).overall
        #expect(overall.labels > 600)
        #expect(overall.f1 >= 0.999, "F1 \(overall.f1): \(overall.falseEvents) false, \(overall.misses) missed")
        #expect(overall.withinTarget >= 0.99, "within target \(overall.withinTarget)")
    }
}
