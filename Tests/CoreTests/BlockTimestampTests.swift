import Testing
import TestSupport
@testable import ForceStageCore

/// The block read's gap test (two timestamps a vector, `gapNs - gap` or-ed)
/// against the per-scan step's gap count, on timestamps no sensor should send.
@Suite("Block timestamps")
struct BlockTimestampTests {
    @Test("Gaps at every place in a block, stamps that repeat, go back, or jump by nearly 2^63 give the per-scan path's counters and events")
    func adversarialStamps() throws {
        let train = try PressTrain(scans: 2048)
        let size = train.layout.scanSize
        let period: Int64 = 12_500_000
        var rng = SplitMix(seed: 61)
        for round in 0..<12 {
            var bytes = train.bytes
            var ts: Int64 = 1_000_000_000
            bytes.withUnsafeMutableBytes { raw in
                for i in 0..<train.scans {
                    let r = rng.next() % 64
                    switch (round, r) {
                    case (0, _): ts &+= period                                   // regular
                    case (_, 0): ts &+= period * Int64(2 + rng.next() % 5)        // a gap, anywhere in a block
                    case (_, 1): ts &+= period * 3 / 2                             // exactly gapNs: not a gap
                    case (_, 2): ts &+= period * 3 / 2 + 1                         // one past it
                    case (_, 3): ts &-= period * Int64(1 + rng.next() % 3)         // backwards
                    case (_, 4): break                                            // the same stamp again
                    case (_, 5) where round >= 6: ts &+= Int64.max - Int64(rng.next() % 1000)  // wraps
                    case (_, 6) where round >= 6: ts &+= Int64.min + Int64(rng.next() % 1000)  // wraps back
                    default: ts &+= period
                    }
                    raw.storeBytes(of: ts.littleEndian, toByteOffset: i * size + 8, as: Int64.self)
                }
            }
            var one = train.pipeline
            var ring = EventRing()
            var perScan: [ForceEvent] = []
            var many = train.pipeline
            var batched: [ForceEvent] = []
            bytes.withUnsafeBytes { raw in
                for i in 0..<train.scans {
                    one.process(scan: raw.baseAddress! + i * size, into: &ring)
                    while let e = ring.popFirst() { perScan.append(e) }
                }
                var offset = 0
                while offset < raw.count {
                    offset += many.process(scans: UnsafeRawBufferPointer(rebasing: raw[offset...]), into: &ring)
                    while let e = ring.popFirst() { batched.append(e) }
                }
            }
            #expect(batched == perScan, "round \(round)")
            #expect(many.counters == one.counters, "round \(round): \(many.counters) vs \(one.counters)")
            #expect(many.classifier.fastBlocks > 0, "round \(round): blocks take the block path")
            if round > 0 { #expect(one.counters.timestampGaps > 0, "round \(round)") }
        }
    }
}
