import Testing
import ForceStageCore

/// The let-go rule on a rest that stands just above the touch band: a zero
/// that a ramp carried up during a press, read with noise whose single
/// readings dip below the band. The baseline tracker's blocks judge that
/// rest (their means stand above the band), not its lowest readings, so the
/// next press arms the rule, the baseline re-learns the zero after that
/// press's release, and the press after it is measured from the new zero.
/// Through the public pipeline (`LowRateSpikeTests.run`: peek 1 N, touch band
/// 0.3 N), scan by scan and in blocks, which must agree.
@Suite("Let-go on a rest just above the touch band")
struct RestAboveBandTests {
    /// Uniform noise in -1...1 from a fixed linear congruential sequence.
    struct Noise {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    /// Press A carries the zero from 0 to `rest` while held; press B rises
    /// from that noisy rest and lets go back to it; press C rises slowly from
    /// the rest (quiet now). Returns the forces and the scan at which press
    /// C's finger force reaches the peek level (1 N).
    static func script(rate: Double, rest: Double, noise amplitude: Double) -> (forces: [Double], peekC: Int) {
        var out: [Double] = []
        var noise = Noise()
        // Noisy stretches carry `amplitude`; the others a sensor's usual
        // few millinewtons (a reading that never moves is reported stuck).
        func hold(_ seconds: Double, _ f: (Double) -> Double, noisy: Bool) {
            let n = Int((seconds * rate).rounded())
            for i in 0..<n { out.append(f(Double(i) / Double(n)) + (noisy ? amplitude : 0.004) * noise.next()) }
        }
        hold(5, { _ in 0 }, noisy: false)
        // Press A: the zero climbs to `rest` under the finger.
        hold(0.15, { 1.8 * $0 }, noisy: false)
        hold(1.5, { 1.8 + rest * $0 }, noisy: false)
        hold(0.03, { rest + 1.8 * (1 - $0) }, noisy: false)
        // The rest: its mean above the band, single readings below it.
        hold(2, { _ in rest }, noisy: true)
        // Press B, from the rest and back to it.
        hold(0.15, { rest + 1.8 * $0 }, noisy: true)
        hold(1, { _ in rest + 1.8 }, noisy: true)
        hold(0.03, { rest + 1.8 * (1 - $0) }, noisy: true)
        hold(2, { _ in rest }, noisy: false)
        // Press C: a slow rise from the rest (quiet again), 1.8 N in 0.5 s.
        let start = out.count
        hold(0.5, { rest + 1.8 * $0 }, noisy: false)
        hold(0.5, { _ in rest + 1.8 }, noisy: false)
        hold(0.03, { rest + 1.8 * (1 - $0) }, noisy: false)
        hold(2, { _ in rest }, noisy: false)
        return (out, start + Int((0.5 * rate / 1.8).rounded(.up)))
    }

    @Test("The press after the re-learning peeks within max(2 scans, 10 ms) of its finger force reaching the peek level",
          arguments: [80.0, 320, 500, 860])
    func peeksFromTheNewZero(rate: Double) throws {
        let (forces, peekC) = Self.script(rate: rate, rest: 0.36, noise: 0.08)
        let scans = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate))
        let blocks = try LowRateSpikeTests.run(forces, batched: true, sampleRateHz: Float(rate))
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        let peeks = scans.filter { $0.hasPrefix("peek@") }.map { Int($0.split(separator: "@")[1])! }
        #expect(peeks.count == 3, "\(scans)")
        #expect(!scans.contains { $0.hasPrefix("stuck@") }, "\(scans)")
        #expect(scans.filter { $0.hasPrefix("release@") }.count == 3, "\(scans)")
        guard let last = peeks.last else { return }
        // The median of three decides a scan after the crossing.
        let target = max(2, Int(0.01 * rate))
        #expect(abs(last - (peekC + 1)) <= target, "press C peeked at \(last), its force reached 1 N at \(peekC): \(scans)")
    }
}
