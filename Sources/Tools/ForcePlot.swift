// Over 300 lines: one SVG figure (axes, levels, curve, events, labels, positions, legend) laid out in one coordinate system.
import ForceStageCore
import ForceStageFormats

/// Draws a recording's force over time as an SVG: the force the classifier
/// compares with its levels (net of the baseline), the peek and pop levels,
/// the hysteresis band between the release level and the peek level, and
/// optionally the emitted events and the recording's labels.
public struct ForcePlot {
    /// A named mark along the time axis (calibrate marks its steps).
    public struct Mark: Sendable {
        public var scan: Int
        public var text: String
        public init(scan: Int, text: String) {
            self.scan = scan
            self.text = text
        }
    }

    public var title: String
    public var width = 1200.0
    public var height = 460.0
    public var showEvents = true
    public var showLabels = true
    public var marks: [Mark] = []
    /// The time of the first scan drawn, for the axis (a plot of part of a recording keeps its times).
    public var startSeconds = 0.0
    /// The press position at each scan (nil while not pressed), drawn as x and
    /// y traces over the plot's height (0 at the bottom, 1 at the top); nil: none.
    public var positions: [PlatePoint?]?

    public init(title: String) { self.title = title }

    /// The net force (force minus baseline) at every scan, as the classifier computed it.
    public static func netForce(_ recording: Recording, setup: PanelSetup) -> [Double] {
        var pipeline = setup.makePipeline()
        var ring = EventRing()
        var out: [Double] = []
        out.reserveCapacity(recording.scanCount)
        let size = setup.layout.scanSize
        recording.scans.withUnsafeBytes { raw in
            for i in 0..<recording.scanCount {
                let scan = raw.baseAddress! + i * size
                let force = pipeline.force(scan: scan)
                pipeline.process(scan: scan, into: &ring)
                while ring.popFirst() != nil {}
                out.append(Double(force - pipeline.classifier.baseline))
            }
        }
        return out
    }

    /// The centre of pressure at every scan while the classifier is pressed
    /// (nil otherwise), or nil for a panel without cell positions.
    public static func pressPositions(_ recording: Recording, setup: PanelSetup) -> [PlatePoint?]? {
        guard setup.positions != nil else { return nil }
        var pipeline = setup.makePipeline()
        var ring = EventRing()
        var out: [PlatePoint?] = []
        out.reserveCapacity(recording.scanCount)
        let size = setup.layout.scanSize
        recording.scans.withUnsafeBytes { raw in
            for i in 0..<recording.scanCount {
                pipeline.process(scan: raw.baseAddress! + i * size, into: &ring)
                while ring.popFirst() != nil {}
                out.append(pipeline.classifier.state == .idle ? nil : pipeline.centreOfPressure)
            }
        }
        return out
    }

    /// The SVG text (with the press position traces on a panel with cell positions).
    public func svg(_ recording: Recording, setup: PanelSetup) -> String {
        let force = ForcePlot.netForce(recording, setup: setup)
        let events = replay(recording, setup: setup).events
        var plot = self
        if plot.positions == nil { plot.positions = ForcePlot.pressPositions(recording, setup: setup) }
        return plot.svg(force: force, sampleRateHz: setup.sampleRateHz, settings: setup.settings, events: events,
                        labels: recording.metadata.labels)
    }

