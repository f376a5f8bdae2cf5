import ArgumentParser
import Foundation
import ForceStageCore
import ForceStageFormats
import ForceStageTools

extension ForceStage {
    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Score the classifier against labelled recordings.",
            discussion: """
            Matches events to labels by the forcestage-recording/1 rule and prints precision,
            recall, F1, false events, misses and detection latency per recording and overall, and
            why: each disagreement by kind (false, missed, late, early, double, forced release) and
            the number of `stuck` reports. --verbose lists every disagreement with its scan and time.
            Exit status 1 when F1 or the within-target fraction falls below --min-f1 / --min-within.
            """)

        @Argument(help: "Labelled recordings (STEM.json).")
        var recordings: [String]

        /// --profile or --calibration instead of the recording's own calibration.
        @OptionGroup var calibration: CalibrationOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        @Flag(help: "List every disagreement (false, missed, late, early, double, forced release) with its scan and time.")
        var verbose = false

        @Flag(help: "Also run the comparison classifiers (plain threshold, libinput-style hysteresis, QMK-style deferred debounce) on the same recordings and print all four side by side.")
        var compare = false

        @Option(help: "Fail (exit 1) when overall F1 is below this.", transform: DecimalNumber.argument)
        var minF1: Double?

        @Option(help: "Fail (exit 1) when the fraction of peeks and pops within max(2 scans, 10 ms) is below this.", transform: DecimalNumber.argument)
        var minWithin: Double?

        func validate() throws {
            guard !recordings.isEmpty else { throw ValidationError("give at least one labelled recording (STEM.json)") }
            if let minF1, !(0...1).contains(minF1) { throw ValidationError("--min-f1 must be between 0 and 1") }
            if let minWithin, !(0...1).contains(minWithin) { throw ValidationError("--min-within must be between 0 and 1") }
        }

        func run() throws {
            var entries: [EvaluationReport.Entry] = []
            var compared: [ComparisonClassifier: [EvaluationReport.Entry]] = [:]
            // The report goes out after the last file; the progress line is cleared before it.
            var progress = StderrProgress("evaluate")
            defer { progress.finish() }
            for (n, path) in recordings.enumerated() {
                progress.update(Double(n) / Double(recordings.count), "\(n + 1) of \(recordings.count): \(URL(fileURLWithPath: path).lastPathComponent)")
                let rec = try loadRecording(path)
                guard !rec.metadata.labels.isEmpty else {
                    throw CommandFailure(.badInput, "\(path): no labels; evaluate needs ground truth (labels[] in the .json)")
                }
                let setup = try makeSetup(for: rec, path: path, calibration: calibration)
                let result = ForceStageTools.replay(rec, setup: setup)
                let s = score(events: result.events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
                let name = URL(fileURLWithPath: path).lastPathComponent
                entries.append(.init(name: name, score: s, counters: result.counters, allEvents: result.events))
                if compare {
                    let forces = calibratedForces(rec, setup: setup)
                    for c in ComparisonClassifier.allCases {
                        let events = c.events(forces: forces, parameters: setup.parameters)
                        let cs = score(events: events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
                        compared[c, default: []].append(.init(name: name, score: cs, counters: result.counters))
                    }
                }
            }
            progress.finish()
            let report = EvaluationReport(entries: entries)
            var rows: [(String, EvaluationReport.Overall)] = [("forcestage", report.overall)]
            for c in ComparisonClassifier.allCases { if let e = compared[c] { rows.append((c.rawValue, EvaluationReport(entries: e).overall)) } }
            if json {
                var out = report.json()
                if compare, case .object(var fields) = out {
                    fields.append(("comparison", .array(rows.map { name, o in
                        .object([("classifier", .string(name)), ("f1", .double(o.f1)), ("precision", .double(o.precision)),
                                 ("recall", .double(o.recall)), ("falseEvents", .int(Int64(o.falseEvents))),
                                 ("misses", .int(Int64(o.misses))), ("withinTargetFraction", .double(o.withinTarget))])
                    })))
                    out = .object(fields)
                }
                emit(out.rendered(indent: 2))
            } else {
                emit(report.text(verbose: verbose))
                if compare {
                    emit("")
                    emit("classifier                       F1  precision  recall   false  missed  peeks+pops in target")
                    for (name, o) in rows {
                        let label = name.padding(toLength: 30, withPad: " ", startingAt: 0)
                        let rates = String(format: " %.3f      %.3f   %.3f", o.f1, o.precision, o.recall)
                        let counts = String(format: " %7d %7d   %.1f %%", o.falseEvents, o.misses, o.withinTarget * 100)
                        emit(label + rates + counts)
                    }
                }
            }
            let overall = report.overall
            if let minF1, overall.f1 < minF1 {
                throw CommandFailure(.deviceFault, "F1 \(fixedText(overall.f1)) is below --min-f1 \(minF1)")
            }
            if let minWithin, overall.withinTarget < minWithin {
                throw CommandFailure(.deviceFault, "\(fixedText(overall.withinTarget)) of presses within target is below --min-within \(minWithin)")
            }
        }
    }
}

func fixedText(_ v: Double) -> String { String(format: "%.4f", v) }
