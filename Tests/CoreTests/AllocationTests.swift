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
        let format = try ChannelFormat(parsing: "le:u24/32>>0")
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout([(index: 0, format: format), (index: 2, format: ts)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: 8_388_608, newtonsPerCount: 1e-5))], layout: layout)
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: 80)
        var pipeline = ForcePipeline(layout: layout, calibration: calibration, parameters: parameters, timestampSlot: 1)
        // 4096 scans of presses: rest, peek, pop, release, repeated.
        let scans = 4096
        var bytes = [UInt8](repeating: 0, count: scans * layout.scanSize)
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<scans {
                let phase = i % 256
                let newtons: Double = phase < 64 ? 0 : phase < 128 ? 1.6 : phase < 192 ? 3.2 : 0
                format.encode(8_388_608 + Int64(newtons / 1e-5) + Int64(i % 7), to: raw.baseAddress! + i * layout.scanSize)
                ts.encode(Int64(i) * 12_500_000, to: raw.baseAddress! + i * layout.scanSize + 8)
            }
        }
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
