import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

@Suite("plot: a readable y-axis and a legend for every mark")
struct ForcePlotTests {
    /// 20 s at 80 scans/s: five presses to 3 N (pop 2.5) and, when asked, one slam to 40 N half a second long.
    func force(slam: Bool) -> [Double] {
        var f = [Double](repeating: 0.01, count: 1600)
        for p in 0..<5 { for i in 0..<40 { f[100 + p * 250 + i] = 3.0 } }
        if slam { for i in 0..<40 { f[1400 + i] = i == 20 ? 40 : 30 } }
        return f
    }

    func group(_ id: String, _ svg: String) -> String {
        guard let start = svg.range(of: "<g id=\"\(id)\">"), let end = svg.range(of: "</g>", range: start.upperBound..<svg.endIndex) else { return "" }
        return String(svg[start.upperBound..<end.lowerBound])
    }

    func texts(_ fragment: String) -> [String] {
        fragment.matches(of: /<text[^>]*>([^<]*)<\/text>/).map { String($0.1) }
    }

    @Test("one slam at 40 N among 3 N presses: the axis stays under 5 N and the slam is marked clipped with its peak")
    func slamClipped() {
        let settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        let svg = ForcePlot(title: "slam").svg(force: force(slam: true), sampleRateHz: 80, settings: settings, events: [], labels: [])
        let ticks = texts(group("y-axis", svg)).compactMap(Double.init)
        #expect(!ticks.isEmpty && ticks.max()! < 5, "y ticks \(ticks)")
        let clipped = texts(group("clipped", svg))
        #expect(clipped == ["\u{2191} 40.0 N"], "\(clipped)")
        #expect(texts(group("legend", svg)).contains("clipped"))
        // Without the slam nothing is clipped and the axis is the same.
        let calm = ForcePlot(title: "calm").svg(force: force(slam: false), sampleRateHz: 80, settings: settings, events: [], labels: [])
        #expect(group("clipped", calm).isEmpty && !texts(group("legend", calm)).contains("clipped"))
        #expect(texts(group("y-axis", calm)).compactMap(Double.init) == ticks)
    }

    @Test("two hard presses of the same size are both drawn whole: no clipping when the biggest is not alone")
    func twoHardPresses() {
        var f = force(slam: false)
        for i in 0..<40 { f[1400 + i] = 30; f[1500 + i] = 28 }
        let svg = ForcePlot(title: "two").svg(force: f, sampleRateHz: 80, settings: ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), events: [], labels: [])
        #expect(group("clipped", svg).isEmpty)
        #expect((texts(group("y-axis", svg)).compactMap(Double.init).max() ?? 0) >= 30)
    }

    @Test("the legend names every mark drawn: levels, hold and health events, labels, calibrate's steps, press position")
    func legendNamesEveryMark() {
        var plot = ForcePlot(title: "all")
        plot.marks = [ForcePlot.Mark(scan: 10, text: "unloaded")]
        plot.positions = (0..<1600).map { $0 > 100 && $0 < 140 ? PlatePoint(x: 0.5, y: 0.5) : nil }
        let events = [ForceEvent(kind: .peek, sample: 101, timestampNs: 0, forceNewtons: 1.2),
                      ForceEvent(kind: .pop, sample: 103, timestampNs: 0, forceNewtons: 2.6),
                      ForceEvent(kind: .hold, sample: 130, timestampNs: 0, forceNewtons: 3),
                      ForceEvent(kind: .release, sample: 141, timestampNs: 0, forceNewtons: 0.2),
                      ForceEvent(kind: .stuck, sample: 900, timestampNs: 0, forceNewtons: 0.01)]
        let labels = [Label(event: .peek, sample: 101), Label(event: .pop, sample: 103), Label(event: .release, sample: 141)]
        let svg = plot.svg(force: force(slam: true), sampleRateHz: 80, settings: ClassifierSettings(peekNewtons: 1, popNewtons: 2.5),
                           events: events, labels: labels)
        let legend = texts(group("legend", svg))
        for name in ["force", "peek", "pop", "release", "hysteresis band", "hold", "health event", "press x", "press y", "label", "step", "clipped"] {
            #expect(legend.contains(name), "legend \(legend) lacks \(name)")
        }
        // Two rows at most, inside the picture.
        let rows = Set(group("legend", svg).matches(of: /<text x="[0-9.]+" y="([0-9.]+)"/).map { String($0.1) })
        #expect(rows.count <= 2 && rows.compactMap(Double.init).allSatisfy { $0 < plot.height }, "\(rows)")
        let xs = group("legend", svg).matches(of: /<text x="([0-9.]+)"/).compactMap { Double($0.1) }
        #expect(xs.allSatisfy { $0 < plot.width - 20 }, "\(xs)")
    }
}
