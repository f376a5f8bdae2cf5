import ForceStageCore
import ForceStageFormats

/// The spec's matching windows, in scans, at one sample rate.
public struct MatchWindows: Equatable, Sendable {
    /// max(2 scans, 30 ms).
    public var early: Double
    /// max(3 scans, 50 ms).
    public var late: Double
    /// max(3 scans, 100 ms), for release.
    public var releaseLate: Double
    /// The detection target for peek and pop: max(2 scans, 10 ms).
    public var target: Double

    public init(sampleRateHz rate: Double) {
        early = max(2, 0.030 * rate)
        late = max(3, 0.050 * rate)
        releaseLate = max(3, 0.100 * rate)
        target = max(2, 0.010 * rate)
    }

    /// The first and last scan (inclusive, fractional) at which an event may match `label`.
    public func range(for label: Label) -> (open: Double, close: Double) {
        if label.event == .release {
            return (Double(label.windowStart ?? label.sample) - early, Double(label.sample) + releaseLate)
        }
        return (Double(label.sample) - early, Double(label.sample) + late)
    }
}

/// One matched label and its event.
public struct Match: Equatable, Sendable {
    public var label: Label
    public var event: ForceEvent
    /// `event.sample - label.sample`.
    public var latencyScans: Int64 { event.sample - Int64(label.sample) }
}

/// A recording's score against its labels, by the spec's matching rule.
public struct Score: Sendable {
    public var sampleRateHz: Double
    public var labels: Int
    public var events: Int
    public var matches: [Match]
    /// Events that matched no label.
    public var falseEvents: [ForceEvent]
    /// Labels that no event matched.
    public var misses: [Label]

    public var precision: Double { events == 0 ? (labels == 0 ? 1 : 0) : Double(matches.count) / Double(events) }
    public var recall: Double { labels == 0 ? 1 : Double(matches.count) / Double(labels) }
    public var f1: Double {
        let p = precision, r = recall
        return p + r == 0 ? 0 : 2 * p * r / (p + r)
    }

    /// Peek and pop labels.
    public var pressLabels: Int
    /// Peek and pop labels matched within max(2 scans, 10 ms).
    public var pressesWithinTarget: Int
    /// The fraction of peek and pop labels detected within max(2 scans, 10 ms) (misses count against it).
    public var withinTargetFraction: Double { pressLabels == 0 ? 1 : Double(pressesWithinTarget) / Double(pressLabels) }

    /// Position errors (plate units, sorted) of the matched peeks and pops whose
    /// label carries `x`/`y` (the spec defines label positions for those two):
    /// the distance between the event's position and the label's.
    public var positionErrors: [Double] {
        matches.compactMap { m -> Double? in
            guard m.label.event != .release, let x = m.label.x, let y = m.label.y, let p = m.event.position else { return nil }
            let dx = Double(p.x) - x, dy = Double(p.y) - y
            return (dx * dx + dy * dy).squareRoot()
        }.sorted()
    }

    /// Matched events whose label has a position but which carry none (a
    /// panel without cell positions): counted, never silently left out.
    public var unpositioned: Int {
        matches.filter { $0.label.event != .release && $0.label.x != nil && $0.event.position == nil }.count
    }

    /// Detection latencies in scans of the matched events of `kinds`, sorted.
    public func latencies(_ kinds: Set<EventKind> = [.peek, .pop, .release]) -> [Int64] {
        matches.filter { kinds.contains($0.label.event) }.map(\.latencyScans).sorted()
    }
}

/// Scores `events` against `labels`. Only peek, pop and release events take part
/// (hold and health events are not labelled). Each label matches at most one
/// event: labels are taken in order and each takes the earliest unmatched
/// event of its kind inside its window.
public func score(events all: [ForceEvent], labels unsorted: [Label], sampleRateHz: Double) -> Score {
    let events = all.filter { $0.kind.isTransition }
    let labels = unsorted.sorted { $0.sample < $1.sample }
    let windows = MatchWindows(sampleRateHz: sampleRateHz)
    var used = [Bool](repeating: false, count: events.count)
    var matches: [Match] = []
    var misses: [Label] = []
    for label in labels {
        let (open, close) = windows.range(for: label)
        // Events are in time order: binary-search the first one inside the window.
        var low = 0, high = events.count
        while low < high {
            let mid = (low + high) / 2
            if Double(events[mid].sample) < open { low = mid + 1 } else { high = mid }
        }
        var found: Int?
        var i = low
        while i < events.count && Double(events[i].sample) <= close {
            if !used[i] && events[i].kind == label.event {
                found = i
                break
            }
            i += 1
        }
        if let i = found {
            used[i] = true
            matches.append(Match(label: label, event: events[i]))
        } else {
            misses.append(label)
        }
    }
    let falseEvents = events.indices.filter { !used[$0] }.map { events[$0] }
    let presses = labels.filter { $0.event != .release }.count
    let within = matches.filter { $0.label.event != .release && abs(Double($0.latencyScans)) <= windows.target }.count
    return Score(sampleRateHz: sampleRateHz, labels: labels.count, events: events.count, matches: matches,
                 falseEvents: falseEvents, misses: misses, pressLabels: presses, pressesWithinTarget: within)
}

