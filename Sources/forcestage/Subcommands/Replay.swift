import ArgumentParser
import Foundation
import ForceStageCore
import ForceStageHost

extension ForceStage {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Classify a recording and print its events.",
            discussion: """
            With no recording, classifies the bundled demo (hardware/recordings/demo-hx711.json).
            Uses the recording's own calibration unless --profile is given.
            """)

        @Argument(help: "The recording's STEM.json (STEM.iio beside it).")
        var recording: String?

        @Option(help: "A profile (TOML) whose calibration and levels replace the recording's.")
        var profile: String?

        @Option(help: "Output format: jsonl (one JSON object per event) or text.")
        var format: EventFormat = .jsonl

        @Flag(help: "After the events, score them against the recording's labels.")
        var score = false

        @Flag(help: "Print peek, pop and release only (no hold or sensor health events).")
        var transitionsOnly = false

        @Option(help: ArgumentHelp("Print per-scan internals (force, baseline, state) for scans FROM:TO instead of events.", valueName: "FROM:TO"))
        var trace: String?

        func run() throws {
            guard let path = recording ?? bundledDemoRecording()?.path else {
                throw CommandFailure(.usage, "no recording given and the bundled demo (hardware/recordings/demo-hx711.json) was not found; pass a recording's .json")
            }
            let rec = try loadRecording(path)
            let setup = try makeSetup(for: rec, path: path, profile: profile)
            if let trace {
                guard let range = ScanRange(parsing: trace) else { throw CommandFailure(.usage, "--trace takes FROM:TO scan indices, 0 <= FROM <= TO, e.g. 100:200") }
                for line in traceScans(rec, setup: setup, from: range.from, to: range.to) { emit(line) }
                return
            }
            let result = ForceStageHost.replay(rec, setup: setup)
            for e in result.events where !transitionsOnly || e.kind.isTransition {
                switch format {
                case .jsonl: emit(eventJSON(e, sampleRateHz: setup.sampleRateHz).rendered())
                case .text: emit(eventText(e, sampleRateHz: setup.sampleRateHz))
                }
            }
            if result.eventOverflows > 0 {
                FileHandle.standardError.write(Data("forcestage: warning: \(result.eventOverflows) events overflowed the event ring\n".utf8))
            }
            if score {
                guard !rec.metadata.labels.isEmpty else {
                    throw CommandFailure(.badInput, "--score: \(path) has no labels to score against")
                }
                let s = ForceStageHost.score(events: result.events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
                let report = EvaluationReport(entries: [.init(name: URL(fileURLWithPath: path).lastPathComponent, score: s, counters: result.counters)])
                switch format {
                case .jsonl: emit(report.json().rendered())
                case .text: emit(report.text())
                }
            }
        }
    }
}
