import Testing
import ForceStageCore

/// A flat reading is `stuck` only where it cannot plausibly be:
/// never at rest at the sensor's floor, never a press held against a stop,
/// and a cell wired with negative gain is judged like its positive twin.
@Suite("Stuck only where implausible")
struct PlausibleFlatTests {
    /// Raw words through an HX711-layout pipeline at 80 scans/s, gain `perCount` N/count.
    static func run(_ raws: [Int64], zero: Int64, perCount: Float, format text: String = "le:u24/32>>0",
                    stepFraction: Float? = nil) throws -> [String] {
        let format = try ChannelFormat(parsing: text)
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout([(index: 0, format: format), (index: 2, format: ts)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: zero, newtonsPerCount: perCount))], layout: layout)
        var settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        settings.holdMilliseconds = 0
        if let stepFraction { settings.stuckStepFraction = stepFraction }
        var pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(settings, sampleRateHz: 80), timestampSlot: 1)
        var bytes = [UInt8](repeating: 0, count: layout.scanSize)
        var ring = EventRing()
        var out: [String] = []
        for (i, raw) in raws.enumerated() {
            bytes.withUnsafeMutableBytes { b in
                format.encode(raw, to: b.baseAddress!)
                ts.encode(Int64(i) * 12_500_000, to: b.baseAddress! + 8)
            }
            bytes.withUnsafeBytes { pipeline.process(scan: $0.baseAddress!, into: &ring) }
            while let e = ring.popFirst() { out.append("\(e.kind.name)@\(e.sample)") }
        }
        pipeline.finish(into: &ring)
        while let e = ring.popFirst() { out.append("\(e.kind.name)@\(e.sample)") }
        return out
    }

    static let zero: Int64 = 8_388_608
    /// `count` scans at `newtons` with a few counts of noise (or none).
    static func level(_ newtons: Double, _ count: Int, noisy: Bool = true, perNewton: Double = 10_000) -> [Int64] {
        (0..<count).map { zero + Int64((newtons * perNewton).rounded()) + (noisy ? Int64($0 * 7 % 5) : 0) }
    }

    @Test("An unloaded sensor reading exactly its floor for seconds is at rest, not stuck")
    func zeroFloor() throws {
        // An FSR: exactly its floor word at rest (5 s), noisy only while pressed.
        let floor = [Int64](repeating: Self.zero, count: 400)
        let raws = floor + Self.level(1.6, 40) + floor + Self.level(2.0, 40) + floor
        let events = try Self.run(raws, zero: Self.zero, perCount: 1e-4)
        #expect(!events.contains { $0.hasPrefix("stuck") }, "\(events)")
        #expect(events.map { $0.split(separator: "@")[0] } == ["peek", "release", "peek", "release"], "\(events)")
    }

    @Test("A press clipped flat below the rails is saturated, not stuck, and is not released")
    func clippedHold() throws {
        let top = Self.zero + 30_000   // 3 N, flat: a mechanical stop
        let raws = Self.level(0, 80) + Self.level(1.5, 20) + [Int64](repeating: top, count: 300) + Self.level(0, 80)
        let events = try Self.run(raws, zero: Self.zero, perCount: 1e-4)
        #expect(!events.contains { $0.hasPrefix("stuck") }, "\(events)")
        let kinds = events.map { $0.split(separator: "@")[0] }
        #expect(kinds == ["peek", "pop", "saturated", "recovered", "release"], "\(events)")
    }

    @Test("A noisy sensor whose noise stops at rest (the same word repeated) is stuck")
    func stuckAtRest() throws {
        let raws = Self.level(0, 200) + Self.level(1.6, 40) + Self.level(0, 80) + [Int64](repeating: Self.zero + 2, count: 300)
        let events = try Self.run(raws, zero: Self.zero, perCount: 1e-4)
        #expect(events.contains { $0.hasPrefix("stuck") }, "\(events)")
    }

    @Test("A noisy sensor that repeats one raw word mid-range is stuck")
    func stuckMidRange() throws {
        let raws = Self.level(0, 80) + Self.level(3, 40) + Self.level(0, 80) + [Int64](repeating: Self.zero + 4_000, count: 300)
        let events = try Self.run(raws, zero: Self.zero, perCount: 1e-4)
        #expect(events.contains { $0.hasPrefix("stuck") }, "\(events)")
    }

    @Test("A sensor without noise frozen mid-press is stuck where it resolves the press finely, not where it is coarse")
    func frozenWithoutNoise() throws {
        // No noise anywhere: exactly the zero word at rest, a press to 3 N, then
        // the reading freezes at 1.6 N (below the top) for 3.75 s. One count is
        // 1e-4 N (0.006 % of the force): a press held that still is a frozen sensor.
        let raws = Self.level(0, 200, noisy: false) + Self.level(3, 20, noisy: false)
            + Self.level(1.6, 300, noisy: false) + Self.level(0, 80, noisy: false)
        let fine = try Self.run(raws, zero: Self.zero, perCount: 1e-4)
        let kinds = fine.map { $0.split(separator: "@")[0] }
        #expect(kinds == ["peek", "pop", "stuck", "release", "recovered"], "\(fine)")
        // Decided once the flat run (from the freeze's second scan) reaches the stuck time, 160 scans at 80 scans/s.
        #expect(fine.contains("stuck@\(200 + 20 + 160)"), "\(fine)")
        // The same force on a coarse sensor (one count 0.05 N, 3 % of 1.6 N, a
        // quantised trace): holding a press within one count is plausible.
        let coarse = raws.map { Self.zero + ($0 - Self.zero) / 500 }
        let held = try Self.run(coarse, zero: Self.zero, perCount: 0.05)
        #expect(held.map { $0.split(separator: "@")[0] } == ["peek", "pop", "release"], "\(held)")
        // The knob: 0 turns the rule off; a fraction of 0.05 takes the coarse sensor too.
        let off = try Self.run(raws, zero: Self.zero, perCount: 1e-4, stepFraction: 0)
        #expect(off.map { $0.split(separator: "@")[0] } == ["peek", "pop", "release"], "\(off)")
        let wide = try Self.run(coarse, zero: Self.zero, perCount: 0.05, stepFraction: 0.05)
        #expect(wide.contains { $0.hasPrefix("stuck") }, "\(wide)")
        // Frozen at the top of the press (its highest force) is a press held
        // against a stop, on any sensor: saturated, never stuck.
        let top = Self.level(0, 200, noisy: false) + Self.level(1.6, 300, noisy: false) + Self.level(0, 80, noisy: false)
        let stop = try Self.run(top, zero: Self.zero, perCount: 1e-4)
        #expect(stop.map { $0.split(separator: "@")[0] } == ["peek", "saturated", "recovered", "release"], "\(stop)")
    }

    @Test("Negative gain: the inverted raw words with the inverted gain give the identical events")
    func negativeGainTwin() throws {
        // Presses, a clipped hold, a mid-range stuck run, a rail.
        let raws = Self.level(0, 80) + Self.level(1.6, 40) + Self.level(0, 60) + Self.level(3, 30)
            + [Int64](repeating: Self.zero + 35_000, count: 250) + Self.level(0, 80)
            + [Int64](repeating: 0xFF_FFFF, count: 10) + Self.level(0, 80)
            + [Int64](repeating: Self.zero + 4_000, count: 300) + Self.level(0, 40)
        let positive = try Self.run(raws, zero: Self.zero, perCount: 1e-4)
        // Inverting a u24 word: 0xFFFFFF - raw (the rails swap; force pulls the count down).
        let inverted = raws.map { 0xFF_FFFF - $0 }
        let negative = try Self.run(inverted, zero: 0xFF_FFFF - Self.zero, perCount: -1e-4)
        #expect(negative == positive)
        #expect(positive.contains { $0.hasPrefix("stuck") } && positive.contains { $0.hasPrefix("saturated") }, "\(positive)")
        // The same on a signed converter (bitwise NOT swaps its rails exactly).
        let signed = raws.map { $0 - Self.zero }
        let p = try Self.run(signed.map { max(-0x80_0000, min(0x7F_FFFF, $0)) }, zero: 0, perCount: 1e-4, format: "le:s24/32>>0")
        let n = try Self.run(signed.map { ~max(-0x80_0000, min(0x7F_FFFF, $0)) }, zero: ~0, perCount: -1e-4, format: "le:s24/32>>0")
        #expect(n == p)
        #expect(p.contains { $0.hasPrefix("peek") })
    }
}
