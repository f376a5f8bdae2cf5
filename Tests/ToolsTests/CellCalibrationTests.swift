import Foundation
import Testing
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools

/// The per-cell session as a value driven by inputs: no terminal, no device.
@Suite("Per-cell calibration")
struct CellCalibrationTests {
    /// Each cell's own gain (newtons per count) and zero in the hand-made panel.
    static let gains = [2.0e-6, 2.4e-6, 1.8e-6, 2.2e-6]
    static let zeros: [Double] = [100_000, -50_000, 20_000, 300_000]
    static let rate = 200.0

    /// A plate on four corner cells shares a point load bilinearly.
    static func shares(_ x: Double, _ y: Double) -> [Double] {
        [(1 - x) * (1 - y), x * (1 - y), (1 - x) * y, x * y]
    }

    /// Feeds `seconds` of `newtons(t)` set down at (x, y) through ``SessionInput/scan``, with deterministic noise.
    static func feed(_ s: inout CalibrationSession, from start: Int, seconds: Double, at spot: (Double, Double) = (0.5, 0.5),
                     _ newtons: (Double) -> Double) -> (notes: [SessionNote], next: Int) {
        var notes: [SessionNote] = []
        let n = Int(seconds * rate)
        let w = shares(spot.0, spot.1)
        for i in 0..<n {
            let t = Double(i) / rate
            let raw = (0..<4).map { c -> Int64 in
                let noise = Double((start + i) * 7919 * (c + 3) % 13) - 6
                return Int64((zeros[c] + newtons(t) * w[c] / gains[c] + noise * 20).rounded())
            }
            notes += s.handle(.scan(raw, sample: start + i, timestampNs: Int64(start + i) * 5_000_000))
        }
        return (notes, start + n)
    }

    /// A 500 g mass set down over 0.3 s, left 3 s, lifted off, then 2 s of nothing.
    static func mass(_ grams: Double = 500) -> (Double) -> Double {
        let f = grams / 1000 * standardGravity
        return { t in t < 0.3 ? f * t / 0.3 : (t < 3.3 ? f : (t < 3.6 ? f * (3.6 - t) / 0.3 : 0)) }
    }

    static func plan() -> CalibrationPlan {
        CalibrationPlan(channels: ["c0", "c1", "c2", "c3"], channelMaximumRaw: Array(repeating: 8_388_607, count: 4), sampleRateHz: rate)
    }

    /// Through the unloaded step and the four cells' marks.
    static func weighed(_ s: inout CalibrationSession) -> (notes: [SessionNote], next: Int) {
        var notes = s.start()
        notes += s.handle(.mass(0, grams: 500))
        var r = feed(&s, from: 0, seconds: 4) { _ in 0 }
        notes += r.notes
        for spot in s.plan.cellSpots {
            r = feed(&s, from: r.next, seconds: 6, at: (Double(spot.x), Double(spot.y)), mass())
            notes += r.notes
        }
        return (notes, r.next)
    }

