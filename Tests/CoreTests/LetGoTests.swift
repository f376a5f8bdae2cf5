import Testing
import ForceStageCore

/// The let-go rule: a press on a panel whose zero a thermal ramp carried
/// above the touch band (the baseline refuses to follow a rise that large)
/// releases on the finger's lift-off, a fall of the press's whole force,
/// and the baseline re-learns from the rest that follows. Through the public
/// pipeline at each scan rate the panels run at, scan by scan and in blocks
/// (`LowRateSpikeTests.run`), which must agree.
@Suite("Let-go on a drifted zero")
struct LetGoTests {
    /// One press's script: seconds of rest after the previous press, of the
    /// rise, of the hold and of the let-go, and the force held.
    struct Press {
        var rest: Double
        var rise: Double
        var hold: Double
        var letGo: Double
        var force: Double
    }

    /// The forces at `rate` scans/s of `presses` after `lead` seconds of rest,
    /// on a zero that rises `slope` N/s from the first press on, with a
    /// little noise; and the scan each let-go starts at.
    static func script(_ presses: [Press], rate: Double, lead: Double, slope: Double,
                       tail: Double) -> (forces: [Double], letGos: [Int]) {
        var finger: [Double] = Array(repeating: 0, count: Int(lead * rate))
        var letGos: [Int] = []
        func ramp(_ seconds: Double, from a: Double, to b: Double) {
            let n = max(1, Int((seconds * rate).rounded()))
            finger += (1...n).map { a + (b - a) * Double($0) / Double(n) }
        }
        for p in presses {
            finger += Array(repeating: 0, count: Int(p.rest * rate))
            ramp(p.rise, from: 0, to: p.force)
            finger += Array(repeating: p.force, count: Int(p.hold * rate))
            letGos.append(finger.count)
            ramp(p.letGo, from: p.force, to: 0)
        }
        finger += Array(repeating: 0, count: Int(tail * rate))
        let start = Int(lead * rate)
        let forces = finger.enumerated().map { i, f in
            f + slope * Double(max(0, i - start)) / rate + Double(i % 3) * 0.004
        }
        return (forces, letGos)
    }

    /// Presses one after another with short rests (`rest` seconds) on a zero
    /// rising `slope` N/s: the baseline, frozen through each press and
    /// settling in each rest, falls behind until the rest reads above the
    /// touch band (0.3 N), then stays there. At 10 scans/s a baseline block
    /// is 1.6 s, so the rests are longer there and the ramp steeper.
    static func drifting(rest: Double) -> [Press] {
        (0..<14).map { k in Press(rest: rest, rise: 0.15, hold: 1.6 + Double(k % 3) * 0.1, letGo: 0.03, force: 1.8) }
    }

    @Test("A press on a drifted zero releases within the release window of its let-go, at every rate, load cell or FSR",
          arguments: [(10.0, 2.5, 0.03, false), (80, 0.6, 0.05, false), (320, 0.6, 0.05, false),
                      (500, 0.6, 0.05, false), (860, 0.6, 0.05, false), (860, 0.6, 0.05, true), (475, 0.6, 0.05, true)])
    func releasesOnLetGo(rate: Double, rest: Double, slope: Double, fsrCreep: Bool) throws {
        let presses = Self.drifting(rest: rest)
        let (forces, letGos) = Self.script(presses, rate: rate, lead: 5, slope: slope, tail: 3)
        let scans = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate), fsrCreep: fsrCreep)
        let blocks = try LowRateSpikeTests.run(forces, batched: true, sampleRateHz: Float(rate), fsrCreep: fsrCreep)
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        let releases = scans.filter { $0.hasPrefix("release@") }.map { Int($0.split(separator: "@")[1])! }
        #expect(scans.filter { $0.hasPrefix("peek@") }.count == presses.count, "\(scans)")
        #expect(scans.filter { $0.hasPrefix("pop@") }.isEmpty, "\(scans)")
        #expect(releases.count == letGos.count, "\(scans)")
        // The spec's release window closes 100 ms (at least 3 scans) after
        // the force falls below half the peek level, within the let-go here.
        let late = max(3, Int((0.1 * rate).rounded()))
        let letGoScans = Int((0.03 * rate).rounded())
        for (release, letGo) in zip(releases, letGos) {
            #expect(release >= letGo && release <= letGo + letGoScans + late,
                    "release at \(release), let-go from \(letGo) at \(rate) scans/s: \(scans)")
        }
    }

    @Test("A partial let-go on a drifted zero releases nothing; the lift-off that follows does",
          arguments: [80.0, 500])
    func partialLetGo(rate: Double) throws {
        // The last press falls fast from 1.8 N to 0.8 N (above half the peek
        // level: no release), holds, then lifts off.
        let presses = Self.drifting(rest: 0.6)
        var (forces, letGos) = Self.script(presses, rate: rate, lead: 5, slope: 0.05, tail: 0)
        let last = letGos[letGos.count - 1]
        let drift = forces[last - 1] - 1.8
        let dip = Int(0.03 * rate)
        forces = Array(forces[..<last])
            + (1...dip).map { 1.8 - 1.0 * Double($0) / Double(dip) + drift }
            + Array(repeating: 0.8 + drift, count: Int(rate))
            + Array(repeating: drift, count: Int(3 * rate))
        let scans = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate))
        let blocks = try LowRateSpikeTests.run(forces, batched: true, sampleRateHz: Float(rate))
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        let releases = scans.filter { $0.hasPrefix("release@") }.map { Int($0.split(separator: "@")[1])! }
        #expect(releases.count == presses.count, "\(scans)")
        let liftOff = last + dip + Int(rate)
        let lastRelease = releases.last ?? -1
        #expect(lastRelease >= liftOff && lastRelease <= liftOff + max(3, Int(0.1 * rate)), "\(scans)")
    }
}
