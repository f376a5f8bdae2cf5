import Foundation
import TestSupport
import ForceStageBench
import Testing
import ForceStageCore
import ForceStageGestures
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

@Suite("Service allocation, gesture layer", .serialized)
struct GestureAllocationTests {
    /// A four-cell plate (corner cells, 500 scans/s) pressed every 1024 scans
    /// on its left half, every other press sliding to the right half: peeks, pops, holds, releases,
    /// actions, opens, dismissals, moves, springs and progress, and region
    /// levels that reconfigure the classifier while idle.
    static func plate(scans: Int) throws -> (ForcePipeline, [UInt8], Int) {
        let format = try ChannelFormat(parsing: "le:s32/32>>0")
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout((0..<4).map { (index: $0, format: format) } + [(index: 4, format: ts)])
        let calibration = try PanelCalibration((0..<4).map { (slot: $0, calibration: .linear(zeroRaw: 0, newtonsPerCount: 0.001)) }, layout: layout)
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1.3, popNewtons: 2.9), sampleRateHz: 500)
        let pipeline = ForcePipeline(layout: layout, calibration: calibration, parameters: parameters, timestampSlot: 4, positions: .corners)
        let size = layout.scanSize
        var bytes = [UInt8](repeating: 0, count: scans * size)
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<scans {
                // Even presses slide from the left half to the right one and click there (spring);
                // odd ones stay on the left, held past the hold time, then pop (open).
                let phase = i % 1024, slides = (i / 1024) % 2 == 0
                let force: Float = phase < 100 ? 0 : phase < 140 ? Float(phase - 100) / 40 * 1.8
                    : phase < 540 ? 1.8 : phase < 600 ? 1.8 + Float(phase - 540) / 60 * 1.8 : phase < 640 ? 3.6 : phase < 680 ? 3.6 * Float(680 - phase) / 40 : 0
                let slide = slides && phase >= 140 ? min(1, Float(phase - 140) / 300) : 0
                let x: Float = 0.25 + 0.5 * slide, y: Float = 0.5
                let share: [Float] = [(1 - x) * (1 - y), x * (1 - y), (1 - x) * y, x * y]
                for c in 0..<4 {
                    format.encode(Int64((force * share[c] * 1000).rounded()) + Int64(i % 3), to: raw.baseAddress! + i * size + c * 4)
                }
                ts.encode(Int64(i) * 2_000_000, to: raw.baseAddress! + i * size + 16)
            }
        }
        return (pipeline, bytes, size)
    }

    /// Two regions, one with its own levels and two quick actions, over the panel's levels.
    static let regions = [Region(name: "left", minX: 0, minY: 0, maxX: 0.5, maxY: 1, peekNewtons: 1.1, popNewtons: 2.7, actions: ["a", "b"]),
                          Region(name: "right", minX: 0.5, minY: 0, maxX: 1, maxY: 1)]
    static let levels = ClassifierSettings(peekNewtons: 1.3, popNewtons: 2.9)

    @Test("GestureDriver's per-scan step allocates nothing (progress on)")
    func driverAlone() throws {
        let scans = 8 * 1024
        var (pipeline, bytes, size) = try Self.plate(scans: scans)
        var driver = GestureDriver(regions: Self.regions, settings: Self.levels, sampleRateHz: 500, progressHz: 60)
        var ring = EventRing()
        var out = 0
        func pass(_ range: Range<Int>) {
            bytes.withUnsafeBytes { raw in
                for i in range {
                    driver.step(scan: raw.baseAddress! + i * size, pipeline: &pipeline, events: &ring)
                    out += driver.output.count
                }
            }
        }
        pass(0..<1024)
        let n = allocations { pass(1024..<scans) }
        #expect(n == 0, "allocations over \(scans - 1024) scans: \(n)")
        #expect(out > 100)
    }

    @Test("GestureDriver's block path (advance) allocates nothing, and takes idle blocks whole (progress on)")
    func driverBlocks() throws {
        let scans = 8 * 1024
        var (pipeline, bytes, size) = try Self.plate(scans: scans)
        var driver = GestureDriver(regions: Self.regions, settings: Self.levels, sampleRateHz: 500, progressHz: 60)
        var ring = EventRing()
        var out = 0, blocks = 0
        func pass(_ range: Range<Int>) {
            bytes.withUnsafeBytes { raw in
                var i = range.lowerBound
                while i < range.upperBound {
                    let n = driver.advance(scans: raw.baseAddress! + i * size, count: range.upperBound - i, size: size, pipeline: &pipeline, events: &ring)
                    if n > 1 { blocks += 1 }
                    out += driver.output.count
                    i += n
                }
            }
        }
        pass(0..<1024)
        let n = allocations { pass(1024..<scans) }
        #expect(n == 0, "allocations over \(scans - 1024) scans: \(n)")
        #expect(out > 100)
        #expect(blocks > 100, "blocks taken whole: \(blocks)")
    }

    @Test("the gesture layer's per-scan steps, its records and the channel push allocate nothing per scan (progress on)")
    func perScanGesturePath() throws {
        let scans = 8 * 1024
        let (pipeline, bytes, size) = try Self.plate(scans: scans)
        let counters = ServiceCounters()
        let channel = try #require(EventChannel())
        let control = GestureControl()
        control.requestProgress(hz: 60)
        let gestures = GestureStage(regions: GestureAllocationTests.regions, settings: GestureAllocationTests.levels, sampleRateHz: 500, control: control)
        var stage = ClassifierStage(pipeline: pipeline, counters: counters, output: channel, gestures: gestures)
        var seen = Set<String>()
        var count = 0
        let perRefill = 4
        func pass(_ range: Range<Int>, record: Bool) {
            bytes.withUnsafeBytes { raw in
                for i in stride(from: range.lowerBound, to: range.upperBound, by: perRefill) {
                    _ = stage.classify(UnsafeRawBufferPointer(start: raw.baseAddress! + i * size, count: perRefill * size), arrivalNs: Int64(i))
                    while let e = channel.pop() {
                        count += 1
                        if record { seen.insert(e.gesture.map { $0.kind == .press ? e.event.kind.name : $0.kind.name } ?? e.event.kind.name) }
                    }
                }
            }
        }
        pass(0..<1024, record: true)   // warm up
        let n = allocations { pass(1024..<scans, record: false) }
        #expect(n == 0, "allocations over \(scans - 1024) scans: \(n)")
        // What the measured scans decided, counted again outside the measurement.
        let (pipeline2, _, _) = try Self.plate(scans: 1)
        var check = ClassifierStage(pipeline: pipeline2, counters: ServiceCounters(), output: channel,
                                    gestures: GestureStage(regions: GestureAllocationTests.regions, settings: GestureAllocationTests.levels, sampleRateHz: 500, control: control))
        bytes.withUnsafeBytes { raw in
            for i in stride(from: 0, to: scans, by: perRefill) {
                _ = check.classify(UnsafeRawBufferPointer(start: raw.baseAddress! + i * size, count: perRefill * size), arrivalNs: Int64(i))
                while let e = channel.pop() { seen.insert(e.gesture.map { $0.kind == .press ? e.event.kind.name : $0.kind.name } ?? e.event.kind.name) }
            }
        }
        for kind in ["peek", "pop", "hold", "release", "actions", "open", "dismiss", "move", "spring", "progress"] {
            #expect(seen.contains(kind), "the scans exercise \(kind): \(seen.sorted())")
        }
        #expect(count > 200, "events: \(count)")
        #expect(channel.overflows == 0)
    }
}
