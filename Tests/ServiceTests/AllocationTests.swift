import Foundation
import TestSupport
import ForceStageBench
import Testing
import ForceStageCore
@testable import ForceStageService

/// Allocations `body` makes on the calling thread (malloc-interposer), the
/// same counter `forcestage-bench` uses.
func allocations(during body: () -> Void) -> Int { countAllocations(body) }

@Suite("Service allocation", .serialized)
struct ServiceAllocationTests {
    @Test("a refill's batch classification, the event channel push and the sink's pop allocate nothing per scan in the steady state")
    func perScanServicePath() throws {
        let train = try PressTrain(scans: 8192)
        let layout = train.layout, pipeline = train.pipeline, bytes = train.bytes, scans = train.scans
        let counters = ServiceCounters()
        let channel = try #require(EventChannel())
        var stage = ClassifierStage(pipeline: pipeline, counters: counters, output: channel)
        var events = 0
        let perRefill = 4
        func pass(_ range: Range<Int>) {
            bytes.withUnsafeBytes { raw in
                // Scan thread: each refill's scans in one batch; sink thread: pop what it decided.
                for i in stride(from: range.lowerBound, to: range.upperBound, by: perRefill) {
                    let refill = UnsafeRawBufferPointer(start: raw.baseAddress! + i * layout.scanSize, count: perRefill * layout.scanSize)
                    _ = stage.classify(refill, arrivalNs: Int64(i))
                    while channel.pop() != nil { events += 1 }
                }
            }
        }
        let seen = allocations { let a = [Int](repeating: 7, count: 1000); #expect(a.count == 1000) }
        #expect(seen >= 1, "the counter sees an allocation when there is one")
        pass(0..<1024)   // warm up
        let n = allocations { pass(1024..<scans) }
        #expect(n == 0, "allocations over \(scans - 1024) scans: \(n)")
        #expect(events > 50, "the scans produced events: \(events)")
        #expect(counters.scans.load(ordering: .relaxed) == Int64(scans))
        #expect(channel.overflows == 0)
    }
}
