import Testing
@testable import ForceStageCore

/// The baseline tracker's block mean and noise as the microcontrollers take
/// them (`Classifier._meanAndSpread`, loops over the block in memory) against
/// the vector form they replaced there and the hosts' form, bit for bit. The
/// host never runs the microcontrollers' tracker, so this is where their
/// figures are checked.
@Suite("Block mean and noise in loops")
struct BlockFitTests {
    /// The microcontrollers' former form, on `SIMD16`.
    static func vectorFit(_ v: SIMD16<Float>, _ bits: UInt32) -> (mean: Float, spread: Float)? {
        var kept = v
        var count = Float(Classifier.blockScans)
        if bits == 0 {
            count = 0
        } else if bits != Classifier.blockBits {
            (kept, count) = Classifier._settledOnly(v, bits)
        }
        guard count >= Classifier.minimumIdleScans else { return nil }
        let mean = _sum16(kept) / count
        let ramp = Classifier.blockRamp
        let trend = _sum16((v - mean) * ramp) * Classifier.inverseRampSquares
        let residual = v - (mean + trend * ramp)
        // Each residual's magnitude: its sign bit cleared.
        let magnitude = unsafeBitCast(unsafeBitCast(residual, to: SIMD16<UInt32>.self) & 0x7fff_ffff, to: SIMD16<Float>.self)
        return (mean, _sum16(magnitude) * Classifier.inverseBlockScans)
    }

    /// The hosts' form (`_trackBaseline` there).
    static func hostFit(_ v: SIMD16<Float>, _ bits: UInt32) -> (mean: Float, spread: Float)? {
        let mean: Float
        if bits == Classifier.blockBits {
            mean = _sum16(v) / Float(Classifier.blockScans)
        } else {
            guard bits != 0, let settled = Classifier._settledMean(v, bits) else { return nil }
            mean = settled
        }
        let quarter = Classifier._trendQuarter(v, mean)
        let half = quarter.lowHalf + quarter.highHalf
        let trend = (half[0] + half[1]) * Classifier.inverseRampSquares
        let residual = v - (mean + trend * Classifier.blockRamp)
        let spreadQuarter = Classifier._spread(residual)
        let spreadHalf = spreadQuarter.lowHalf + spreadQuarter.highHalf
        return (mean, (spreadHalf[0] + spreadHalf[1]) * Classifier.inverseBlockScans)
    }

    static func same(_ a: (mean: Float, spread: Float)?, _ b: (mean: Float, spread: Float)?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.mean.bitPattern == b.mean.bitPattern && a.spread.bitPattern == b.spread.bitPattern
        default: false
        }
    }

    @Test("Random blocks and settled patterns give the vector forms' bits")
    func randomBlocks() {
        #expect(Classifier.blockScans == 16)
        var rng = SplitMix(seed: 61)
        var wrong = 0, fitted = 0
        var first = ""
        for round in 0..<20_000 {
            // Levels and noise over many scales, a ramp, and blocks of equal
            // readings or signed zeros (the sums' and the abs' edge cases).
            let level = Float(Int64(bitPattern: rng.next()) % 1_000_000) / Float(1 << (rng.next() % 24))
            let noise = Float(rng.next() % 1_000) / Float(1 << (rng.next() % 20))
            let slope = Float(Int64(bitPattern: rng.next()) % 100) / 1_000
            var v = SIMD16<Float>()
            for k in 0..<16 {
                switch round % 7 {
                case 0: v[k] = level
                case 1: v[k] = rng.next() & 1 == 0 ? 0 : -0.0
                default: v[k] = level + slope * Float(k) + noise * (Float(rng.next() % 2_001) / 1_000 - 1)
                }
            }
            let bits: UInt32
            switch rng.next() % 4 {
            case 0: bits = Classifier.blockBits
            case 1: bits = 0
            default: bits = UInt32(truncatingIfNeeded: rng.next()) & Classifier.blockBits
            }
            let loops = Classifier._meanAndSpread(v, settled: bits)
            if loops != nil { fitted += 1 }
            for (form, other) in [("vector", Self.vectorFit(v, bits)), ("host", Self.hostFit(v, bits))]
            where !Self.same(loops, other) {
                if wrong == 0 { first = "\(form) form, block \(v), bits \(String(bits, radix: 2)): \(String(describing: loops)) != \(String(describing: other))" }
                wrong += 1
            }
        }
        #expect(wrong == 0, "\(wrong) wrong, first: \(first)")
        // Both outcomes reached: blocks with fewer than four settled readings and the others.
        #expect(fitted > 5_000 && fitted < 20_000)
    }
}
