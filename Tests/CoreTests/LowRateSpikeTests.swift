import Testing
import ForceStageCore

/// The spike filter where a scan is longer than a spike (10 scans/s),
/// through the public pipeline: raw HX711 words in, events out,
/// scan by scan and in whole blocks (the fast path), which must agree.
@Suite("Spikes at a low scan rate")
struct LowRateSpikeTests {
    static let zero: Int64 = 8_388_608
    static let perNewton: Double = 10_000

    /// Events of `newtons` (one reading a scan, 10 scans/s unless given, peek 1 N, pop 2.5 N,
    /// touch band 0.3 N, hold off unless given), scan by scan or through `process(scans:)`.
    static func run(_ newtons: [Double], batched: Bool, holdMilliseconds: Float = 0,
                    sampleRateHz: Float = 10, fsrCreep: Bool = false, floorNewtons: Float? = nil) throws -> [String] {
        let format = try ChannelFormat(parsing: "le:u24/32>>0")
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let layout = try ScanLayout([(index: 0, format: format), (index: 2, format: ts)])
        let calibration = try PanelCalibration([(slot: 0, calibration: .linear(zeroRaw: zero, newtonsPerCount: Float(1 / perNewton)))],
                                               layout: layout)
        var settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        settings.holdMilliseconds = holdMilliseconds
        settings.baseline.floorNewtons = floorNewtons
        if fsrCreep {
            // An FSR's creep rules, as a curve-calibrated panel takes them by default.
            settings.creepAmount = ClassifierSettings.fsrCreepAmount
            settings.creepAllowance = ClassifierSettings.fsrCreepAllowance
        }
        var pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(settings, sampleRateHz: sampleRateHz), timestampSlot: 1)
        let size = layout.scanSize
        var bytes = [UInt8](repeating: 0, count: size * newtons.count)
        bytes.withUnsafeMutableBytes { b in
            for (i, f) in newtons.enumerated() {
                format.encode(zero + Int64((f * perNewton).rounded()), to: b.baseAddress! + i * size)
                ts.encode(Int64(i) * Int64((1e9 / Double(sampleRateHz)).rounded()), to: b.baseAddress! + i * size + 8)
            }
        }
        var out: [String] = []
        Self.feed(&pipeline, bytes, scanSize: size, batched: batched) { e in out.append("\(e.kind.name)@\(e.sample)") }
        return out
    }

    /// Runs `bytes` (whole scans of `scanSize`) through `pipeline`, scan by
    /// scan or through `process(scans:)`, then finishes it, handing each
    /// event to `take` as it comes.
    static func feed(_ pipeline: inout ForcePipeline, _ bytes: [UInt8], scanSize size: Int, batched: Bool,
                     take: (ForceEvent) -> Void) {
        var ring = EventRing()
        func drain() { while let e = ring.popFirst() { take(e) } }
        bytes.withUnsafeBytes { all in
            if batched {
                var offset = 0
                while offset < all.count {
                    offset += pipeline.process(scans: UnsafeRawBufferPointer(rebasing: all[offset...]), into: &ring)
                    drain()
                }
            } else {
                for i in 0..<(all.count / size) { pipeline.process(scan: all.baseAddress! + i * size, into: &ring); drain() }
            }
        }
        pipeline.finish(into: &ring)
        drain()
    }

    static func kinds(_ newtons: [Double], holdMilliseconds: Float = 0, sampleRateHz: Float = 10) throws -> [String] {
        let scans = try run(newtons, batched: false, holdMilliseconds: holdMilliseconds, sampleRateHz: sampleRateHz)
        let blocks = try run(newtons, batched: true, holdMilliseconds: holdMilliseconds, sampleRateHz: sampleRateHz)
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        return scans.map { String($0.split(separator: "@")[0]) }
    }

    static func rest(_ count: Int) -> [Double] { (0..<count).map { Double($0 % 3) * 0.01 } }
    /// A held peek at 1.6 N with tremor: readings 1.45 and 1.75 N in turn.
    static func tremor(_ count: Int) -> [Double] { (0..<count).map { $0 % 2 == 0 ? 1.45 : 1.75 } }

    @Test("A single reading past pop on a tremoring held peek is a spike: no pop")
    func excursionFromAHeldPeek() throws {
        // Its neighbours (1.45 and 1.75 N) differ by 0.3 N, within the tremor of
        // a 1.6 N hold; it rises 1.15 N above the higher, under four times their
        // difference, so the rule for neighbours at rest let it through and it popped.
        let forces = Self.rest(40) + Self.tremor(20) + [2.9] + Self.tremor(19) + Self.rest(40)
        #expect(try Self.kinds(forces) == ["peek", "release"])
    }

    @Test("A push past pop on a held peek that shows in two readings pops")
    func pushFromAHeldPeek() throws {
        let forces = Self.rest(40) + Self.tremor(20) + [2.7, 2.8] + Self.tremor(19) + Self.rest(40)
        #expect(try Self.kinds(forces) == ["peek", "pop", "release"])
    }

    @Test("A light tap's middle reading, just above the peek level and within its edges' difference, peeks")
    func plateauOfALightTap() throws {
        // 0.95, 1.05, 0.6 N: a three-scan tap whose top reading rises 0.1 N
        // above its edges, which differ by 0.35 N: the press's own wander, not an excursion.
        let forces = Self.rest(40) + [0.95, 1.05, 0.6] + Self.rest(40)
        #expect(try Self.kinds(forces) == ["peek", "release"])
    }

    @Test("A lone spike from rest still gives nothing")
    func spikeFromRest() throws {
        #expect(try Self.kinds(Self.rest(40) + [6] + Self.rest(40)).isEmpty)
    }
}
