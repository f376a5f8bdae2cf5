import Testing
import TestSupport
@testable import ForceStageCore

/// The specialised decode, the batch entry point and the debug invariants of the one scan kernel.
@Suite("Kernel")
struct KernelTests {
    /// Every shape of format the parser accepts at the widths the kernel uses.
    static var formats: [ChannelFormat] {
        var all: [ChannelFormat] = []
        for storage in [8, 16, 32, 64] {
            for real in Set([1, 7, 12, 16, 24, 31, 32, 63, 64].filter { $0 <= storage } + [storage]) {
                for shift in Set([0, 1, 4, 8].filter { $0 + real <= storage }) {
                    for signed in [false, true] {
                        for big in [false, true] {
                            all.append(try! ChannelFormat(bigEndian: big, signed: signed, realBits: real, storageBits: storage, shift: shift))
                        }
                    }
                }
            }
        }
        return all
    }

    @Test("The specialised decode equals ChannelFormat.decode on every format shape and many words")
    func decodeMatchesFormat() {
        var rng = SplitMix(seed: 17)
        var checked = 0
        for format in Self.formats {
            let decoder = _ChannelDecoder(format: format, offset: 3)
            #expect(decoder.low == format.minimumRaw && decoder.high == format.maximumRaw)
            // A timestamp channel in the same format (its scan is placed so that it sits where the word is).
            let stampLayout = try! ScanLayout([(index: 0, format: try! ChannelFormat(parsing: "le:u8/8>>0".utf8)),
                                               (index: 1, format: format)])
            let stamp = _TimestampDecoder(layout: stampLayout, slot: 1)
            var bytes = [UInt8](repeating: 0, count: 16)
            for round in 0..<300 {
                for k in 0..<bytes.count { bytes[k] = UInt8(truncatingIfNeeded: rng.next()) }
                // The extremes too: all ones, all zeros, only the top bit.
                if round == 0 { for k in 0..<bytes.count { bytes[k] = 0xff } }
                if round == 1 { for k in 0..<bytes.count { bytes[k] = 0 } }
                if round == 2 { for k in 0..<bytes.count { bytes[k] = 0x80 } }
                bytes.withUnsafeBytes { raw in
                    let expected = format.decode(raw.baseAddress! + 3)
                    let got = decoder.raw(raw.baseAddress!)
                    #expect(got == expected, "\(format.text): \(got) != \(expected)")
                    let stamped = stamp.stamp(raw.baseAddress! + 3 - stamp.offset, sample: 5, periodNs: 1)
                    #expect(stamped == expected, "timestamp \(format.text): \(stamped) != \(expected)")
                }
                checked += 1
            }
        }
        #expect(checked > 10_000)
    }

    /// A curve of `n` points rising from raw `start` (strictly increasing raw, monotone newtons).
    static func curve(_ n: Int, start: Int64) throws -> ChannelCalibration {
        var points: [(raw: Int64, newtons: Float)] = []
        for k in 0..<n {
            let raw: Int64 = start + Int64(k) * 97 + Int64(k * k)
            let newtons: Float = Float(k) * 0.25 + Float(k % 3) * 0.01
            points.append((raw: raw, newtons: newtons))
        }
        return .curve(try ForceCurve(points))
    }

