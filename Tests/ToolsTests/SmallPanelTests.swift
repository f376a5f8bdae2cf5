import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools

/// Panels of two and three cells in the synthesizer: a bar on two
/// cells and a plate on the spec's triangle of three, each cell with its own
/// gain and zero, labelled with x/y.
@Suite("Two- and three-cell panels")
struct SmallPanelTests {
    /// The centre of pressure of `shares` at the model's cell positions.
    static func centre(_ shares: [Double], _ model: PanelModel) -> (x: Double, y: Double) {
        let cells = model.cellPositions
        return (zip(shares, cells).map { $0 * $1.x }.reduce(0, +), zip(shares, cells).map { $0 * $1.y }.reduce(0, +))
    }

    static func model(_ kind: PanelKind, unit: UInt64 = 1) -> PanelModel {
        var random = SeededRandom(seed: unit, stream: 1)
        return PanelModel.make(kind, random: &random)
    }

    @Test("A bar shares a press by the lever rule, a triangle by barycentric weights; both put the centre of pressure on the press")
    func shares() throws {
        let bar = Self.model(.panel2)
        #expect(bar.cellCount == 2 && bar.channels.count == 3 && bar.deviceName == "ad7124-4")
        #expect(bar.shares(at: (0.25, 0.5)) == [0.75, 0.25])
        #expect(bar.shares(at: (0.25, 0.9)) == [0.75, 0.25], "a bar is narrow: y plays no part")
        let triangle = Self.model(.panel3)
        #expect(triangle.cellCount == 3)
        #expect(triangle.cellPositions.map { [$0.x, $0.y] } == [[0, 0], [1, 0], [0.5, 1]])
        // Each cell alone under a press on it; a third each on the centroid.
        for (i, p) in triangle.cellPositions.enumerated() {
            let w = triangle.shares(at: p)
            #expect(w.enumerated().allSatisfy { abs($1 - ($0 == i ? 1 : 0)) < 1e-12 }, "\(w)")
        }
        #expect(triangle.shares(at: (0.5, 1.0 / 3)).allSatisfy { abs($0 - 1.0 / 3) < 1e-12 })
        for x in stride(from: 0.0, through: 1.0, by: 0.125) {
            for y in stride(from: 0.0, through: 1.0, by: 0.125) {
                let w = triangle.shares(at: (x, y))
                #expect(abs(w.reduce(0, +) - 1) < 1e-12)
                let c = Self.centre(w, triangle)
                #expect(abs(c.x - x) < 1e-12 && abs(c.y - y) < 1e-12, "(\(x), \(y)) -> \(c)")
                // Inside the triangle no share is negative; outside one is (the cell is pulled).
                let inside = y <= 1 - 2 * abs(x - 0.5) + 1e-12
                #expect(w.allSatisfy { $0 >= -1e-12 } == inside, "(\(x), \(y)): \(w)")
            }
        }
        // At the plate's free front corners the near back cell is pulled by half the press.
        let corner = triangle.shares(at: (0, 1))
        #expect(abs(corner[1] + 0.5) < 1e-12 && abs(corner[0] - 0.5) < 1e-12 && abs(corner[2] - 1) < 1e-12, "\(corner)")
    }

    @Test("Presses land where the panel can take them: along the bar, inside the triangle with every cell taking at least 1 %")
    func pressSpots() {
        let bar = Self.model(.panel2), triangle = Self.model(.panel3), plate = Self.model(.panel4)
        for u in stride(from: 0.1, through: 0.9, by: 0.05) {
            for v in stride(from: 0.1, through: 0.9, by: 0.05) {
                #expect(bar.pressSpot(drawn: (u, v)) == (u, 0.5))
                let p = plate.pressSpot(drawn: (u, v))
                #expect(p == (u, v), "four cells: the draw itself")
                let w = triangle.shares(at: triangle.pressSpot(drawn: (u, v)))
                #expect(w.allSatisfy { $0 >= 0.01 - 1e-9 }, "(\(u), \(v)): \(w)")
                let c = triangle.clampToPressArea((u * 1.4 - 0.2, v * 1.4 - 0.2))
                #expect(triangle.shares(at: c).allSatisfy { $0 >= 0.01 - 1e-9 }, "clamped \(c)")
            }
        }
    }

