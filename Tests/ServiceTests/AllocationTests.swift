import Foundation
import TestSupport
import ForceStageBench
import Testing
import ForceStageCore
import ForceStageService

/// Allocations `body` makes on the calling thread (malloc-interposer), the
/// same counter `forcestage-bench` uses.
func allocations(during body: () -> Void) -> Int { countAllocations(body) }

@Suite("Service allocation", .serialized)
struct ServiceAllocationTests {
    @Test("scan ring push, classifier stage and event ring pop allocate nothing per scan in the steady state")
    func perScanServicePath() throws {
        let train = try PressTrain(scans: 8192)
        let layout = train.layout, pipeline = train.pipeline, bytes = train.bytes, scans = train.scans
        let counters = ServiceCounters()
        let scanRing = ScanRing(capacity: 64, slotBytes: layout.scanSize)
        let eventRing = SPSCRing<ServiceEvent>(capacity: 256)
        var stage = ClassifierStage(pipeline: pipeline, counters: counters, output: eventRing)
        var events = 0
        func pass(_ range: Range<Int>) {
            bytes.withUnsafeBytes { raw in
                for i in range {
                    // Reader side, classifier side, sink side, as the three threads do it.
                    scanRing.push(kind: .scan, stampNs: Int64(i), bytes: raw.baseAddress! + i * layout.scanSize)
                    guard let slot = scanRing.front() else { continue }
                    _ = stage.consume(kind: slot.kind, stampNs: slot.stampNs, scan: slot.bytes)
                    scanRing.release()
                    while eventRing.pop() != nil { events += 1 }
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
        #expect(scanRing.overflows == 0 && eventRing.overflows == 0)
    }
}
