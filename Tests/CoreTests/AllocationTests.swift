import Foundation
import TestSupport
import ForceStageBench
import Testing
@testable import ForceStageCore

/// Allocations `body` makes on the calling thread (malloc-interposer), the
/// same counter `forcestage-bench` uses.
func allocations(during body: () -> Void) -> Int { countAllocations(body) }

@Suite("Allocation", .serialized)
struct AllocationTests {
    @Test("The counter sees an allocation when there is one")
    func counterWorks() {
        let n = allocations {
            let a = [Int](repeating: 7, count: 1000)
            #expect(a.count == 1000)
        }
        #expect(n >= 1)
    }
}

extension AllocationTests {
    @Test("Decode, calibrate and classify allocate nothing per scan in the steady state")
    func perScanPathAllocatesNothing() throws {
        let train = try PressTrain()
        var pipeline = train.pipeline
        let layout = train.layout, bytes = train.bytes, scans = train.scans
        var ring = EventRing()
        var seen = 0
        // Warm up once, then count a second pass.
        bytes.withUnsafeBytes { raw in
            pipeline.process(scans: raw, into: &ring)
            while ring.popFirst() != nil { seen += 1 }
        }
        var scansCounted = 0
        let n = allocations {
            bytes.withUnsafeBytes { raw in
                for _ in 0..<10 {
                    var offset = 0
                    while offset < raw.count {
                        let end = min(raw.count, offset + 4 * layout.scanSize)
                        offset += pipeline.process(scans: UnsafeRawBufferPointer(rebasing: raw[offset..<end]), into: &ring)
                        while ring.popFirst() != nil { seen += 1 }
                    }
                    scansCounted += scans
                }
            }
        }
        #expect(seen > 0, "the presses should produce events")
        #expect(scansCounted == 40_960)
        #expect(n == 0, "the per-scan path allocated \(n) times over \(scansCounted) scans")
    }
}
