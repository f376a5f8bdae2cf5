import Testing
import ForceStageCore

/// A press that starts while the unloaded panel's reading is still falling (a
/// relaxation after an earlier press, a thermal ramp): the baseline is frozen
/// through the press, but the fall goes on under the finger, so the tracker
/// carries the fall it measured before the approach, and a slow climb crosses
/// the peek and pop levels within the latency target. Through the public
/// pipeline, scan by scan and in blocks, which must agree.
@Suite("A press on a falling zero")
struct FallingZeroPressTests {
    /// `rate` scans/s: 4 s at rest while the zero falls at `fall` N/s (with
    /// 0.002 N of noise), a climb at 3 N/s to 3 N, 0.5 s held, a let-go over
    /// 50 ms, 1 s at rest; the zero keeps falling throughout.
    /// With `approach` seconds, the climb starts with a slow rise to 0.25 N
    /// (below the touch band: quiet blocks that read above the falling zero).
    static func press(rate: Double, fall: Double, approach: Double = 0) -> [Double] {
        let rest = Int(4 * rate), climb = Int(rate), held = Int(rate / 2), letGo = Int(rate / 20), after = Int(rate)
        var force = [Double](repeating: 0, count: rest)
        let slow = Int(approach * rate)
        force += (0..<slow).map { 0.25 * Double($0 + 1) / Double(slow) }
        let start = slow > 0 ? 0.25 : 0
        force += (0..<climb).map { start + (3 - start) * Double($0 + 1) / Double(climb) }
        force += [Double](repeating: 3, count: held)
        force += (0..<letGo).map { 3 * (1 - Double($0 + 1) / Double(letGo)) }
        force += [Double](repeating: 0, count: after)
        return force.enumerated().map { i, f in 0.1 - fall * Double(i) / rate + f + Double(i % 2) * 0.002 }
    }

    /// The scan the press's force first reaches `level` N (the label's scan).
    static func crossing(_ level: Double, rate: Double, approach: Double = 0) -> Int {
        let slow = Int(approach * rate)
        let start = slow > 0 ? 0.25 : 0
        return Int(4 * rate) + slow + Int(((level - start) / (3 - start) * rate).rounded(.up)) - 1
    }

    @Test("A slow climb on a zero falling at 0.04 N/s peeks and pops within max(2 scans, 10 ms), from rest or after a slow approach",
          arguments: [(320.0, 0.0), (500.0, 0.0), (320.0, 0.2), (500.0, 0.2)])
    func climbOnAFallingZero(rate: Double, approach: Double) throws {
        let forces = Self.press(rate: rate, fall: 0.04, approach: approach)
        let scans = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate))
        let blocks = try LowRateSpikeTests.run(forces, batched: true, sampleRateHz: Float(rate))
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        #expect(scans.map { String($0.split(separator: "@")[0]) } == ["peek", "pop", "release"], "\(scans)")
        let target = max(2, Int((0.010 * rate).rounded(.down)))
        for (kind, level) in [("peek", 1.0), ("pop", 2.5)] {
            let at = try #require(scans.first { $0.hasPrefix(kind + "@") }.flatMap { Int($0.split(separator: "@")[1]) })
            let label = Self.crossing(level, rate: rate, approach: approach)
            #expect(at >= label - target && at <= label + target, "\(kind) at \(at), the force reaches \(level) N at \(label)")
        }
    }
}
