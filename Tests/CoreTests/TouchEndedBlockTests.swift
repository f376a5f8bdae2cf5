import Testing
import ForceStageCore

/// The baseline tracker and a block that ends in a touch: a press's approach that fills the last readings of a block, the
/// press peeking in the next one, is no unloaded panel. Through the public
/// pipeline at 80 scans/s, scan by scan and in blocks
/// (`LowRateSpikeTests.kinds`, peek 1 N, pop 2.5 N, touch band 0.3 N).
@Suite("A block that ends in a touch")
struct TouchEndedBlockTests {
    /// 4 s of rest on a noisy load cell (readings -0.08 ... 0.08 N), the
    /// approach in the last four readings of the block of 16 that ends at
    /// scan 319 (0.35 ... 0.65 N, past the touch band), a rise of 0.15 N a
    /// scan to `top`, held 1.5 s, then rest.
    static func press(top: Double) -> [Double] {
        let rest = { (n: Int) in (0..<n).map { Double(($0 * 7) % 5 - 2) * 0.04 } }
        let approach = [0.35, 0.45, 0.55, 0.65]
        let rise = (1...40).map { Swift.min(top, 0.65 + 0.15 * Double($0)) }
        return rest(316) + approach + rise + Array(repeating: top, count: 80) + rest(200)
    }

    @Test("A press held 5 mN past the pop level pops: its approach's block leaves the baseline where it was")
    func approachNotLearned() throws {
        // Before, the block with the approach read as a quiet panel's rise
        // (its mean within the noise-derived touch level) and lifted the
        // baseline 12 mN for the press, which then read 2.494 N and never popped
        // (on the scenario corpus a load cell's pop came 4 scans late so).
        let kinds = try LowRateSpikeTests.kinds(Self.press(top: 2.505), sampleRateHz: 80)
        #expect(kinds == ["peek", "pop", "release"])
    }

    @Test("A press held just short of the pop level still only peeks")
    func shortOfPop() throws {
        #expect(try LowRateSpikeTests.kinds(Self.press(top: 2.495), sampleRateHz: 80) == ["peek", "release"])
    }
}
