import Testing
import ForceStageCore

/// The baseline's re-learning after a press from a rest within the touch
/// band: a thermal ramp the tracker could not keep up with stood some way
/// above the baseline before the press, went on climbing under the finger,
/// and after the release the panel rests above the touch band. The tracker
/// refuses a rise that large (a slow touch must never become the zero), so
/// the rest after the release re-learns the zero: it moved on from the rest
/// before the press by less than the tracker was already behind. The press
/// after it is measured from the new zero. A finger left resting after a
/// press, further above the rest before the press than the tracker was
/// behind it, stays a touch. Through the public
/// pipeline (`LowRateSpikeTests.run`: peek 1 N, touch band 0.3 N), scan by
/// scan and in blocks, which must agree.
@Suite("Re-learning a zero the tracker was behind before the press")
struct ZeroBehindBeforePressTests {
    /// Five seconds at rest; presses A (at 6 s) and B (at 8.5 s) rise to
    /// 1.8 N in 0.15 s and hold 1 s; press C (at 11.5 s) rises 1.8 N in
    /// 0.5 s. With `restingFinger` false the zero climbs at 0.1 N/s from 5 s
    /// until press B lets go. With it true the zero steps up 0.25 N under
    /// press A (within the band: the tracker follows it slowly), and after
    /// press B a finger rests 0.25 N above that rest. Returns the readings
    /// and the scan at which press C's finger force reaches the peek level (1 N).
    static func script(rate: Double, restingFinger: Bool) -> (forces: [Double], peekC: Int) {
        let endA = 6 + 0.15 + 1 + 0.03, endB = 8.5 + 0.15 + 1 + 0.03
        func zero(_ t: Double) -> Double {
            restingFinger ? (t >= endA ? 0.25 : 0) : 0.1 * Swift.min(Swift.max(0, t - 5), endB - 5)
        }
        func finger(_ t: Double) -> Double {
            func press(_ start: Double, rise: Double) -> Double {
                let u = t - start
                if u < 0 { return 0 }
                if u < rise { return 1.8 * u / rise }
                if u < rise + 1 { return 1.8 }
                if u < rise + 1.03 { return 1.8 * (1 - (u - rise - 1) / 0.03) }
                return 0
            }
            let resting = restingFinger && t >= endB ? 0.25 : 0
            return press(6, rise: 0.15) + press(8.5, rise: 0.15) + press(11.5, rise: 0.5) + resting
        }
        // A few millinewtons of noise (a reading that never moves is reported stuck).
        var noise = RestAboveBandTests.Noise(state: 0x9E37_79B9_7F4A_7C15)
        let n = Int(14 * rate)
        let forces = (0..<n).map { i -> Double in
            let t = Double(i) / rate
            return zero(t) + finger(t) + 0.004 * noise.next()
        }
        return (forces, Int((11.5 + 0.5 / 1.8) * rate) + 1)
    }

    /// The script's events scan by scan (checked equal to those in blocks),
    /// their three peeks' scans, and press C's scan at 1 N.
    static func run(rate: Double, restingFinger: Bool) throws -> (events: [String], peeks: [Int], peekC: Int) {
        let (forces, peekC) = script(rate: rate, restingFinger: restingFinger)
        let scans = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate))
        let blocks = try LowRateSpikeTests.run(forces, batched: true, sampleRateHz: Float(rate))
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        let peeks = scans.filter { $0.hasPrefix("peek@") }.map { Int($0.split(separator: "@")[1])! }
        #expect(peeks.count == 3, "\(scans)")
        return (scans, peeks, peekC)
    }

    @Test("After the zero outran the tracker through a press, the next press peeks within max(2 scans, 10 ms)",
          arguments: [80.0, 320, 500, 860])
    func peeksFromTheRelearntZero(rate: Double) throws {
        let (scans, peeks, peekC) = try Self.run(rate: rate, restingFinger: false)
        #expect(scans.filter { $0.hasPrefix("release@") }.count == 3, "\(scans)")
        guard let last = peeks.last else { return }
        // The median of three decides a scan after the crossing.
        let target = max(2, Int(0.01 * rate))
        #expect(abs(last - (peekC + 1)) <= target, "press C peeked at \(last), its force reached 1 N at \(peekC): \(scans)")
    }

    @Test("A finger resting after a press, further above the rest before it than the tracker was behind, does not become the zero",
          arguments: [80.0, 320, 500, 860])
    func restingFingerStaysATouch(rate: Double) throws {
        let (scans, peeks, peekC) = try Self.run(rate: rate, restingFinger: true)
        guard let last = peeks.last else { return }
        // Press C rises on the resting finger and the zero's step: it reads
        // 1 N above the baseline before its own finger force is 1 N.
        #expect(last < peekC - max(2, Int(0.01 * rate)), "press C peeked at \(last), after its own 1 N at \(peekC): the resting finger became the zero: \(scans)")
    }
}
