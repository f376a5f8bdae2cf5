import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// Plates of two, three and four cells calibrated cell by cell, typed at a terminal against the emulator.
extension CalibrateEmulatorTests {
    @Test("A bar, a triangle and four corners typed at a terminal against the emulated AD7124-4: each saved gain within 1 % of the synthesizer's, standard positions (the corners: CentreOfPressureTests)",
          arguments: [("panel2", 1, "the right end"), ("panel3", 2, "the middle of the front edge"),
                      ("panel4", 1, "the front right corner")] as [(String, UInt64, String)])
    func cellByCell(panel: String, seed: UInt64, lastCell: String) throws {
        let kind = try #require(PanelKind(rawValue: panel))
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let synth = try Synthesizer.synthesize(SynthOptions(panel: kind, seed: seed, duration: 1, unitSeed: 9,
                                                            script: .calibrationSession(massesGrams: [500])))
        let session = dir.appendingPathComponent("\(panel)-session.json")
        try synth.recording.write(to: session)
        let output = dir.appendingPathComponent("\(panel).toml")
        let channels = synth.recording.metadata.forceChannels.map(\.id)
        let cells = kind.cellCount
        let term = try PseudoTerminal([forcestage!, "emulate", "--sensor", "ad7124-4", "--speed", "4", session.path, "--",
                                       forcestage!, "calibrate"] + channels.flatMap { ["--channel", $0] } + ["-o", output.path])
        #expect(term.expect("Step 1 of 5: unloaded panel", timeout: 30), "\(term.output)")
        #expect(term.expect("Step 2 of 5: cell 1 of \(cells)", timeout: 30), "\(term.output)")
        #expect(term.expect("mass 1 in grams: ", timeout: 30), "\(term.output)")
        term.type("500\n")
        #expect(term.expect("cell \(cells) of \(cells). Set the 500 g mass down on the mark over cell \(cells) (\(lastCell))", timeout: 60), "\(term.output)")
        #expect(term.expect("on the check spot read", timeout: 60), "\(term.output)")
        #expect(term.expect("Step 3 of 5: press lightly", timeout: 30), "\(term.output)")
        #expect(term.expect("Save the profile to", timeout: 120), "\(term.output)")
        term.type("y\n")
        #expect(term.waitExit(timeout: 60) == 0, "\(term.output)")
        let profile = try Profile.load(output)
        #expect(profile.channels.map(\.channel) == channels)
        for (c, truth) in zip(profile.channels, synth.model.calibration.force) {
            guard case .linear(_, let gain) = c.mapping, case .linear(_, let model) = truth.mapping else { Issue.record("not linear"); continue }
            #expect(abs(gain / model - 1) < 0.01, "\(c.channel): saved \(gain) N/count, the synthesizer's \(model)")
        }
        let standard = try #require(CellPositions.standard(forCells: cells))
        #expect(profile.channels.map(\.position) == (0..<cells).map { standard[$0] })
    }
}
