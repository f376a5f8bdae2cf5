import ArgumentParser
import Foundation
import ForceStageCore
import ForceStageGestures
import ForceStageFormats
import ForceStageFormatsURL
import ForceStageTools

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

        /// --profile or --calibration instead of the recording's own calibration.
        @OptionGroup var calibration: CalibrationOptions

        @Option(help: "Output format: jsonl (one JSON object per event) or text.")
        var format: EventFormat = .jsonl

        @Flag(help: "After the events, score them against the recording's labels.")
        var score = false

        @Flag(help: "Print peek, pop and release only (no hold or sensor health events).")
        var transitionsOnly = false

        @Flag(help: "Run the gesture layer: events name their region (the profile's [[region]] tables), with quick actions, move and spring events.")
        var gestures = false

        @Option(name: .customLong("progress-hz"), help: ArgumentHelp("With the gesture layer, also a progress stream (force between release and pop as 0..1) at most HZ per second.", valueName: "HZ"), transform: DecimalNumber.argument)
        var progressHz: Double?

        @Option(help: ArgumentHelp("Print per-scan internals (force, baseline, state) for scans FROM:TO instead of events.", valueName: "FROM:TO"))
        var trace: String?

        func run() throws {
            guard let path = recording ?? bundledDemoRecording()?.path else {
                throw CommandFailure(.usage, "no recording given and the bundled demo (hardware/recordings/demo-hx711.json) was not found; pass a recording's .json")
            }
            let rec = try loadRecording(path)
            if let profile = calibration.profile { try refuseForeignProfile(profile, for: rec.metadata, path: path) }
            let setup = try makeSetup(for: rec, path: path, calibration: calibration)
            if let trace {
                guard let range = ScanRange(parsing: trace) else { throw CommandFailure(.usage, "--trace takes FROM:TO scan indices, 0 <= FROM <= TO, e.g. 100:200") }
                // Progress only when the trace goes to a file or a pipe and standard error is a terminal.
                var progress = StderrProgress("replay --trace", alsoWhen: isatty(1) == 0)
                defer { progress.finish() }
                let end = Double(min(rec.scanCount, range.to == Int.max ? rec.scanCount : range.to + 1))
                traceScans(rec, setup: setup, from: range.from, to: range.to) { i, line in
                    if i & 1023 == 0 { progress.update(Double(i) / max(1, end), "scan \(i)") }
                    emit(line)
                }
                return
            }
            for bad in negativeCells(rec, setup: setup, channels: rec.metadata.forceChannels.map(\.id)) {
                FileHandle.standardError.write(Data("forcestage: warning: \(terminalSafe(bad.message(file: path)))\n".utf8))
            }
            if gestures || progressHz != nil {
                if let progressHz, !(progressHz > 0 && progressHz <= 1000) {
                    throw CommandFailure(.usage, "--progress-hz must be above 0 and at most 1000, got \(progressHz)")
                }
                guard setup.positions != nil else {
                    throw CommandFailure(.badInput, "--gestures: \(path) has no press positions (a single-cell panel, or cells without positions); give the profile's [[channel]] tables position = [x, y]")
                }
                var regions: [Region] = []
                if let profile = calibration.profile {
                    do { regions = try Profile.load(URL(fileURLWithPath: profile)).regions } catch { throw badInput(error) }
                }
                for g in replayGestures(rec, setup: setup, regions: regions, progressHz: progressHz) {
                    emit(gestureJSON(g, sampleRateHz: setup.sampleRateHz).rendered())
                }
                return
            }
            let result = ForceStageTools.replay(rec, setup: setup)
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
                let s = ForceStageTools.score(events: result.events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
                let report = EvaluationReport(entries: [.init(name: URL(fileURLWithPath: path).lastPathComponent, score: s, counters: result.counters)])
                switch format {
                case .jsonl: emit(report.json().rendered())
                case .text: emit(report.text())
                }
            }
        }
    }
}
