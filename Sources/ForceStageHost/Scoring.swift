import ForceStageCore

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

/// The value at quantile `q` (0...1) of sorted values, nearest-rank.
public func percentile(_ sorted: [Double], _ q: Double) -> Double? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((q * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}

/// The value at quantile `q` (0...1) of sorted values, nearest-rank.
public func percentile<T: BinaryInteger>(_ sorted: [T], _ q: Double) -> T? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((q * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
