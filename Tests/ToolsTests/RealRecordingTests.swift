import Foundation
import TestSupport
import Testing
@testable import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// The classifier scored on recordings it was not tuned on — the
/// real-sensor logs and the independent generator's recordings in
/// ../shared/recordings — and a negative-gain panel against its positive twin.
@Suite("Real recordings")
struct RealRecordingTests {
    static let names = ["real/3dtouch-thumb", "real/gait-insole", "fsr-475hz-creep-sample", "panel4-500hz-vibration-sample",
                        "hx711-80hz-sample", "fsr-ads1115-860hz-sample", "panel4-500hz-sample", "panel4-500hz-offcentre-sample"]

    @Test("Every shared recording: F1 1.0, no false event, no stuck, no forced release, no detection later than the target")
    func sharedRecordings() throws {
        guard sharedRecordingsPresent else {
            print("skipped: \(sharedSkipReason)")
            return
        }
        for name in Self.names {
            let url = TestSupport.sharedRecordings.appendingPathComponent(name + ".json")
            let recording = try Recording.load(url)
            let setup = try PanelSetup(metadata: recording.metadata, file: url.path)
            let result = replay(recording, setup: setup)
            let s = score(events: result.events, labels: recording.metadata.labels, sampleRateHz: setup.sampleRateHz)
            let entry = EvaluationReport.Entry(name: name, score: s, counters: result.counters, allEvents: result.events)
            #expect(s.f1 == 1, "\(name): F1 \(s.f1); \(entry.disagreements)")
            #expect(s.falseEvents.isEmpty && s.misses.isEmpty, "\(name)")
            #expect(entry.stuck == 0, "\(name): \(entry.stuck) stuck reports")
            #expect(entry.disagreements.isEmpty, "\(name): \(entry.disagreements)")
            #expect(!result.events.contains { $0.kind == .lost })
            // Latency budget: no peek or pop later than max(2 scans, 10 ms) after its label.
            let target = MatchWindows(sampleRateHz: setup.sampleRateHz).target
            let late = s.matches.filter { $0.label.event != .release && Double($0.latencyScans) > target }
            #expect(late.isEmpty, "\(name): late \(late.map { ($0.label.sample, $0.latencyScans) })")
            #expect(s.withinTargetFraction >= 0.9, "\(name): \(s.withinTargetFraction) within target")
        }
    }

    /// `recording` with every force channel's raw words inverted and each linear
    /// calibration turned round to match (``NegativeGain``, what `synth --negative-gain`
    /// writes): a cell wired the other way round. `nil` where there is nothing to turn round.
    static func inverted(_ recording: Recording) throws -> Recording? {
        try? NegativeGain.twin(of: recording, label: recording.metadata.deviceLabel)
    }

    static func checkTwin(_ recording: Recording, name: String) throws {
        guard let twin = try inverted(recording) else { return }
        let a = replay(recording, setup: try PanelSetup(metadata: recording.metadata, file: name))
        let b = replay(twin, setup: try PanelSetup(metadata: twin.metadata, file: name))
        #expect(a.events == b.events, "\(name): the negative-gain twin classifies differently")
        #expect(a.counters == b.counters, "\(name)")
        #expect(a.events.contains { $0.kind == .peek }, "\(name): nothing to compare")
    }

    @Test("A negative-gain panel classifies exactly like its positive twin (shared and synthesized recordings)")
    func negativeGain() throws {
        var checked = 0
        if sharedRecordingsPresent {
            for name in Self.names {
                let recording = try Recording.load(TestSupport.sharedRecordings.appendingPathComponent(name + ".json"))
                if try Self.inverted(recording) != nil { checked += 1 }
                try Self.checkTwin(recording, name: name)
            }
        }
        for panel in [PanelKind.hx711at80, .panel4, .hx711at10] {
            let recording = try Synthesizer.synthesize(SynthOptions(panel: panel, seed: 3, duration: 30)).recording
            try Self.checkTwin(recording, name: panel.rawValue)
            checked += 1
        }
        #expect(checked >= 3)
    }

    @Test("evaluate names each disagreement: a late pop, a double peek, a forced release")
    func disagreementKinds() throws {
        let rate = 100.0
        let labels = [Label(event: .peek, sample: 100), Label(event: .pop, sample: 120),
                      Label(event: .release, sample: 200, windowStart: 190),
                      Label(event: .peek, sample: 400), Label(event: .release, sample: 500, windowStart: 490),
                      Label(event: .peek, sample: 700)]
        func e(_ k: EventKind, _ s: Int64) -> ForceEvent { ForceEvent(kind: k, sample: s, timestampNs: s * 10_000_000, forceNewtons: 0) }
        let events = [e(.peek, 101), e(.pop, 140), e(.release, 201), e(.peek, 401), e(.release, 430), e(.peek, 440),
                      e(.release, 501), e(.stuck, 800), e(.release, 800), e(.peek, 1500)]
        let s = score(events: events, labels: labels, sampleRateHz: rate)
        let kinds = disagreements(of: s, allEvents: events).map { "\($0.kind.rawValue) \($0.event.name)@\($0.sample)" }
        // pop 20 scans after its label (window closes at +5): late. The release at
        // 430 and peek at 440 inside the second press: double. The release at
        // the stuck report: forced. The peek at 1500 is far from any label: false,
        // and the third press's release label is missed... there is none: only the peek at 700 is missed.
        #expect(kinds.contains("late pop@140"), "\(kinds)")
        #expect(kinds.contains("double release@430") || kinds.contains("false release@430"), "\(kinds)")
        #expect(kinds.contains("double peek@440"), "\(kinds)")
        #expect(kinds.contains("forced release release@800"), "\(kinds)")
        #expect(kinds.contains("false peek@1500"), "\(kinds)")
        #expect(kinds.contains("missed peek@700"), "\(kinds)")
        let report = EvaluationReport(entries: [.init(name: "x", score: s, counters: PipelineCounters(), allEvents: events)])
        let text = report.text(verbose: true)
        #expect(text.contains("late 1"), "\(text)")
        #expect(text.contains("forced release 1"), "\(text)")
        #expect(text.contains("late pop at scan 140 (1.400 s), labelled at scan 120 (200.0 ms)"), "\(text)")
    }
}
