import Testing
@testable import ForceStageCore

/// The quiet block's rest score in closed form (`_ScanState._restScore`)
/// against the clamped steps scan by scan.
@Suite("Rest score in closed form")
struct RestScoreTests {
    /// The rest score's 16 clamped steps one at a time, as `advanceForce` takes them at rest.
    static func walk(_ score: Int32, turned: UInt32) -> Int32 {
        var s = score
        for k in 0..<16 {
            s = turned & (1 << UInt32(k)) != 0 ? min(_ScanState.scoreCeiling, s + _ScanState.turnCredit) : max(0, s - 1)
        }
        return s
    }

    @Test("Every start score and every pattern of turns gives the scan-by-scan score")
    func exhaustive() {
        #expect(Classifier.blockScans == 16)
        var wrong = 0
        var first = ""
        for score in 0...(_ScanState.scoreCeiling) {
            for turned in 0..<UInt32(1 << 16) {
                let expected = Self.walk(score, turned: turned)
                let got = _ScanState._restScore(score, turned: turned)
                if got != expected {
                    if wrong == 0 { first = "score \(score), turns \(String(turned, radix: 2)): \(got) != \(expected)" }
                    wrong += 1
                }
            }
        }
        #expect(wrong == 0, "\(wrong) wrong, first: \(first)")
    }

    @Test("A quiet block's health scores equal the per-scan steps' on random and adversarial forces")
    func quietBlocks() {
        var rng = SplitMix(seed: 53)
        let baseline: Float = 0.25, band: Float = 1
        var checked = 0
        for round in 0..<4000 {
            var state = _ScanState()
            state.restScore = Int32(truncatingIfNeeded: rng.next() % UInt64(_ScanState.scoreCeiling + 1))
            if round % 5 == 0 { state.restScore = [0, 1, 15, 16, 17, 62, 63, 64][Int(rng.next() % 8)] }
            state.previousTurn = [-1, 0, 1][Int(rng.next() % 3)]
            state.previousForce = baseline
            state.forceHigh = Float(rng.next() % 100) / 50
            // Every scan at rest and moving: up or down by a step from the one
            // before, in patterns from random to always turning or never.
            var forces = [Float](repeating: 0, count: 18)
            forces[1] = state.previousForce
            var level = state.previousForce
            let mode = round % 4
            for k in 0..<16 {
                let up: Bool
                switch mode {
                case 0: up = rng.next() & 1 == 0
                case 1: up = k % 2 == 0                      // turns every scan
                case 2: up = k < 8                           // one turn
                default: up = rng.next() % 3 != 0
                }
                let step = Float(1 + rng.next() % 7) / 64
                level = up ? level + step : level - step
                if level - baseline >= band { level -= 2 * step }
                if level - baseline <= -band { level += 2 * step }
                forces[k + 2] = level
            }
            var scan = state
            for k in 0..<16 {
                scan.advanceForce(atRest: ForcePipeline._atRest(forces[k + 2], baseline: baseline, band: band), force: forces[k + 2])
            }
            var block = state
            forces.withUnsafeBufferPointer { block.advanceForces(block: $0.baseAddress! + 2, baseline: baseline, band: band) }
            #expect(block.restScore == scan.restScore && block.previousTurn == scan.previousTurn
                    && block.forceHigh.bitPattern == scan.forceHigh.bitPattern
                    && block.previousForce.bitPattern == scan.previousForce.bitPattern,
                    "round \(round): rest score \(block.restScore) vs \(scan.restScore)")
            checked += 1
        }
        #expect(checked == 4000)
    }
}
