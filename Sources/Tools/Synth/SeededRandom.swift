import Foundation
import ForceStageFormats

/// A small deterministic generator (xoshiro256**, seeded through SplitMix64),
/// so that a seed gives the same recording on every run and every machine
/// with the same libm. Never touches system randomness.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator for `seed`, optionally on an independent `stream`: streams
    /// let one concern (say, noise) draw as much as it likes without shifting
    /// what another (the press script) gets from the same seed.
    public init(seed: UInt64, stream: UInt64 = 0) {
        var sm = seed ^ (stream &* 0xD1B5_4A32_D192_ED03)
        s0 = SeededRandom.splitMix(&sm)
        s1 = SeededRandom.splitMix(&sm)
        s2 = SeededRandom.splitMix(&sm)
        s3 = SeededRandom.splitMix(&sm)
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }  // the one state xoshiro cannot leave
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = SeededRandom.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = SeededRandom.rotl(s3, 45)
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [low, high).
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * unit()
    }

    /// Uniform integer in `range` (slight modulo bias is irrelevant here, and
    /// keeping it simple keeps the stream easy to reason about).
    public mutating func integer(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Standard normal by Box-Muller (one value per call; the pair's second
    /// half is dropped so that the stream position does not depend on history).
    public mutating func gaussian() -> Double {
        let u1 = 1.0 - unit()  // (0, 1]
        let u2 = unit()
        return (-2.0 * Foundation.log(u1)).squareRoot() * Foundation.cos(2.0 * Double.pi * u2)
    }

    /// An element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T {
        items[integer(0...(items.count - 1))]
    }
}
