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
        let format = try ChannelFormat(parsing: "le:u24/32>>0")
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout([(index: 0, format: format), (index: 2, format: ts)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: 8_388_608, newtonsPerCount: 1e-5))], layout: layout)
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: 80)
        let pipeline = ForcePipeline(layout: layout, calibration: calibration, parameters: parameters, timestampSlot: 1)
        let scans = 8192
        var bytes = [UInt8](repeating: 0, count: scans * layout.scanSize)
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<scans {
                let phase = i % 256
                let newtons: Double = phase < 64 ? 0 : phase < 128 ? 1.6 : phase < 192 ? 3.2 : 0
                format.encode(8_388_608 + Int64(newtons / 1e-5) + Int64(i % 7), to: raw.baseAddress! + i * layout.scanSize)
                ts.encode(Int64(i) * 12_500_000, to: raw.baseAddress! + i * layout.scanSize + 8)
            }
        }
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
