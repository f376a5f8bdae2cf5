import Foundation
import ForceStageCore
import ForceStageFormats

/// Scores of several recordings, per recording and overall, as text or JSON.
public struct EvaluationReport: Sendable {
    public struct Entry: Sendable {
        public var name: String
        public var score: Score
        public var counters: PipelineCounters
        /// The false events and misses by kind (see ``disagreements(of:allEvents:)``).
        public var disagreements: [Disagreement]
        /// `stuck` reports in the event stream.
        public var stuck: Int

        /// - Parameter allEvents: the whole event stream, health events included,
        ///   to tell forced releases and count `stuck`; without it a forced
        ///   release counts as false or missed.
        public init(name: String, score: Score, counters: PipelineCounters, allEvents: [ForceEvent] = []) {
            self.name = name
            self.score = score
            self.counters = counters
            self.disagreements = ForceStageTools.disagreements(of: score, allEvents: allEvents)
            self.stuck = allEvents.filter { $0.kind == .stuck }.count
        }

        /// Disagreements of each kind, in ``DisagreementKind/allCases`` order.
        public var kindCounts: [(DisagreementKind, Int)] {
            DisagreementKind.allCases.map { k in (k, disagreements.filter { $0.kind == k }.count) }
        }
    }

    /// Totals over all entries.
    public struct Overall: Sendable {
        public var labels = 0, events = 0, matched = 0, falseEvents = 0, misses = 0
        public var pressLabels = 0, pressesWithinTarget = 0
        public var latencyScans: [Int64] = []
        public var latencyMs: [Double] = []
        public var kinds: [DisagreementKind: Int] = [:]
        public var stuck = 0
        public var positionErrors: [Double] = []
        public var unpositioned = 0

        public var precision: Double { events == 0 ? (labels == 0 ? 1 : 0) : Double(matched) / Double(events) }
        public var recall: Double { labels == 0 ? 1 : Double(matched) / Double(labels) }
        public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
        public var withinTarget: Double { pressLabels == 0 ? 1 : Double(pressesWithinTarget) / Double(pressLabels) }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public var overall: Overall {
        var o = Overall()
        for e in entries {
            let s = e.score
            o.labels += s.labels
            o.events += s.events
            o.matched += s.matches.count
            o.falseEvents += s.falseEvents.count
            o.misses += s.misses.count
            o.pressLabels += s.pressLabels
            o.pressesWithinTarget += s.pressesWithinTarget
            for d in e.disagreements { o.kinds[d.kind, default: 0] += 1 }
            o.stuck += e.stuck
            let l = s.latencies([.peek, .pop])
            o.latencyScans += l
            o.latencyMs += l.map { Double($0) * 1000 / s.sampleRateHz }
            o.positionErrors += s.positionErrors
            o.unpositioned += s.unpositioned
        }
        o.positionErrors.sort()
        o.latencyScans.sort()
        o.latencyMs.sort()
        return o
    }

