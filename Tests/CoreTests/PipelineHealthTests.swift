import Testing
import ForceStageCore

/// Scans through the whole pipeline (bytes in, events out): dropped scans,
/// saturation, a stuck sensor and a lost one. HX711 layout at 80 scans/s.
@Suite("Pipeline health")
struct PipelineHealthTests {
    static let zero: Int64 = 8_388_608
    static let perNewton: Double = 10_000   // counts per newton

    struct Scan { var newtons: Double; var raw: Int64? = nil; var timeScans: Int64 }

    static func run(_ scans: [Scan], stuckMs: Float = 2000) throws -> (events: [String], counters: PipelineCounters) {
        let format = try ChannelFormat(parsing: "le:u24/32>>0")
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout([(index: 0, format: format), (index: 2, format: ts)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: zero, newtonsPerCount: Float(1 / perNewton)))], layout: layout)
        var settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        settings.holdMilliseconds = 0
        settings.stuckMilliseconds = stuckMs
        // The scans step from rest past peek in one scan; the fast-rise wait
        // for vibration is tested in RealSensorBehaviourTests, not here.
        settings.vibrationRiseMilliseconds = 0
        var pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(settings, sampleRateHz: 80), timestampSlot: 1)
        var bytes = [UInt8](repeating: 0, count: layout.scanSize)
        var ring = EventRing()
        var out: [String] = []
        for (i, s) in scans.enumerated() {
            // Noise of a few counts keeps a healthy sensor from looking stuck.
            let raw = s.raw ?? zero + Int64((s.newtons * perNewton).rounded()) + Int64(i % 5)
            bytes.withUnsafeMutableBytes { b in
                format.encode(raw, to: b.baseAddress!)
                ts.encode(s.timeScans * 12_500_000, to: b.baseAddress! + 8)
            }
            bytes.withUnsafeBytes { pipeline.process(scan: $0.baseAddress!, into: &ring) }
            while let e = ring.popFirst() { out.append("\(e.kind.name)@\(e.sample)") }
        }
        return (out, pipeline.counters)
    }

    static func steady(_ newtons: Double, _ count: Int, from t: Int64) -> [Scan] {
        (0..<count).map { Scan(newtons: newtons, timeScans: t + Int64($0)) }
    }

    @Test("Dropped scans are counted from timestamp gaps and give no event")
    func droppedScans() throws {
        // 40 scans, then 12 missing, then 40 more; a press spans a second gap of 3.
        var scans = Self.steady(0, 40, from: 0) + Self.steady(0, 40, from: 52)
        scans += Self.steady(1.8, 20, from: 92) + Self.steady(1.8, 20, from: 115) + Self.steady(0, 20, from: 135)
        let r = try Self.run(scans)
        #expect(r.counters.droppedScans == 15)
        #expect(r.counters.timestampGaps == 2)
        #expect(r.events == ["peek@81", "release@121"])
    }

    @Test("Saturation is reported once and clears; the press it happens in goes on")
    func saturation() throws {
        var scans = Self.steady(0, 40, from: 0) + Self.steady(1.6, 10, from: 40)
        scans += (0..<6).map { Scan(newtons: 0, raw: 0xFF_FFFF, timeScans: 50 + Int64($0)) }
        scans += Self.steady(3.0, 10, from: 56) + Self.steady(0, 20, from: 66)
        let r = try Self.run(scans)
        #expect(r.events == ["peek@41", "saturated@51", "pop@51", "recovered@56", "release@67"])
        #expect(r.counters.saturatedScans == 6)
    }

    @Test("A stuck sensor releases the press in progress, then recovers")
    func stuck() throws {
        var scans = Self.steady(0, 40, from: 0) + Self.steady(2.2, 5, from: 40) + Self.steady(1.6, 5, from: 45)
        // The same raw value for 300 ms (24 scans) with a 200 ms stuck time,
        // mid-press below its highest force: implausible on a noisy sensor.
        scans += (0..<24).map { Scan(newtons: 0, raw: Self.zero + 16_000, timeScans: 50 + Int64($0)) }
        scans += Self.steady(0, 20, from: 74)
        let r = try Self.run(scans, stuckMs: 200)
        #expect(r.events == ["peek@41", "stuck@66", "release@66", "recovered@74"])
    }

    @Test("A lost sensor releases the press in progress; scans arriving again recover it")
    func lost() throws {
        let format = try ChannelFormat(parsing: "le:s16/16>>0")
        let layout = try ScanLayout([(index: 4, format: format)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: 0, newtonsPerCount: 0.001))], layout: layout)
        var pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(Self.noRiseWait, sampleRateHz: 860),
                                     timestampSlot: nil)
        var ring = EventRing()
        var out: [String] = []
        func feed(_ raw: Int16, _ n: Int) {
            for i in 0..<n {
                var v = (raw &+ Int16(i % 3)).littleEndian
                withUnsafeBytes(of: &v) { pipeline.process(scan: $0.baseAddress!, into: &ring) }
            }
            while let e = ring.popFirst() { out.append("\(e.kind.name)@\(e.sample)") }
        }
        feed(0, 300)
        feed(1500, 20)
        pipeline.sensorLost(timestampNs: 0, into: &ring)
        pipeline.sensorLost(timestampNs: 0, into: &ring)   // reported once
        while let e = ring.popFirst() { out.append("\(e.kind.name)@\(e.sample)") }
        feed(0, 20)
        #expect(out == ["peek@301", "lost@320", "release@320", "recovered@320"])
    }
}

extension PipelineHealthTests {
    /// Default settings without the fast-rise wait (these scans step from rest past peek).
    static var noRiseWait: ClassifierSettings {
        var s = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        s.vibrationRiseMilliseconds = 0
        return s
    }
}