/// Why an event and the labels disagree, so a user tuning a panel sees why a score is low.
public enum DisagreementKind: String, CaseIterable, Sendable {
    /// An event with no label of its kind anywhere near it.
    case falseEvent = "false"
    /// A label no event answered.
    case missed
    /// An event that answers a missed label, but after its window closed.
    case late
    /// An event that answers a missed label, but before its window opened.
    case early
    /// A second event of a kind whose label was already answered (a re-trigger within one press).
    case double
    /// A release forced by a sensor fault (`stuck`, `lost`) instead of the force falling.
    case forcedRelease = "forced release"
}

/// One disagreement, at the scan where it happened (the event's, or the label's for a miss).
public struct Disagreement: Equatable, Sendable {
    public var kind: DisagreementKind
    /// The event or label kind (peek, pop, release).
    public var event: EventKind
    public var sample: Int64
    /// For early and late: the label's scan.
    public var labelSample: Int64?
}

/// Classifies a score's false events and misses into kinds.
///
/// - A release at the scan of a `stuck` or `lost` report (in `all`) is a forced
///   release, whether or not it happened to match a label.
/// - A miss and an unmatched event of the same kind pair up as early or late
///   when the event lies before the label's window opens or after it closes,
///   within one second and before the next label of that kind.
/// - An unmatched event within one second after a matched event of its kind
///   and before the next label of its kind is a double.
/// - What remains is false or missed.
public func disagreements(of score: Score, allEvents all: [ForceEvent]) -> [Disagreement] {
    let windows = MatchWindows(sampleRateHz: score.sampleRateHz)
    let second = max(3, score.sampleRateHz)
    let faults = Set(all.filter { $0.kind == .stuck || $0.kind == .lost }.map(\.sample))
    var out: [Disagreement] = []
    for m in score.matches where m.event.kind == .release && faults.contains(m.event.sample) {
        out.append(Disagreement(kind: .forcedRelease, event: .release, sample: m.event.sample))
    }
    let unmatched = score.falseEvents
    var taken = [Bool](repeating: false, count: unmatched.count)
    for (i, e) in unmatched.enumerated() where e.kind == .release && faults.contains(e.sample) {
        taken[i] = true
        out.append(Disagreement(kind: .forcedRelease, event: .release, sample: e.sample))
    }
    let labelSamples = Dictionary(grouping: score.matches.map(\.label) + score.misses, by: \.event)
        .mapValues { $0.map { Int64($0.sample) }.sorted() }
    func nextLabel(_ kind: EventKind, after s: Int64) -> Int64 {
        labelSamples[kind]?.first { $0 > s } ?? Int64.max
    }
    func previousLabel(_ kind: EventKind, before s: Int64) -> Int64 {
        labelSamples[kind]?.last { $0 < s } ?? Int64.min
    }
    for miss in score.misses {
        let (open, close) = windows.range(for: miss)
        let label = Int64(miss.sample)
        var pick: Int?
        for (i, e) in unmatched.enumerated() where !taken[i] && e.kind == miss.event {
            let s = e.sample
            if Double(s) < open && Double(label - s) <= second && s > previousLabel(miss.event, before: label) {
                pick = pick ?? i
            } else if Double(s) > close && Double(s - label) <= second && s < nextLabel(miss.event, after: label) {
                pick = pick ?? i
            }
        }
        if let i = pick {
            taken[i] = true
            let s = unmatched[i].sample
            out.append(Disagreement(kind: Double(s) < open ? .early : .late, event: miss.event, sample: s, labelSample: label))
        } else {
            out.append(Disagreement(kind: .missed, event: miss.event, sample: label))
        }
    }
    for (i, e) in unmatched.enumerated() where !taken[i] {
        let previous = score.matches.last { $0.event.kind == e.kind && $0.event.sample <= e.sample }
        if let previous, Double(e.sample - previous.event.sample) <= second,
           e.sample < nextLabel(e.kind, after: Int64(previous.label.sample)) {
            out.append(Disagreement(kind: .double, event: e.kind, sample: e.sample))
        } else {
            out.append(Disagreement(kind: .falseEvent, event: e.kind, sample: e.sample))
        }
    }
    return out.sorted { $0.sample < $1.sample }
}
