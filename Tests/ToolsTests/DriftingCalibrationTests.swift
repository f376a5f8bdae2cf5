import Foundation
import Testing
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools

/// The weighing step on a panel whose unloaded reading moves while a mass
/// rests: a bridge warming up drifts by thousands of counts a second, more
/// over a placement than the band the reading must come back to.
@Suite("Calibration on a drifting panel")
struct DriftingCalibrationTests {
    /// Sessions whose unloaded panel drifts about 2800 counts/s (summed): the
    /// triangle's seed 1 (units 1 and 2) and the four-cell plate's seed 2 with unit 9.
    static let drifting: [(PanelKind, UInt64, UInt64)] = [(.panel3, 1, 1), (.panel3, 1, 2), (.panel4, 2, 9)]

    @Test("Synthesized sessions on a fast-drifting panel: every cell's gain within 1 % of the model's, no problem line",
          arguments: 0..<3)
    func synthesized(index: Int) throws {
        let (panel, seed, unit) = Self.drifting[index]
        let (session, s, notes) = try runSynthesizedSession(panel, seed: seed, unit: unit)
        let problems = notes.filter { if case .problem = $0 { return true }; return false }
        #expect(problems.isEmpty, "\(panel.rawValue) seed \(seed) unit \(unit): \(problems)")
        let result = try #require(s.result, "\(panel.rawValue) seed \(seed) unit \(unit): \(notes)")
        #expect(result.calibration.count == panel.cellCount)
        expectGainsWithinOnePercent(result.calibration, model: session.model.calibration.force, "\(panel.rawValue) seed \(seed) unit \(unit)")
    }

    /// Four-cell sessions (seed 6) whose panel relaxes after each press while
    /// its zero drifts: the reading after a lift-off never came back within the
    /// band around the rest frozen before the press, so no light press ended.
    static let relaxing: [UInt64] = [9, 14, 20]

    @Test("Four-cell sessions whose panel relaxes between presses while it drifts: every light and firm press counted, a result, no problem line",
          arguments: relaxing)
    func relaxingBetweenPresses(unit: UInt64) throws {
        let (session, s, notes) = try runSynthesizedSession(.panel4, seed: 6, unit: unit)
        let problems = Self.problems(notes)
        #expect(problems.isEmpty, "panel4 seed 6 unit \(unit): \(problems)")
        let counted = notes.compactMap { n -> CalibrationStep? in
            if case .pressCounted(let step, _, _, _) = n { return step }
            return nil
        }
        #expect(counted == Array(repeating: .light, count: 5) + Array(repeating: .firm, count: 5), "panel4 seed 6 unit \(unit): \(counted)")
        let outcome = s.result
        let result = try #require(outcome, "panel4 seed 6 unit \(unit): ended in \(s.step)")
        expectGainsWithinOnePercent(result.calibration, model: session.model.calibration.force, "panel4 seed 6 unit \(unit)")
        // The recommended levels separate the session's own light and firm presses.
        let peek = Double(result.settings.peekNewtons), pop = Double(result.settings.popNewtons)
        #expect(result.light.allSatisfy { $0.holdMinimum > peek && $0.holdMaximum < pop }, "peek \(peek) pop \(pop): \(result.light)")
        #expect(result.firm.allSatisfy { $0.holdMinimum > pop }, "pop \(pop): \(result.firm)")
    }

    // MARK: - Hand-made: the four-cell panel of `CellCalibrationTests`, its zero moved by `zero`

    /// Feeds `seconds` of `newtons(t)` set down at `spot`, every channel's zero
    /// moved by `zero(scan)` counts.
    static func feed(_ s: inout CalibrationSession, from start: Int, seconds: Double, at spot: (Double, Double) = (0.5, 0.5),
                     zero: (Int) -> Double, _ newtons: (Double) -> Double) -> (notes: [SessionNote], next: Int) {
        typealias Cells = CellCalibrationTests
        var notes: [SessionNote] = []
        let n = Int(seconds * Cells.rate)
        let w = Cells.shares(spot.0, spot.1)
        for i in 0..<n {
            let t = Double(i) / Cells.rate
            let raw = (0..<4).map { c -> Int64 in
                let noise = Double((start + i) * 7919 * (c + 3) % 13) - 6
                return Int64((Cells.zeros[c] + zero(start + i) + newtons(t) * w[c] / Cells.gains[c] + noise * 20).rounded())
            }
            notes += s.handle(.scan(raw, sample: start + i, timestampNs: Int64(start + i) * 5_000_000))
        }
        return (notes, start + n)
    }

    /// The unloaded step (4 s), then the 500 g mass on each mark and the check spot (6 s each), or fewer `spots`.
    static func session(zero: (Int) -> Double, spots: Int = 5) -> (CalibrationSession, [SessionNote], Int) {
        var s = CalibrationSession(plan: CellCalibrationTests.plan())
        var notes = s.start() + s.handle(.mass(0, grams: 500))
        var r = feed(&s, from: 0, seconds: 4, zero: zero) { _ in 0 }
        notes += r.notes
        let marks = s.plan.cellSpots.map { (Double($0.x), Double($0.y)) } + [(0.5, 0.5)]
        for spot in marks.prefix(spots) {
            r = feed(&s, from: r.next, seconds: 6, at: spot, zero: zero, CellCalibrationTests.mass())
            notes += r.notes
        }
        return (s, notes, r.next)
    }

