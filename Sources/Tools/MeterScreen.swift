import ForceStageCore
import ForceStageFormats
import Foundation

/// The meter's content: pure text, so it can be tested and drawn anywhere.
public struct MeterScreen {
    public let device: String
    public let source: String
    public let settings: ClassifierSettings
    public let sampleRateHz: Double
    public var net = 0.0
    public var baseline = 0.0
    public var state = PressState.idle
    public var scans = 0
    public var noiseSquare = 0.0
    public var events: [ForceEvent] = []
    public var status: String?
    /// A panel with cell positions shows where it is pressed on a small plate map.
    public var hasPositions = false
    public var position: PlatePoint?

    /// A screen for `device`, its levels from `source` (a profile or recording name).
    public init(device: String, source: String, settings: ClassifierSettings, sampleRateHz: Double) {
        self.device = device
        self.source = source
        self.settings = settings
        self.sampleRateHz = sampleRateHz
    }

    private var previousNet: Double?

    /// One scan: the net force (above the baseline), the baseline and the classifier's state.
    public mutating func scan(net: Double, baseline: Double, state: PressState) {
        defer { previousNet = net }
        self.net = net
        self.baseline = baseline
        self.state = state
        scans += 1
        // The noise: from scan-to-scan differences while nothing is pressed (so a
        // relaxing panel or drift does not count), averaged over about a second.
        if state == .idle, let previous = previousNet, abs(net) < Double(settings.peekNewtons) * 0.3 {
            let d = net - previous
            let a = 1 / max(1, sampleRateHz)
            noiseSquare += (d * d / 2 - noiseSquare) * a
        }
    }

    /// An event, kept among the last six shown.
    public mutating func event(_ e: ForceEvent) {
        events.append(e)
        if events.count > 6 { events.removeFirst() }
    }

    /// The screen, each line at most `width` columns.
    public func lines(width: Int) -> [String] {
        let peek = Double(settings.peekNewtons), pop = Double(settings.popNewtons), release = Double(settings.releaseNewtons)
        // A fixed scale (twice the pop level), so that the levels stay put and readable;
        // a harder press fills the bar and shows '>' at its end.
        let full = niceTop(pop * 2)
        let barWidth = width - 12
        func col(_ v: Double) -> Int { max(0, min(barWidth - 1, Int((v / full * Double(barWidth)).rounded()))) }
        var bar = Array(repeating: Character(" "), count: barWidth)
        let filled = net <= 0 ? 0 : col(net) + 1
        for i in 0..<filled { bar[i] = "#" }
        if net > full { bar[barWidth - 1] = ">" }
        // The level marks go over the bar: a press past them must still show where they are.
        for (v, mark) in [(release, Character(":")), (peek, Character("|")), (pop, Character("|"))] {
            bar[col(v)] = mark
        }
        func marker(_ text: String, at c: Int) -> String {
            let start = max(0, min(barWidth - text.count, c))
            return " " + String(repeating: " ", count: start) + text
        }
        let stateText: String
        switch state {
        case .idle: stateText = "idle"
        case .peeking: stateText = "PEEK"
        case .popped: stateText = "POP"
        }
        var out: [String] = []
        out.append(clip("forcestage meter  \(device)  \(JSON.format(sampleRateHz)) scans/s", width))
        out.append(clip("levels from \(source)", width))
        out.append(clip(String(format: "force %7.3f N   state %@", net, stateText), width))
        out.append(clip("[" + String(bar) + "]" + String(format: " %.1f N", full), width))
        out.append(clip(marker("^peek \(String(format: "%.2f", peek)) N  (release below :)", at: col(peek)), width))
        out.append(clip(marker("^pop \(String(format: "%.2f", pop)) N", at: col(pop)), width))
        out.append(clip(String(format: "noise %.4f N rms   baseline %.3f N   release below %.2f N   scans %d", noiseSquare.squareRoot(), baseline, release, scans), width))
        if hasPositions {
            // The plate, 21 x 3 characters, x to the right and y downwards (cell 0 at the top left).
            let cols = 21, rows = 3
            let where_ = position.map { String(format: "pressed at x %.2f y %.2f", Double($0.x), Double($0.y)) } ?? "not pressed"
            out.append(clip("plate +" + String(repeating: "-", count: cols) + "+  " + where_, width))
            for r in 0..<rows {
                var row = Array(repeating: Character(" "), count: cols)
                if let p = position {
                    let c = max(0, min(cols - 1, Int((Double(p.x) * Double(cols - 1)).rounded())))
                    let rr = max(0, min(rows - 1, Int((Double(p.y) * Double(rows - 1)).rounded())))
                    if rr == r { row[c] = "o" }
                }
                out.append(clip("      |" + String(row) + "|", width))
            }
            out.append(clip("      +" + String(repeating: "-", count: cols) + "+", width))
        }
        out.append("last events:")
        for e in events.suffix(6).reversed() {
            let t = Double(e.sample) / sampleRateHz
            out.append(clip(String(format: "  %9.3f s  %@ %6.3f N  latency %d scans", t, e.kind.name.padding(toLength: 9, withPad: " ", startingAt: 0), Double(e.forceNewtons), e.latencyScans), width))
        }
        for _ in events.count..<6 { out.append("") }
        out.append("")
        out.append(clip(status ?? "q or Ctrl-C quits", width))
        return out
    }

    private func clip(_ s: String, _ width: Int) -> String { s.count <= width ? s : String(s.prefix(width)) }

    private func niceTop(_ v: Double) -> Double {
        for step in [0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 500, 1000] where step >= v { return step }
        return (v / 1000).rounded(.up) * 1000
    }
}