    @Test("Curves share the decoder's one pool: every channel gives its own curve's newtons")
    func pooledCurves() throws {
        let format = try ChannelFormat(parsing: "le:s32/32>>0".utf8)
        let layout = try ScanLayout((0..<4).map { (index: $0, format: format) })
        let channels: [(slot: Int, calibration: ChannelCalibration)] = [
            (slot: 0, calibration: try Self.curve(20, start: -500)),
            (slot: 1, calibration: .linear(zeroRaw: 12, newtonsPerCount: 0.001)),
            (slot: 2, calibration: try Self.curve(32, start: 1000)),
            (slot: 3, calibration: try Self.curve(12, start: 7)),
        ]
        let calibration = try PanelCalibration(channels, layout: layout)
        let pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(ClassifierSettings(sensitivity: .medium), sampleRateHz: 500),
                                     timestampSlot: nil)
        var decode = pipeline._decode
        var rng = SplitMix(seed: 5)
        for _ in 0..<2_000 {
            let raw = Int64(truncatingIfNeeded: rng.next() % 6_000) - 1_000
            for i in 0..<channels.count {
                #expect(decode.newtons(i, raw) == channels[i].calibration.newtons(forRaw: raw), "channel \(i), raw \(raw)")
            }
        }
    }

    @Test("A panel whose curves together pass the pool's points is refused, naming the total")
    func curvePointBudget() throws {
        let format = try ChannelFormat(parsing: "le:s32/32>>0".utf8)
        let layout = try ScanLayout((0..<3).map { (index: $0, format: format) })
        let two = try PanelCalibration((0..<2).map { (slot: $0, calibration: try Self.curve(32, start: 0)) }, layout: layout)
        #expect(two.count == 2)
        #expect(throws: CalibrationError.tooManyCurvePoints(32 + 32 + 2)) {
            try PanelCalibration([(slot: 0, calibration: try Self.curve(32, start: 0)), (slot: 1, calibration: try Self.curve(32, start: 0)),
                                  (slot: 2, calibration: try Self.curve(2, start: 0))], layout: layout)
        }
    }

    @Test("The common formats get a direct load")
    func directLoads() throws {
        #expect(_ChannelDecoder(format: try ChannelFormat(parsing: "le:s16/16>>0".utf8), offset: 0).load == .s16le)
        #expect(_ChannelDecoder(format: try ChannelFormat(parsing: "le:s32/32>>0".utf8), offset: 0).load == .s32le)
        #expect(_ChannelDecoder(format: try ChannelFormat(parsing: "be:s24/32>>8".utf8), offset: 0).load == .s24be8)
        #expect(_ChannelDecoder(format: try ChannelFormat(parsing: "le:u24/32>>0".utf8), offset: 0).load == .narrow32le)
        #expect(_ChannelDecoder(format: try ChannelFormat(parsing: "le:s64/64>>0".utf8), offset: 0).load == .wide)
    }

    @Test("The line in 32 bits gives the very floats of the 64-bit line, and is used only where it fits")
    func lineMatches() throws {
        var rng = SplitMix(seed: 5)
        for text in ["le:u24/32>>0", "be:s24/32>>8", "le:s16/16>>0", "le:u32/32>>0", "le:s32/32>>0", "le:s64/64>>0"] {
            let format = try ChannelFormat(parsing: text.utf8)
            for zero: Int64 in [0, 8_388_608, -1_000, format.maximumRaw, format.minimumRaw, 1 << 40] {
                var d = _ChannelDecoder(format: format, offset: 0)
                d.setLine(zero: zero, scale: 1.234e-5)
                let fits = (format.minimumRaw.subtractingReportingOverflow(zero), format.maximumRaw.subtractingReportingOverflow(zero))
                let wide = fits.0.overflow || fits.1.overflow || fits.0.partialValue < Int64(Int32.min) || fits.1.partialValue > Int64(Int32.max)
                #expect(d.line32 == !wide, "\(text) zero \(zero)")
                for _ in 0..<2000 {
                    let span = UInt64(bitPattern: format.maximumRaw &- format.minimumRaw)
                    let raw = format.minimumRaw &+ Int64(bitPattern: span == .max ? rng.next() : rng.next() % (span &+ 1))
                    #expect(d.line(raw).bitPattern == (Float(raw &- zero) * 1.234e-5).bitPattern)
                }
            }
        }
    }

    /// The shared press train (TestSupport), with a 40 ms gap at scan 1000.
    static func pressTrain() throws -> (ForcePipeline, [UInt8], Int) {
        let train = try PressTrain(gapAt: 1000)
        return (train.pipeline, train.bytes, train.scans)
    }

    struct Collect: ForceEventSink {
        var events: [ForceEvent] = []
        mutating func take(_ event: ForceEvent) { events.append(event) }
    }

    @Test("consume(block:) over whole refills gives the per-scan path's events, counters and state")
    func batchMatchesPerScan() throws {
        let (start, bytes, scans) = try Self.pressTrain()
        var one = start
        var ring = EventRing()
        var perScan: [ForceEvent] = []
        bytes.withUnsafeBytes { raw in
            for i in 0..<scans {
                one.process(scan: raw.baseAddress! + i * one.layout.scanSize, into: &ring)
                while let e = ring.popFirst() { perScan.append(e) }
            }
        }
        for refill in [1, 16, 37, 4096] {
            var many = start
            var sink = Collect()
            var staging = EventRing()
            var taken = 0
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    // A refill ends with half a scan: it stays for the next call.
                    let end = min(raw.count, offset + refill * many.layout.scanSize + many.layout.scanSize / 2)
                    let n = many.consume(block: UnsafeRawBufferPointer(rebasing: raw[offset..<end]), events: &staging, into: &sink)
                    taken += n
                    offset += n * many.layout.scanSize
                }
            }
            #expect(taken == scans)
            #expect(staging.isEmpty && staging.overflowCount == 0)
            #expect(sink.events == perScan, "refills of \(refill) scans")
            #expect(many.counters == one.counters)
            #expect(many.classifier.baseline.bitPattern == one.classifier.baseline.bitPattern)
            if refill >= 16 { #expect(many.classifier.fastBlocks > 0, "quiet blocks take the block path") }
        }
        #expect(perScan.count > 20)
        #expect(one.counters.timestampGaps == 1 && one.counters.droppedScans == 3)
    }

    #if DEBUG
    @Test("A ring with a count beyond its capacity fails its invariants")
    func ringInvariant() async {
        var ring = Ring<4, Int>(filler: 0)
        ring.pushLast(1)
        ring._checkInvariants()
        await #expect(processExitsWith: .failure) {
            var broken = Ring<4, Int>(filler: 0)
            broken._count = 5
            broken._checkInvariants()
        }
        await #expect(processExitsWith: .failure) {
            var broken = Ring<4, Int>(filler: 0)
            broken._head = 4
            broken._checkInvariants()
        }
    }

    @Test("A classifier pressed while suspended fails its invariants, checked in its own step")
    func classifierInvariant() async throws {
        await #expect(processExitsWith: .failure) {
            var c = Classifier(parameters: try! ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2), sampleRateHz: 100))
            c._suspended = true
            c._state = .popped
            var ring = EventRing()
            c.step(force: 0, sample: 0, timestampNs: 0, into: &ring)
        }
    }

    @Test("A pipeline whose scan count and sample index disagree fails its invariants in the scan step")
    func pipelineInvariant() async throws {
        // The sound pipeline runs its checks on every scan and block without tripping.
        var (pipeline, bytes, _) = try Self.pressTrain()
        var ring = EventRing()
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                offset += pipeline.process(scans: UnsafeRawBufferPointer(rebasing: raw[offset...]), into: &ring)
                ring.removeAll()
            }
        }
        #expect(pipeline.classifier.fastBlocks > 0)
        await #expect(processExitsWith: .failure) {
            var (broken, bytes, _) = try! Self.pressTrain()
            broken._counters.scans = 7
            var ring = EventRing()
            bytes.withUnsafeBytes { broken.process(scan: $0.baseAddress!, into: &ring) }
        }
        await #expect(processExitsWith: .failure) {
            var (broken, bytes, _) = try! Self.pressTrain()
            // The rest score moves by one a scan, so it stays out of range.
            broken._scan.restScore = _ScanState.scoreCeiling + 10
            var ring = EventRing()
            bytes.withUnsafeBytes { broken.process(scan: $0.baseAddress!, into: &ring) }
        }
    }
    #endif
}

/// A small deterministic generator for test words.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49eb_133b_11eb
        return z ^ (z >> 31)
    }
}