    private static let quantiles: [(String, Double)] = [("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0)]

    /// The position error line, when any matched label carries a position.
    private static func positionLine(_ errors: [Double], unpositioned: Int) -> String? {
        guard !errors.isEmpty || unpositioned > 0 else { return nil }
        let q = quantiles.map { (n, q) in "\(n) \(percentile(errors, q).map { fixed($0, 4) } ?? "-")" }.joined(separator: " ")
        var line = "    position error (\(errors.count) matched peeks and pops with labelled x/y, plate units): \(q)"
        if unpositioned > 0 { line += "; \(unpositioned) matched events carry no position" }
        return line
    }

    private static func positionJSON(_ errors: [Double], unpositioned: Int) -> [(String, JSON)] {
        guard !errors.isEmpty || unpositioned > 0 else { return [] }
        return [("positionError", .object([("matched", .int(Int64(errors.count))), ("unpositioned", .int(Int64(unpositioned)))] +
            quantiles.map { ($0.0, percentile(errors, $0.1).map { .double(($0 * 10_000).rounded() / 10_000) } ?? .null) }))]
    }

    /// A table for people.
    public func text(verbose: Bool = false) -> String {
        var lines: [String] = []
        func row(_ name: String, _ labels: Int, _ events: Int, _ p: Double, _ r: Double, _ f: Double, _ fe: Int, _ mi: Int,
                 _ within: Double, _ scans: [Int64]?, _ ms: [Double]) -> String {
            // Scans and milliseconds side by side only at one rate; across rates a scan has no one length.
            let lat = EvaluationReport.quantiles.map { (n, q) in
                let msText = percentile(ms, q).map { fixed($0, 1) } ?? "-"
                guard let scans else { return "\(n) \(msText)" }
                return "\(n) \(percentile(scans, q).map(String.init) ?? "-")/\(msText)"
            }.joined(separator: " ")
            return name.padding(toLength: 34, withPad: " ", startingAt: 0) +
                " labels \(labels) events \(events)  P \(fixed(p, 3)) R \(fixed(r, 3)) F1 \(fixed(f, 3))" +
                "  false \(fe) missed \(mi)  in-target \(fixed(within * 100, 1))%  latency \(scans == nil ? "ms (recordings at several rates)" : "scans/ms") \(lat)"
        }
        func kinds(_ counts: [(DisagreementKind, Int)], stuck: Int) -> String {
            "    disagreements: " + counts.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ") + "; stuck reports \(stuck)"
        }
        let seconds = { (sample: Int64, rate: Double) in fixed(Double(sample) / rate, 3) + " s" }
        for e in entries {
            let s = e.score
            let scans = s.latencies([.peek, .pop])
            lines.append(row(e.name, s.labels, s.events, s.precision, s.recall, s.f1, s.falseEvents.count, s.misses.count,
                             s.withinTargetFraction, scans, scans.map { Double($0) * 1000 / s.sampleRateHz }))
            if let line = EvaluationReport.positionLine(s.positionErrors, unpositioned: s.unpositioned) { lines.append(line) }
            if e.counters.droppedScans > 0 {
                lines.append("    \(e.counters.droppedScans) dropped scans in \(e.counters.timestampGaps) gaps")
            }
            lines.append(kinds(e.kindCounts, stuck: e.stuck))
            if verbose {
                for d in e.disagreements {
                    var line = "      \(d.kind.rawValue) \(d.event.name) at scan \(d.sample) (\(seconds(d.sample, s.sampleRateHz)))"
                    if let label = d.labelSample {
                        line += ", labelled at scan \(label) (\(fixed(Double(d.sample - label) * 1000 / s.sampleRateHz, 1)) ms)"
                    }
                    lines.append(line)
                }
            }
        }
        let o = overall
        if entries.count > 1 {
            let oneRate = Set(entries.map(\.score.sampleRateHz)).count == 1
            lines.append(row("overall", o.labels, o.events, o.precision, o.recall, o.f1, o.falseEvents, o.misses,
                             o.withinTarget, oneRate ? o.latencyScans : nil, o.latencyMs))
            lines.append(kinds(DisagreementKind.allCases.map { ($0, o.kinds[$0] ?? 0) }, stuck: o.stuck))
            if let line = EvaluationReport.positionLine(o.positionErrors, unpositioned: o.unpositioned) { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as JSON for machines.
    public func json() -> JSON {
        func scoreJSON(labels: Int, events: Int, matched: Int, p: Double, r: Double, f: Double, fe: Int, mi: Int,
                       pressLabels: Int, within: Int, fraction: Double, scans: [Int64], ms: [Double]) -> [(String, JSON)] {
            [
                ("labels", .int(Int64(labels))), ("events", .int(Int64(events))), ("matched", .int(Int64(matched))),
                ("precision", .double(p)), ("recall", .double(r)), ("f1", .double(f)),
                ("falseEvents", .int(Int64(fe))), ("misses", .int(Int64(mi))),
                ("presses", .int(Int64(pressLabels))), ("pressesWithinTarget", .int(Int64(within))),
                ("withinTargetFraction", .double(fraction)),
                ("latencyScans", .object(EvaluationReport.quantiles.map { ($0.0, percentile(scans, $0.1).map { .int($0) } ?? .null) })),
                ("latencyMs", .object(EvaluationReport.quantiles.map { ($0.0, percentile(ms, $0.1).map { .double(($0 * 1000).rounded() / 1000) } ?? .null) })),
            ]
        }
        let perRecording: [JSON] = entries.map { e in
            let s = e.score
            let scans = s.latencies([.peek, .pop])
            return .object([("recording", .string(e.name))] + scoreJSON(
                labels: s.labels, events: s.events, matched: s.matches.count, p: s.precision, r: s.recall, f: s.f1,
                fe: s.falseEvents.count, mi: s.misses.count, pressLabels: s.pressLabels, within: s.pressesWithinTarget,
                fraction: s.withinTargetFraction, scans: scans, ms: scans.map { Double($0) * 1000 / s.sampleRateHz }) + [
                ("droppedScans", .int(e.counters.droppedScans)),
            ] + EvaluationReport.positionJSON(s.positionErrors, unpositioned: s.unpositioned) + [
                ("falseEventList", .array(s.falseEvents.map { .object([("event", .string($0.kind.name)), ("sample", .int($0.sample))]) })),
                ("missList", .array(s.misses.map { .object([("event", .string($0.event.name)), ("sample", .int(Int64($0.sample)))]) })),
                ("disagreements", .object(e.kindCounts.map { ($0.0.rawValue, .int(Int64($0.1))) })),
                ("stuckReports", .int(Int64(e.stuck))),
                ("disagreementList", .array(e.disagreements.map { d in
                    .object([("kind", .string(d.kind.rawValue)), ("event", .string(d.event.name)), ("sample", .int(d.sample)),
                             ("seconds", .double(Double(d.sample) / s.sampleRateHz))]
                            + (d.labelSample.map { [("labelSample", JSON.int($0))] } ?? []))
                })),
            ])
        }
        let o = overall
        return .object([
            ("recordings", .array(perRecording)),
            ("overall", .object(scoreJSON(labels: o.labels, events: o.events, matched: o.matched, p: o.precision, r: o.recall,
                                          f: o.f1, fe: o.falseEvents, mi: o.misses, pressLabels: o.pressLabels,
                                          within: o.pressesWithinTarget, fraction: o.withinTarget,
                                          scans: o.latencyScans, ms: o.latencyMs)
                                + [("disagreements", .object(DisagreementKind.allCases.map { ($0.rawValue, .int(Int64(o.kinds[$0] ?? 0))) })),
                                   ("stuckReports", .int(Int64(o.stuck)))]
                                + EvaluationReport.positionJSON(o.positionErrors, unpositioned: o.unpositioned))),
        ])
    }
}