    static let cases: [(PanelKind, UInt64, ScenarioSet)] = [
        (.panel2, 1, []), (.panel2, 2, []), (.panel2, 3, .sliding),
        (.panel3, 1, []), (.panel3, 2, []), (.panel3, 3, .sliding),
    ]

    @Test("evaluate on synthesized 2- and 3-cell recordings: every peek and pop matched, position error p90 <= 0.02 with the recording's own per-cell calibration",
          arguments: 0..<6)
    func evaluate(index: Int) throws {
        let (panel, seed, scenarios) = Self.cases[index]
        let r = try Synthesizer.synthesize(SynthOptions(panel: panel, seed: seed, duration: 60, artefacts: .all, scenarios: scenarios))
        let meta = r.recording.metadata
        let name = "\(panel.rawValue) seed \(seed) \(scenarios.text)"
        // Per-cell calibration: one gain and one zero per cell, the gains those of the unit.
        let gains = meta.calibration!.force.compactMap { c -> Double? in if case .linear(_, let g) = c.mapping { return g }; return nil }
        #expect(gains.count == panel.cellCount && Set(gains).count == panel.cellCount, "\(name): \(gains)")
        let labels = meta.labels.filter { $0.event != .release }
        #expect(labels.count >= 10 && labels.allSatisfy { $0.x != nil && $0.y != nil }, "\(name)")
        if panel == .panel2 { #expect(labels.allSatisfy { $0.y == 0.5 }, "\(name): a bar's presses lie on its line") }
        if panel == .panel3 {
            #expect(labels.allSatisfy { $0.y! <= 1 - 2 * abs($0.x! - 0.5) }, "\(name): presses inside the triangle")
        }
        if scenarios.contains(.sliding) { #expect(r.script.presses.contains { $0.path != nil }, "\(name)") }
        let setup = try PanelSetup(metadata: meta, file: "\(name).json")
        for (path, events) in [("batched", replay(r.recording, setup: setup).events),
                               ("per-scan", CorpusPositionTests.perScanEvents(r.recording, setup: setup))] {
            let s = score(events: events, labels: meta.labels, sampleRateHz: setup.sampleRateHz)
            let missed = s.misses.filter { $0.event != .release }
            let falsePeeksPops = s.falseEvents.filter { $0.kind == .peek || $0.kind == .pop }
            #expect(missed.isEmpty && falsePeeksPops.isEmpty, "\(name) \(path): missed \(missed.map { "\($0.event.name)@\($0.sample)" }), false \(falsePeeksPops.map { "\($0.kind.name)@\($0.sample)" })")
            #expect(s.unpositioned == 0 && s.positionErrors.count == labels.count, "\(name) \(path)")
            let p90 = try #require(percentile(s.positionErrors.sorted(), 0.9))
            #expect(p90 <= 0.02, "\(name) \(path): p90 \(p90)")
        }
    }

    @Test("synth --panel panel2/panel3 writes x/y labels; sliding is refused only on a single cell")
    func commandLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for panel in ["panel2", "panel3"] {
            let out = dir.appendingPathComponent("\(panel).json")
            let r = try forcestage(["synth", "--panel", panel, "--seed", "4", "--duration", "20", "--scenario", "sliding", "-o", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            let rec = try Recording.load(out)
            #expect(rec.metadata.forceChannels.count == (panel == "panel2" ? 2 : 3))
            #expect(rec.metadata.labels.filter { $0.event == .peek }.allSatisfy { $0.x != nil && $0.y != nil })
        }
        let single = try forcestage(["synth", "--panel", "hx711-80", "--seed", "4", "--duration", "20", "--scenario", "sliding",
                                     "-o", dir.appendingPathComponent("h.json").path])
        #expect(single.status != 0 && single.stderr.contains("use --panel panel4, panel2 or panel3"), "\(single.stderr)")
        let help = try forcestage(["synth", "--help"])
        #expect(help.stdout.contains("panel2") && help.stdout.contains("panel3"), "\(help.stdout)")
    }

    @Test("The standard and scenario corpora keep their panels: adding panels changes none of their recordings")
    func corporaUnchanged() {
        #expect(Synthesizer.standardCorpus.count == 12)
        #expect(Set(Synthesizer.standardCorpus.map(\.options.panel)) == Set(PanelKind.corpusKinds))
        #expect(!Synthesizer.scenarioCorpus().contains { $0.options.panel == .panel2 || $0.options.panel == .panel3 })
    }
}
