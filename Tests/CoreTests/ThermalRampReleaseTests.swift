import Testing
import ForceStageCore

/// Releases on a thermal ramp at 10 scans/s:
/// the baseline rises slowly (a slow touch must never become the zero), so it
/// lags a ramp; the release level stands on the unloaded panel as the tracker
/// last measured it, so a tap burst's valleys below half the peek level
/// release, while valleys above it (a partial let-go) still do not. Through
/// the public pipeline, scan by scan and in blocks (`LowRateSpikeTests.kinds`).
@Suite("Releases on a thermal ramp at a low scan rate")
struct ThermalRampReleaseTests {
    /// 15 s of rest with a little noise, eight taps of two readings at 1.5 N
    /// with one reading at `valley` between them, then 6 s of rest, all on a
    /// ramp of `slope` N/s (0.02 N/s: 0.3 N over the rest, within the
    /// synthesizer's thermal ramps of up to a third of the peek level).
    static func burst(slope: Double, valley: Double) -> [Double] {
        var forces = (0..<150).map { Double($0 % 3) * 0.01 }
        for _ in 0..<8 { forces += [1.5, 1.5, valley] }
        forces[forces.count - 1] = 0
        forces += (forces.count..<(forces.count + 60)).map { Double($0 % 3) * 0.01 }
        return forces.enumerated().map { $0.element + slope * Double($0.offset) / 10 }
    }

    static func transitions(_ forces: [Double]) throws -> [String] {
        try LowRateSpikeTests.kinds(forces, holdMilliseconds: 500).filter { $0 != "hold" }
    }

    @Test("Every tap of a burst on a rising ramp counts: its valleys below half the peek level release")
    func burstOnARamp() throws {
        // Before, the baseline lagged the ramp by about 0.12 N, a 0.4 N valley
        // read above the 0.5 N release level, and the taps merged into three.
        let taps = Array(repeating: ["peek", "release"], count: 8).flatMap { $0 }
        #expect(try Self.transitions(Self.burst(slope: 0.02, valley: 0.4)) == taps)
        #expect(try Self.transitions(Self.burst(slope: 0.03, valley: 0.35)) == taps)
    }

    @Test("Valleys above half the peek level stay one press, on a ramp or not")
    func partialLetGoOnARamp() throws {
        for slope in [0, 0.02, 0.03] {
            #expect(try Self.transitions(Self.burst(slope: slope, valley: 0.55)) == ["peek", "release"], "slope \(slope)")
        }
    }
}
