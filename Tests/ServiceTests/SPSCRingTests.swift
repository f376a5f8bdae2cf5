import Foundation
import TestSupport
import Testing
import ForceStageService

@Suite("Lock-free SPSC rings")
struct SPSCRingTests {
    @Test("capacity rounds up to a power of two; a full ring refuses and counts, never overwrites")
    func fullRingRefuses() {
        let ring = SPSCRing<Int64>(capacity: 5)
        #expect(ring.capacity == 8)
        for i in 0..<8 { #expect(ring.push(Int64(i))) }
        #expect(ring.isFull)
        #expect(!ring.push(99))
        #expect(!ring.push(100))
        #expect(ring.overflows == 2)
        #expect(ring.pop() == 0)
        #expect(ring.push(8))
        var got: [Int64] = []
        while let v = ring.pop() { got.append(v) }
        #expect(got == Array(1...8))
        #expect(ring.pop() == nil)
        #expect(ring.count == 0)
    }

    @Test("two threads: every value arrives once, in order; refusals are exactly the missing values")
    func concurrentOrder() {
        let ring = SPSCRing<Int64>(capacity: 64)
        let total: Int64 = 2_000_000
        let done = DispatchSemaphore(value: 0)
        let refused = RefusedCount()
        Thread {
            var v: Int64 = 0
            while v < total {
                if ring.push(v) { v += 1 } else { refused.n += 1 }   // retry the same value: nothing is lost
            }
            done.signal()
        }.start()
        var expected: Int64 = 0
        var outOfOrder = 0
        while expected < total {
            if let v = ring.pop() {
                if v != expected { outOfOrder += 1 }
                expected += 1
            }
        }
        done.wait()
        #expect(outOfOrder == 0)
        #expect(ring.overflows == refused.n, "every refused push is counted")
    }

    @Test("scan ring: slots carry kind, stamp and the scan's bytes through two threads")
    func scanRingAcrossThreads() {
        let ring = ScanRing(capacity: 16, slotBytes: 12)
        let total = 200_000
        let done = DispatchSemaphore(value: 0)
        Thread {
            var scan = [UInt8](repeating: 0, count: 12)
            var i = 0
            while i < total {
                withUnsafeBytes(of: UInt64(i)) { for k in 0..<8 { scan[k] = $0[k] } }
                let pushed = scan.withUnsafeBytes { ring.push(kind: i % 1000 == 999 ? .lost : .scan, stampNs: Int64(i) * 3, bytes: $0.baseAddress!) }
                if pushed { i += 1 }
            }
            done.signal()
        }.start()
        var next = 0
        var bad = 0
        while next < total {
            guard let slot = ring.front() else { continue }
            let value = slot.bytes.loadUnaligned(as: UInt64.self)
            if value != UInt64(next) || slot.stampNs != Int64(next) * 3 || (slot.kind == .lost) != (next % 1000 == 999) { bad += 1 }
            ring.release()
            next += 1
        }
        done.wait()
        #expect(bad == 0)
        #expect(ring.front() == nil)
    }

    @Test("a full scan ring refuses the scan and counts it")
    func scanRingOverflow() {
        let ring = ScanRing(capacity: 2, slotBytes: 4)
        var scan: UInt32 = 7
        #expect(ring.push(kind: .scan, stampNs: 1, bytes: &scan))
        #expect(ring.push(kind: .scan, stampNs: 2, bytes: &scan))
        #expect(!ring.push(kind: .scan, stampNs: 3, bytes: &scan))
        #expect(ring.overflows == 1)
        #expect(ring.front()?.stampNs == 1)
    }
}

final class RefusedCount: @unchecked Sendable { var n = 0 }