    static func problems(_ notes: [SessionNote]) -> [String] {
        notes.compactMap { if case .problem(_, let text, _) = $0 { return text }; return nil }
    }

    @Test("A zero drifting 1000 counts/s per cell (a hundred times its noise each second): each cell's gain within 0.2 %, the check passes")
    func linearDrift() throws {
        let (s, notes, _) = Self.session(zero: { Double($0) / CellCalibrationTests.rate * 1000 })
        #expect(Self.problems(notes).isEmpty, "\(Self.problems(notes))")
        #expect(s.step == .light, "\(notes)")
        let line = try #require(notes.compactMap { n -> String? in
            if case .measured(.cell(3), let t) = n, t.hasPrefix("calibration: ") { return t }
            return nil
        }.first, "\(notes)")
        for (c, g) in CellCalibrationTests.gains.enumerated() {
            let part = line.components(separatedBy: "c\(c) zero ").dropFirst().first ?? ""
            let value = Double(part.components(separatedBy: ", ").dropFirst().first?.components(separatedBy: " ").first ?? "") ?? 0
            #expect(abs(value / g - 1) < 0.002, "cell \(c): \(value) vs \(g) (\(line))")
        }
    }

    /// `CalibrationSessionTests.presses(level, count:)` on a panel that settles
    /// `creep` newtons higher after each press (it creeps back only slowly), from `base` N.
    static func creeping(_ level: Double, count: Int, base: Double, creep: Double) -> (Double) -> Double {
        let press = CalibrationSessionTests.presses(level, count: count)
        return { t in
            let k = Int(t / 2.5), u = t - Double(k) * 2.5
            return base + Double(min(count, k + (u >= 1.6 ? 1 : 0))) * creep + press(t)
        }
    }

    @Test("Presses on a plate whose zero drifts 0.009 N/s and that settles 0.045 N higher after each press (the end band is 0.05 N): each press ends, five light and five firm, each hold measured from the rest before it")
    func creepingPresses() throws {
        // 1000 counts/s per cell: about 0.009 N/s summed, known from the weighing before the presses.
        let zero: (Int) -> Double = { Double($0) / CellCalibrationTests.rate * 1000 }
        var (s, weighing, next) = Self.session(zero: zero)
        #expect(s.step == .light && Self.problems(weighing).isEmpty, "\(Self.problems(weighing))")
        let creep = 0.045
        let light = Self.feed(&s, from: next, seconds: 13, zero: zero, Self.creeping(1.5, count: 5, base: 0, creep: creep))
        next = light.next
        let firm = Self.feed(&s, from: next, seconds: 13, zero: zero, Self.creeping(4.0, count: 5, base: 5 * creep, creep: creep))
        let notes = light.notes + firm.notes
        #expect(Self.problems(notes).isEmpty, "\(Self.problems(notes))")
        let counted = notes.compactMap { n -> PressStatistics? in if case .pressCounted(_, _, _, let p) = n { return p }; return nil }
        #expect(counted.count == 10, "\(counted.count) presses counted")
        for (i, p) in counted.enumerated() {
            let level = i < 5 ? 1.5 : 4.0
            #expect(abs(p.holdMedian / level - 1) < 0.04, "press \(i + 1): held \(p.holdMedian) N, pressed \(level) N")
        }
        #expect(s.result != nil, "ended in \(s.step)")
    }

    @Test("A zero that jumps while the first mass rests and stays there: a problem line that says the zero wanders, no placement weighed")
    func wanderingZero() {
        // The first mark's mass is lifted by scan 800 + 3.6 s; the zero of every cell is 60000 counts higher from scan 1400 on.
        let (s, notes, _) = Self.session(zero: { $0 >= 1400 ? 60_000 : 0 }, spots: 1)
        let problems = Self.problems(notes)
        #expect(problems.count == 1 && problems[0].contains("its zero wanders"), "\(notes)")
        #expect(!notes.contains { if case .measured(.cell, _) = $0 { return true }; return false }, "\(notes)")
        #expect(s.step == .cell(0))
    }

    @Test("A zero that drifted fast and stopped once the mass was down: the rest under it is a guess, said, not weighed")
    func bentZero() {
        // 2000 counts/s per cell until the first mass comes (scan 800 + 0.1 s), then still.
        let (s, notes, _) = Self.session(zero: { Double(min($0, 820)) / CellCalibrationTests.rate * 2000 }, spots: 1)
        let problems = Self.problems(notes)
        #expect(problems.count == 1 && problems[0].contains("resting level bent under the load"), "\(notes)")
        #expect(!notes.contains { if case .measured(.cell, _) = $0 { return true }; return false }, "\(notes)")
        #expect(s.step == .cell(0))
    }
}
