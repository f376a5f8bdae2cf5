import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

@Suite("meter's screen")
struct MeterScreenTests {
    /// The bar line and the columns (inside the brackets) of the release, peek and pop marks.
    func bar(net: Double, state: PressState) -> (bar: [Character], release: Int, peek: Int, pop: Int) {
        let settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        var screen = MeterScreen(device: "ads1015", source: "test", settings: settings, sampleRateHz: 860)
        screen.scan(net: net, baseline: 0, state: state)
        let lines = screen.lines(width: 80)
        let line = lines.first { $0.hasPrefix("[") }!
        let inside = Array(line.dropFirst().prefix { $0 != "]" })
        // The marker lines put "^peek" and "^pop" under their columns (one space, then the bar's columns).
        func column(_ prefix: String) -> Int {
            let l = lines.first { $0.contains(prefix) }!
            return l.distance(from: l.startIndex, to: l.range(of: prefix)!.lowerBound) - 1
        }
        let full = 5.0 // twice the pop level, the meter's fixed scale
        let release = Int((Double(settings.releaseNewtons) / full * Double(inside.count)).rounded())
        return (inside, release, column("^peek"), column("^pop"))
    }

    @Test("a press past pop fills the bar, and the release, peek and pop marks still show over it")
    func marksOverTheBar() {
        let b = bar(net: 3.2, state: .popped)
        #expect(b.peek > 0 && b.pop > b.peek && b.release < b.peek)
        #expect(b.bar[b.release] == ":", "release mark: \(String(b.bar))")
        #expect(b.bar[b.peek] == "|", "peek mark: \(String(b.bar))")
        #expect(b.bar[b.pop] == "|", "pop mark: \(String(b.bar))")
        // Everything else up to the force is filled.
        let fillEnd = Int((3.2 / 5.0 * Double(b.bar.count)).rounded())
        #expect((0...fillEnd).filter { ![b.release, b.peek, b.pop].contains($0) }.allSatisfy { b.bar[$0] == "#" }, "\(String(b.bar))")
        #expect(b.bar[(fillEnd + 1)...].filter { $0 == "#" }.isEmpty)
    }

    @Test("a slam beyond the scale shows '>' at the end with the marks kept; nothing pressed shows only the marks")
    func slamAndIdle() {
        let slam = bar(net: 40, state: .popped)
        #expect(slam.bar.last == ">")
        #expect(slam.bar[slam.peek] == "|" && slam.bar[slam.pop] == "|" && slam.bar[slam.release] == ":")
        let idle = bar(net: 0, state: .idle)
        #expect(String(idle.bar).filter { $0 != " " } == ":||", "\(String(idle.bar))")
    }
}