    @Test("Four force channels make a per-cell plan: the spec's corners, a mark 15 % in from each, the middle to check")
    func plan() {
        let p = Self.plan()
        #expect(p.perCell)
        #expect(p.cellPositions == [PlatePoint(x: 0, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0, y: 1), PlatePoint(x: 1, y: 1)])
        #expect(p.cellSpots.map { [$0.x, $0.y] } == [[0.15, 0.15], [0.85, 0.15], [0.15, 0.85], [0.85, 0.85]])
        #expect(p.checkSpot == PlatePoint(x: 0.5, y: 0.5) && !p.cellSpots.contains(p.checkSpot))
        #expect(!CalibrationPlan(channels: ["a"], channelMaximumRaw: [1], sampleRateHz: 80).perCell, "one cell has no position")
        #expect(!CalibrationPlan(channels: ["a", "b", "c", "d", "e"], channelMaximumRaw: [1, 1, 1, 1, 1], sampleRateHz: 80).perCell,
                "five cells have no standard positions")
    }

    @Test("Two force channels make a per-cell plan on the bar: marks 15 % in from each end, the bar's middle to check")
    func barPlan() {
        let p = CalibrationPlan(channels: ["a", "b"], channelMaximumRaw: [1, 1], sampleRateHz: 80)
        #expect(p.perCell)
        #expect(p.cellPositions == [PlatePoint(x: 0, y: 0.5), PlatePoint(x: 1, y: 0.5)])
        #expect(p.cellSpots.map { [$0.x, $0.y] } == [[0.15, 0.5], [0.85, 0.5]])
        #expect(p.checkSpot == PlatePoint(x: 0.5, y: 0.5) && !p.cellSpots.contains(p.checkSpot))
    }

    @Test("Three force channels make a per-cell plan on the triangle: marks 30 % towards the opposite side, the centroid to check")
    func trianglePlan() {
        let p = CalibrationPlan(channels: ["a", "b", "c"], channelMaximumRaw: [1, 1, 1], sampleRateHz: 80)
        #expect(p.perCell)
        #expect(p.cellPositions == [PlatePoint(x: 0, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0.5, y: 1)])
        let expected: [[Float]] = [[0.225, 0.15], [0.775, 0.15], [0.5, 0.7]]
        for (spot, e) in zip(p.cellSpots, expected) { #expect(abs(spot.x - e[0]) < 1e-6 && abs(spot.y - e[1]) < 1e-6, "\(spot)") }
        #expect(abs(p.checkSpot.x - 0.5) < 1e-6 && abs(p.checkSpot.y - 1.0 / 3) < 1e-6 && !p.cellSpots.contains(p.checkSpot))
        // Each mark loads its own cell with 70 %; the check spot each cell with a third.
        var random = SeededRandom(seed: 1, stream: 1)
        let model = PanelModel.make(.panel3, random: &random)
        for (i, spot) in p.cellSpots.enumerated() {
            let w = model.shares(at: (Double(spot.x), Double(spot.y)))
            #expect(abs(w[i] - 0.7) < 1e-6 && w.allSatisfy { $0 > 0.1 }, "\(i): \(w)")
        }
        #expect(model.shares(at: (Double(p.checkSpot.x), Double(p.checkSpot.y))).allSatisfy { abs($0 - 1.0 / 3) < 1e-6 })
    }

    @Test("Each cell's own gain and zero from one mass on four marks; the check on the middle reads it back")
    func cellByCell() throws {
        var s = CalibrationSession(plan: Self.plan())
        var (notes, at) = Self.weighed(&s)
        #expect(notes.contains(.started(.cell(0))) && notes.contains(.started(.cell(3))) && s.step == .check, "\(notes)")
        let r = Self.feed(&s, from: at, seconds: 6, at: (0.5, 0.5), Self.mass())
        at = r.next
        notes += r.notes
        #expect(s.step == .light, "\(r.notes)")
        let check = r.notes.compactMap { n -> String? in if case .measured(.check, let t) = n { return t }; return nil }
        #expect(check.count == 1 && check[0].contains("at x 0.500, y 0.500"), "\(check)")
        // The calibration, known after the check, is on the calibration line: each cell's own gain within 0.2 %.
        let line = notes.compactMap { n -> String? in if case .measured(.cell(3), let t) = n, t.hasPrefix("calibration: ") { return t }; return nil }
        #expect(line.count == 1, "\(notes)")
        for (c, g) in Self.gains.enumerated() {
            let text = line.first ?? ""
            let part = text.components(separatedBy: "c\(c) zero ").dropFirst().first ?? ""
            let value = Double(part.components(separatedBy: ", ").dropFirst().first?.components(separatedBy: " ").first ?? "") ?? 0
            #expect(abs(value / g - 1) < 0.002, "cell \(c): \(value) vs \(g) (\(text))")
        }
    }

    @Test("A check that reads another load than the cells were weighed with: the cells are weighed again")
    func checkRefused() {
        var s = CalibrationSession(plan: Self.plan())
        let at = Self.weighed(&s).next
        // 600 g on the check spot instead of the 500 g the cells were weighed with: 20 % off.
        let r = Self.feed(&s, from: at, seconds: 6, at: (0.5, 0.5), Self.mass(600))
        let problems = r.notes.compactMap { n -> String? in if case .problem(.check, let t, .cell(0)) = n { return t }; return nil }
        #expect(problems.count == 1 && problems[0].contains("more than 2 % off"), "\(r.notes)")
        #expect(s.step == .cell(0) && r.notes.last == .started(.cell(0)))
    }

    @Test("Four placements on one spot do not tell the cells apart: said, and the cells start again")
    func singularPlacements() {
        var s = CalibrationSession(plan: Self.plan())
        _ = s.start()
        _ = s.handle(.mass(0, grams: 500))
        var at = Self.feed(&s, from: 0, seconds: 4) { _ in 0 }.next
        var notes: [SessionNote] = []
        for _ in 0..<4 {
            let r = Self.feed(&s, from: at, seconds: 6, at: (0.5, 0.5), Self.mass())
            at = r.next
            notes += r.notes
        }
        let problems = notes.compactMap { n -> String? in if case .problem(.cell(3), let t, .cell(0)) = n { return t }; return nil }
        #expect(problems.count == 1 && problems[0].contains("do not tell the cells apart"), "\(notes)")
        #expect(s.step == .cell(0))
    }

    @Test("Answers, Enter and the device coming back are inputs like scans")
    func otherInputs() {
        var s = CalibrationSession(plan: Self.plan())
        _ = s.start()
        #expect(s.handle(.mass(0, grams: -1)) == [.refused(CalibrationInputError.badMass(-1).description)])
        #expect(s.handle(.mass(2, grams: 500)) == [.refused(CalibrationInputError.noSuchMass(2).description)], "one mass in a per-cell session")
        #expect(s.handle(.mass(0, grams: 500)) == [])
        #expect(s.handle(.enough(atScan: 5)) == [], "Enter ends verification only")
        _ = Self.feed(&s, from: 0, seconds: 1) { _ in 0 }
        #expect(s.handle(.deviceBack(atScan: 200)) == [.started(.unloaded)] && s.step == .unloaded)
        let r = Self.feed(&s, from: 200, seconds: 3) { _ in 0 }
        #expect(r.notes.contains(.started(.cell(0))), "the unloaded step was measured afresh after the device came back")
    }

    @Test("cellGains solves deltas x gains = newtons exactly, and refuses placements that cannot separate the cells")
    func solve() throws {
        let gains = [1e-3, 2e-3, 4e-3]
        let placements: [[Double]] = [[800, 100, 50], [60, 700, 90], [40, 80, 600]]
        let newtons = 3.0
        // Scale each placement so that it reads `newtons` at the true gains.
        let scaled = placements.map { row -> [Double] in
            let f = zip(row, gains).map(*).reduce(0, +)
            return row.map { $0 * newtons / f }
        }
        let solved = try #require(cellGains(scaled, newtons: newtons))
        for (a, b) in zip(solved, gains) { #expect(abs(a / b - 1) < 1e-5, "\(solved)") }
        #expect(cellGains([[1, 1], [2, 2]], newtons: 1) == nil, "a singular system")
        // A cell that reads its own placement lower is wired with negative gain: its gain is negative.
        #expect(cellGains([[1, 0], [0, -1]], newtons: 1) == [1, -1], "a cell wired with negative gain")
        // A gain whose sign contradicts the cell's own reading is a bad placement: 2a + b = 1, a + 0.1b = 1 gives b = -1.25.
        #expect(cellGains([[2, 1], [1, 0.1]], newtons: 1) == nil, "a gain against the cell's own reading")
        #expect(cellGains([[1, 2]], newtons: 1) == nil, "not square")
    }

    @Test("The prompts name the cell, its corner and the mark in plate units")
    func prompts() {
        let plan = Self.plan()
        let lines = SessionPrompts.lines(.started(.cell(1)), plan: plan, grams: 500, interactive: true)
        #expect(lines.count == 1 && lines[0].hasPrefix("Step 2 of 5: cell 2 of 4. Set the 500 g mass down on the mark over cell 2 (the back right corner): x 0.85, y 0.15"), "\(lines)")
        let check = SessionPrompts.lines(.started(.check), plan: plan, grams: 500, interactive: true)
        #expect(check.count == 1 && check[0].contains("on the check spot: x 0.50, y 0.50"), "\(check)")
        #expect(SessionPrompts.lines(.progress(.unloaded, 0.5), plan: plan, grams: nil, interactive: true).isEmpty)
    }

    @Test("The prompts of a bar and a triangle name each cell's end or corner, its mark and the check spot")
    func smallPanelPrompts() {
        let bar = CalibrationPlan(channels: ["a", "b"], channelMaximumRaw: [1, 1], sampleRateHz: 80)
        let two = SessionPrompts.lines(.started(.cell(1)), plan: bar, grams: 500, interactive: true)
        #expect(two == ["Step 2 of 5: cell 2 of 2. Set the 500 g mass down on the mark over cell 2 (the right end): x 0.85, y 0.50 of the plate, 15 % in from the bar's end; leave it about 3 s, then lift it off."], "\(two)")
        let barCheck = SessionPrompts.lines(.started(.check), plan: bar, grams: 500, interactive: true)
        #expect(barCheck.count == 1 && barCheck[0].contains("on the check spot: x 0.50, y 0.50 of the plate (the middle of the bar)"), "\(barCheck)")
        let triangle = CalibrationPlan(channels: ["a", "b", "c"], channelMaximumRaw: [1, 1, 1], sampleRateHz: 80)
        let first = SessionPrompts.lines(.started(.cell(0)), plan: triangle, grams: 500, interactive: true)
        #expect(first.count == 1 && first[0].hasPrefix("Step 2 of 5: cell 1 of 3.")
                    && first[0].contains("on the mark over cell 1 (the back left corner): x 0.225, y 0.15 of the plate, 30 % of the way from the cell to the middle of the opposite side"), "\(first)")
        let third = SessionPrompts.lines(.started(.cell(2)), plan: triangle, grams: 500, interactive: true)
        #expect(third.count == 1 && third[0].contains("cell 3 (the middle of the front edge): x 0.50, y 0.70"), "\(third)")
        let check = SessionPrompts.lines(.started(.check), plan: triangle, grams: 500, interactive: true)
        #expect(check.count == 1 && check[0].contains("on the check spot: x 0.50, y 0.333 of the plate (the middle of the triangle, where each cell takes a third)"), "\(check)")
    }
}