    /// The SVG text for a force series already computed.
    public func svg(force: [Double], sampleRateHz: Double, settings: ClassifierSettings, events: [ForceEvent], labels: [Label]) -> String {
        let left = 64.0, right = 116.0, top = 44.0, bottom = 70.0
        let plotW = width - left - right, plotH = height - top - bottom
        let count = max(force.count, 2)
        let seconds = Double(count - 1) / sampleRateHz
        let peek = Double(settings.peekNewtons), pop = Double(settings.popNewtons), release = Double(settings.releaseNewtons)
        // The range of all but the most extreme 0.1 % at each end: a single spike
        // does not squash the presses (it is drawn clipped at the edge).
        let sorted = force.sorted()
        func quantile(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, max(0, Int(Double(sorted.count) * q)))] }
        // One slam far above every other press (twice the next one, or the pop level)
        // does not squash them either: the axis stops above the rest and the slam is
        // drawn clipped, with a marker giving its peak.
        let peaks = ForcePlot.pressPeaks(force, above: release).sorted(by: >)
        var ceiling = quantile(0.999)
        if let top = peaks.first {
            let rest = max(pop, peaks.count > 1 ? peaks[1] : 0)
            if top > 2 * rest { ceiling = min(ceiling, rest) }
        }
        let high = max(pop * 1.25, ceiling * 1.08)
        let low = min(0, quantile(0.001)) - 0.05 * high
        func x(_ scan: Double) -> Double { left + scan / Double(count - 1) * plotW }
        func y(_ newtons: Double) -> Double { top + (1 - (min(max(newtons, low), high) - low) / (high - low)) * plotH }
        func f(_ v: Double) -> String { fixed(v, 1) }

        var s = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(f(left))" y="22" font-size="15" font-weight="bold">\(escape(title))</text>

        """
        // Hysteresis band and levels.
        s += "<rect x=\"\(f(left))\" y=\"\(f(y(peek)))\" width=\"\(f(plotW))\" height=\"\(f(y(release) - y(peek)))\" fill=\"#f2b134\" fill-opacity=\"0.18\"/>\n"
        // Level names in the right margin, pushed apart when levels are close.
        var labelY = top + plotH + 20
        for (value, color, name) in [(release, "#27ae60", "release"), (peek, "#d68910", "peek"), (pop, "#c0392b", "pop")] {
            s += "<line x1=\"\(f(left))\" x2=\"\(f(left + plotW))\" y1=\"\(f(y(value)))\" y2=\"\(f(y(value)))\" stroke=\"\(color)\" stroke-dasharray=\"6 4\" stroke-width=\"1.2\"/>\n"
            labelY = min(y(value) + 4, labelY - 14)
            s += "<text x=\"\(f(left + plotW + 6))\" y=\"\(f(labelY))\" fill=\"\(color)\">\(name) \(fixed(value, 2)) N</text>\n"
        }
        // Axes and ticks.
        s += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#333\"/>\n"
        s += "<g id=\"y-axis\">\n"
        let yStep = niceStep((high - low) / 6)
        var v = (low / yStep).rounded(.up) * yStep
        // Counted, not only compared: at extreme magnitudes `v += yStep` may not move `v`.
        var yTicks = 0
        while v <= high && yTicks < ForcePlot.maximumTicks {
            yTicks += 1
            s += "<line x1=\"\(f(left - 4))\" x2=\"\(f(left))\" y1=\"\(f(y(v)))\" y2=\"\(f(y(v)))\" stroke=\"#333\"/>"
            s += "<text x=\"\(f(left - 7))\" y=\"\(f(y(v) + 4))\" text-anchor=\"end\">\(fixed(v, yStep < 0.1 ? 2 : 1))</text>\n"
            if abs(v) < yStep / 2 {
                s += "<line x1=\"\(f(left))\" x2=\"\(f(left + plotW))\" y1=\"\(f(y(0)))\" y2=\"\(f(y(0)))\" stroke=\"#bbb\"/>\n"
            }
            v += yStep
        }
        s += "</g>\n"
        let xStep = niceStep(seconds / 10)
        var t = (startSeconds / xStep).rounded(.up) * xStep
        var xTicks = 0
        while t <= startSeconds + seconds + 1e-9 && xTicks < ForcePlot.maximumTicks {
            xTicks += 1
            let px = x((t - startSeconds) * sampleRateHz)
            s += "<line x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(top + plotH))\" y2=\"\(f(top + plotH + 4))\" stroke=\"#333\"/>"
            s += "<text x=\"\(f(px))\" y=\"\(f(top + plotH + 17))\" text-anchor=\"middle\">\(fixed(t, xStep < 1 ? 1 : 0))</text>\n"
            t += xStep
        }
        // In the right margin beside the last tick, so that the legend may take two rows.
        s += "<text x=\"\(f(left + plotW + 6))\" y=\"\(f(top + plotH + 17))\">time (s)</text>\n"
        s += "<text transform=\"translate(16 \(f(top + plotH / 2))) rotate(-90)\" text-anchor=\"middle\">force above baseline (N)</text>\n"
        // Step marks.
        var markEnd = [-1e9, -1e9]
        for m in marks {
            let px = x(Double(m.scan))
            s += "<line x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(top))\" y2=\"\(f(top + plotH))\" stroke=\"#2c3e50\" stroke-opacity=\"0.35\"/>"
            let row = px > markEnd[0] ? 0 : 1
            markEnd[row] = px + 3 + Double(m.text.count) * 6.2
            s += "<text x=\"\(f(px + 3))\" y=\"\(f(top + 12 + Double(row) * 13))\" fill=\"#2c3e50\" font-size=\"11\">\(escape(m.text))</text>\n"
        }
        // The force: min and max per pixel column, so spikes and short presses stay visible.
        let columns = max(1, Int(plotW))
        var points: [String] = []
        var i = 0
        for c in 0..<columns {
            let end = min(force.count, Int(Double(c + 1) / Double(columns) * Double(force.count)))
            guard end > i else { continue }
            let slice = force[i..<end]
            let lo = slice.min()!, hi = slice.max()!
            let first = slice.first!
            let px = x(Double(i))
            if lo == hi { points.append("\(f(px)),\(f(y(first)))") } else {
                let (a, b) = first <= (lo + hi) / 2 ? (lo, hi) : (hi, lo)
                points.append("\(f(px)),\(f(y(a)))")
                points.append("\(f(px)),\(f(y(b)))")
            }
            i = end
        }
        s += "<polyline fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.3\" points=\"\(points.joined(separator: " "))\"/>\n"
        // Where the force leaves the axis: a triangle at the edge and the extreme it reached.
        let clipped = ForcePlot.excursions(force, outside: low...high)
        if !clipped.isEmpty {
            s += "<g id=\"clipped\">\n"
            var textEnd = -1e9
            for c in clipped {
                let px = x(Double(c.scan)), edge = c.value > high ? top : top + plotH, dir = c.value > high ? 1.0 : -1.0
                s += "<path d=\"M\(f(px - 4)),\(f(edge)) L\(f(px + 4)),\(f(edge)) L\(f(px)),\(f(edge + 7 * dir)) Z\" fill=\"\(ForcePlot.clippedColor)\"/>\n"
                // Named where there is room; the triangle alone where the previous name would be overwritten.
                let text = "\(c.value > high ? "\u{2191}" : "\u{2193}") \(fixed(c.value, abs(c.value) < 100 ? 1 : 0)) N"
                if px > textEnd {
                    s += "<text x=\"\(f(px + 6))\" y=\"\(f(edge + (dir > 0 ? 17 : -10)))\" font-size=\"10\" fill=\"\(ForcePlot.clippedColor)\">\(escape(text))</text>\n"
                    textEnd = px + 6 + Double(text.count) * 6
                }
            }
            s += "</g>\n"
        }
        // Press positions: x and y (0..1) over the plot's height, broken where not pressed.
        var positionsDrawn = false
        if let positions, !positions.isEmpty {
            for (axis, color) in [(0, "#16a085"), (1, "#8e44ad")] {
                var run: [String] = []
                func flush() {
                    if run.count > 1 {
                        s += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.2\" stroke-dasharray=\"4 2\" points=\"\(run.joined(separator: " "))\"/>\n"
                    }
                    run.removeAll()
                }
                let stride = Swift.max(1, positions.count / Int(plotW))
                var k = 0
                while k < positions.count {
                    if let p = positions[k] {
                        let v = Double(axis == 0 ? p.x : p.y)
                        run.append("\(f(x(Double(k)))),\(f(top + (1 - Swift.min(Swift.max(v, 0), 1)) * plotH))")
                    } else {
                        flush()
                    }
                    k += stride
                }
                flush()
            }
            positionsDrawn = true
            s += "<text x=\"\(f(left + plotW + 6))\" y=\"\(f(top + plotH))\" font-size=\"10\" fill=\"#555\">x, y 0</text>\n"
            s += "<text x=\"\(f(left + plotW + 6))\" y=\"\(f(top + 10))\" font-size=\"10\" fill=\"#555\">x, y 1</text>\n"
        }
        // Labels: ground truth as ticks under the axis.
        if showLabels && !labels.isEmpty {
            for l in labels {
                let px = x(Double(l.sample))
                let color = color(l.event)
                s += "<line x1=\"\(f(px))\" x2=\"\(f(px))\" y1=\"\(f(top + plotH + 22))\" y2=\"\(f(top + plotH + 32))\" stroke=\"\(color)\" stroke-width=\"1.5\"/>\n"
            }
            s += "<text x=\"\(f(left - 7))\" y=\"\(f(top + plotH + 31))\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">labels</text>\n"
        }
        // Events: a marker on the curve and the name above it, staggered so that neighbours do not overlap.
        if showEvents {
            // Each name goes to the first free spot near its marker (above it, or under it
            // for release), so that close events do not write over each other.
            var placed: [(x0: Double, x1: Double, y0: Double, y1: Double)] = []
            for e in events where e.kind.isTransition || e.kind == .hold || e.kind.isHealth {
                let px = x(Double(e.sample))
                let py = y(Double(e.forceNewtons))
                let color = color(e.kind)
                s += "<circle cx=\"\(f(px))\" cy=\"\(f(py))\" r=\"3.5\" fill=\"\(color)\" stroke=\"white\" stroke-width=\"0.8\"/>\n"
                let name = e.kind.name
                let half = Double(name.count) * 3.2 + 2
                let below = e.kind == .release
                var ty = below ? py + 16 : py - 10
                for k in 0..<12 {
                    let candidate = below ? py + 16 + Double(k) * 12 : py - 10 - Double(k) * 12
                    let clamped = min(top + plotH - 4, max(top + 12, candidate))
                    let free = !placed.contains { px + half > $0.x0 && px - half < $0.x1 && clamped > $0.y0 && clamped - 10 < $0.y1 }
                    ty = clamped
                    if free { break }
                }
                if ty <= top + 12 || ty >= top + plotH - 4 {
                    // Against an edge: go along the edge instead.
                    for k in 0..<12 {
                        let candidate = below ? top + plotH - 4 - Double(k) * 12 : top + 12 + Double(k) * 12
                        if !placed.contains(where: { px + half > $0.x0 && px - half < $0.x1 && candidate > $0.y0 && candidate - 10 < $0.y1 }) {
                            ty = candidate
                            break
                        }
                    }
                }
                placed.append((px - half, px + half, ty - 10, ty))
                s += "<text x=\"\(f(px))\" y=\"\(f(ty))\" text-anchor=\"middle\" font-size=\"10\" fill=\"\(color)\">\(name)</text>\n"
            }
        }
        // Legend: every kind of mark drawn, by its colour (levels and events of a kind share one).
        var ly = height - 26
        var lx = left
        var legend = [("force", "#1f5fa8"), ("peek", "#d68910"), ("pop", "#c0392b"), ("release", "#27ae60"), ("hysteresis band", "#f2b134")]
        let drawnEvents = showEvents ? events.filter { $0.kind.isTransition || $0.kind == .hold || $0.kind.isHealth } : []
        if drawnEvents.contains(where: { $0.kind == .hold }) { legend.append(("hold", color(.hold))) }
        if drawnEvents.contains(where: { $0.kind.isHealth }) { legend.append(("health event", color(.stuck))) }
        if positionsDrawn { legend += [("press x", "#16a085"), ("press y", "#8e44ad")] }
        if showLabels && !labels.isEmpty { legend.append(("label", "#555555")) }
        if !marks.isEmpty { legend.append(("step", "#2c3e50")) }
        if !clipped.isEmpty { legend.append(("clipped", ForcePlot.clippedColor)) }
        s += "<g id=\"legend\">\n"
        for (name, color) in legend {
            let w = Double(name.count) * 6.5 + 30
            if lx > left && lx + w > width - 8 { lx = left; ly += 15 }  // a second row when the first is full
            s += "<rect x=\"\(f(lx))\" y=\"\(f(ly - 9))\" width=\"12\" height=\"10\" fill=\"\(color)\" fill-opacity=\"\(name == "hysteresis band" ? "0.4" : "1")\"/>"
            s += "<text x=\"\(f(lx + 16))\" y=\"\(f(ly))\">\(name)</text>\n"
            lx += w
        }
        s += "</g>\n"
        s += "</svg>\n"
        return s
    }

    private func color(_ kind: EventKind) -> String {
        switch kind {
        case .peek: return "#d68910"
        case .pop: return "#c0392b"
        case .release: return "#27ae60"
        case .hold: return "#8e44ad"
        default: return "#555555"
        }
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

extension ForcePlot {
    /// The most ticks drawn on one axis (a nice step gives at most about a dozen).
    static let maximumTicks = 64
    /// The colour of the markers where the force leaves the axis.
    static let clippedColor = "#7b241c"

    /// The highest force of each press: each run of scans above `level`.
    static func pressPeaks(_ force: [Double], above level: Double) -> [Double] {
        var peaks: [Double] = [], current: Double?
        for v in force {
            if v > level { current = max(current ?? v, v) } else if let c = current { peaks.append(c); current = nil }
        }
        if let current { peaks.append(current) }
        return peaks
    }

    /// Each run of scans outside `range`: the scan and value of its extreme.
    static func excursions(_ force: [Double], outside range: ClosedRange<Double>) -> [(scan: Int, value: Double)] {
        var out: [(scan: Int, value: Double)] = [], current: (scan: Int, value: Double)?
        for (i, v) in force.enumerated() {
            let beyond = v > range.upperBound || v < range.lowerBound
            if beyond, let c = current, (v > range.upperBound) == (c.value > range.upperBound) {
                if abs(v) > abs(c.value) { current = (i, v) }
            } else {
                if let c = current { out.append(c) }
                current = beyond ? (i, v) : nil
            }
        }
        if let current { out.append(current) }
        return out
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
func niceStep(_ raw: Double) -> Double {
    guard raw > 0, raw.isFinite else { return 1 }
    var p = 1.0
    while p * 10 <= raw { p *= 10 }
    while p > raw { p /= 10 }
    for m in [1.0, 2, 5, 10] where p * m >= raw { return p * m }
    return p * 10
}
