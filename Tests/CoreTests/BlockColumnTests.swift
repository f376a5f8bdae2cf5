import Testing
@testable import ForceStageCore

/// The block path's column reads against the scan step's decode.
@Suite("Block columns")
struct BlockColumnTests {
    @Test("The 32-bit column equals the scan step's decode, scan by scan, on every format that fits 32 bits")
    func column32MatchesDecode() {
        var rng = SplitMix(seed: 29)
        var fitting = 0
        let stride = 11
        for format in KernelTests.formats {
            let decoder = _ChannelDecoder(format: format, offset: 3)
            let fits = format.storageBits <= 32 && (format.signed || format.realBits < 32)
            #expect(decoder.fits32 == fits, "\(format.text)")
            guard fits else { continue }
            fitting += 1
            #expect(Int64(decoder.low32) == format.minimumRaw && Int64(decoder.high32) == format.maximumRaw, "\(format.text)")
            var bytes = [UInt8](repeating: 0, count: 16 * stride + 8)
            for round in 0..<40 {
                for k in 0..<bytes.count { bytes[k] = UInt8(truncatingIfNeeded: rng.next()) }
                if round == 0 { for k in 0..<bytes.count { bytes[k] = 0xff } }
                if round == 1 { for k in 0..<bytes.count { bytes[k] = 0x80 } }
                bytes.withUnsafeBytes { raw in
                    var column = [Int32](repeating: 0, count: 16)
                    let offsets = (0..<16).map { $0 * stride }
                    column.withUnsafeMutableBufferPointer { decoder.column32(raw.baseAddress!, offsets: offsets, into: $0.baseAddress!) }
                    for k in 0..<16 {
                        let expected = format.decode(raw.baseAddress! + k * stride + 3)
                        #expect(Int64(column[k]) == expected, "\(format.text), scan \(k): \(column[k]) != \(expected)")
                    }
                }
            }
        }
        #expect(fitting > 50)
    }

    @Test("A channel is read in 32-bit lanes only where its format fits 32 bits and its line does")
    func lanesOnlyWhereTheyFit() throws {
        for (text, zero, lanes) in [("be:s24/32>>8", Int64(8_388_607), true), ("le:s16/16>>0", Int64(-3), true),
                                    ("le:s32/32>>0", Int64(0), true), ("le:s32/32>>0", Int64(1) << 40, false),
                                    ("le:u32/32>>0", Int64(0), false), ("le:u31/32>>0", Int64(0), true),
                                    ("le:s64/64>>0", Int64(0), false)] {
            var decoder = _ChannelDecoder(format: try ChannelFormat(parsing: text.utf8), offset: 0)
            #expect(!decoder.lanes32, "\(text): no line yet")
            decoder.setLine(zero: zero, scale: 0.5)
            #expect(decoder.lanes32 == lanes, "\(text), zero \(zero)")
        }
    }

    /// A pipeline of four force channels of `format` at slots 0...3 (32-bit
    /// words side by side) and an `le:s64` timestamp, lines of distinct
    /// zeros and scales, cells at the plate's corners.
    static func quadPipeline(_ format: String, order: [Int] = [0, 1, 2, 3]) throws -> ForcePipeline {
        let force = try ChannelFormat(parsing: format.utf8)
        let layout = try ScanLayout((0..<4).map { (index: $0, format: force) }
            + [(index: 4, format: try ChannelFormat(parsing: "le:s64/64>>0".utf8))])
        // le:s32 is in 32-bit lanes only with its zero at 0 (raw - zero must fit 32 bits).
        let zeros: [Int64] = force.realBits == 32 ? [0, 0, 0, 0] : [1_000, -2_000, 0, 77]
        let lines: [(Int64, Float)] = (0..<4).map { (zeros[$0], [0.001, -0.0007, 0.0013, 0.0009][$0]) }
        let calibration = try PanelCalibration((0..<4).map { i in
            (slot: order[i], calibration: ChannelCalibration.linear(zeroRaw: lines[i].0, newtonsPerCount: lines[i].1)) }, layout: layout)
        let corners = try CellPositions([PlatePoint(x: 0, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0.25, y: 1), PlatePoint(x: 1, y: 0.75)])
        return ForcePipeline(layout: layout, calibration: calibration,
                             parameters: try ClassifierParameters(ClassifierSettings(sensitivity: .medium), sampleRateHz: 500),
                             timestampSlot: 4, positions: corners)
    }

    @Test("Four side-by-side channels are read four scans at a time only for be:s24/32>>8 and le:s32 lines in channel order")
    func quadOnlyWhereSideBySide() throws {
        #expect(try Self.quadPipeline("be:s24/32>>8")._decode.quadOffset == 0)
        #expect(try Self.quadPipeline("le:s32/32>>0")._decode.quadOffset == 0)
        #expect(try Self.quadPipeline("le:u24/32>>0")._decode.quadOffset == -1, "two shifts, not a direct load")
        #expect(try Self.quadPipeline("le:s16/16>>0")._decode.quadOffset == -1, "not 16 bytes")
        #expect(try Self.quadPipeline("be:s24/32>>8", order: [1, 0, 2, 3])._decode.quadOffset == -1, "not in channel order")
    }

    @Test("The four-at-a-time read gives the column read's forces, changes, rails, last words, moments and zero sums, bit for bit")
    func quadMatchesColumns() throws {
        var rng = SplitMix(seed: 41)
        for format in ["be:s24/32>>8", "le:s32/32>>0"] {
            let pipeline = try Self.quadPipeline(format)
            try #require(pipeline._decode.quadOffset == 0, "\(format)")
            let size = pipeline.layout.scanSize
            // A word on each rail of the format, as its bytes in a scan.
            let rails: [[UInt8]] = format.hasPrefix("be")
                ? [[0x7f, 0xff, 0xff, 0x12], [0x80, 0x00, 0x00, 0x34]] : [[0xff, 0xff, 0xff, 0x7f], [0x00, 0x00, 0x00, 0x80]]
            var refused = 0, taken = 0, repeated = 0
            for round in 0..<600 {
                var bytes = [UInt8](repeating: 0, count: 16 * size)
                for k in 0..<bytes.count { bytes[k] = UInt8(truncatingIfNeeded: rng.next()) }
                if round % 3 == 0 {
                    // Small values around the zeros, so the forces are moderate and scans repeat.
                    for k in 0..<16 { for c in 0..<4 {
                        let v = Int32(truncatingIfNeeded: rng.next() % 5) - 2
                        let word = format.hasPrefix("be") ? UInt32(bitPattern: v << 8).bigEndian | UInt32(rng.next() & 0xff) << 24
                                                          : UInt32(bitPattern: v).littleEndian
                        withUnsafeBytes(of: word) { for b in 0..<4 { bytes[k * size + 4 * c + b] = $0[b] } }
                    } }
                }
                if round % 5 == 1 {
                    // Scans the same as the one before (every channel, or all but one).
                    for k in 1..<16 where rng.next() % 2 == 0 {
                        let channels = rng.next() % 3 == 0 ? Int(rng.next() % 4) : 4
                        for b in 0..<(4 * channels) { bytes[k * size + b] = bytes[(k - 1) * size + b] }
                        repeated += 1
                    }
                }
                if round % 7 == 2 {
                    let k = Int(rng.next() % 16), c = Int(rng.next() % 4)
                    let rail = rails[Int(rng.next() % 2)]
                    for b in 0..<4 { bytes[k * size + 4 * c + b] = rail[b] }
                }
                var last = _LastScan()
                for c in 0..<4 { last.lastRaw[c] = Int64(truncatingIfNeeded: rng.next() % 7) - 3 }
                last.lastTimestamp = 1_000
                let first = Int64(1 + rng.next() % 100)
                var results: [(ok: Bool, last: _LastScan, totals: SIMD16<Float>, changed: UInt32, held: _BlockPositions,
                               zeroSums: InlineArray<8, Float>, momentsX: SIMD16<Float>, momentsY: SIMD16<Float>)] = []
                for quad in [false, true] {
                    var decode = pipeline._decode
                    var s = last
                    var counters = PipelineCounters()
                    var totals = SIMD16<Float>(), momentsX = SIMD16<Float>(), momentsY = SIMD16<Float>()
                    var stamps = InlineArray<16, Int64>(repeating: 0)
                    var changed: UInt32 = 0
                    var held = _BlockPositions()
                    var zeroSums = InlineArray<8, Float>(repeating: 0)
                    for c in 0..<4 { zeroSums[c] = Float(c) * 0.25 - 0.3 }
                    let ok = bytes.withUnsafeBytes { raw in
                        quad ? decode.readBlock(raw.baseAddress!, stride: size, first: first, last: &s, counters: &counters,
                                                timing: pipeline._timing, positions: true, totals: &totals, stamps: &stamps,
                                                changed: &changed, held: &held, zeroSums: &zeroSums, allMoments: true, quad: true,
                                                momentsX: &momentsX, momentsY: &momentsY)
                             : decode.readBlock(raw.baseAddress!, stride: size, first: first, last: &s, counters: &counters,
                                                timing: pipeline._timing, positions: true, totals: &totals, stamps: &stamps,
                                                changed: &changed, held: &held, zeroSums: &zeroSums, allMoments: true, quad: false,
                                                momentsX: &momentsX, momentsY: &momentsY)
                    }
                    results.append((ok, s, totals, changed, held, zeroSums, momentsX, momentsY))
                }
                let (a, b) = (results[0], results[1])
                #expect(a.ok == b.ok, "\(format), round \(round)")
                if a.ok { taken += 1 } else { refused += 1; continue }
                let bits = { (v: SIMD16<Float>) in (0..<16).map { v[$0].bitPattern } }
                #expect(bits(a.totals) == bits(b.totals), "\(format), round \(round)")
                #expect(bits(a.momentsX) == bits(b.momentsX) && bits(a.momentsY) == bits(b.momentsY), "\(format), round \(round)")
                #expect(a.changed == b.changed, "\(format), round \(round)")
                #expect((0..<4).allSatisfy { a.last.lastRaw[$0] == b.last.lastRaw[$0] }, "\(format), round \(round)")
                #expect((0..<4).allSatisfy { a.zeroSums[$0].bitPattern == b.zeroSums[$0].bitPattern
                    && a.held.closedSums[$0].bitPattern == b.held.closedSums[$0].bitPattern
                    && a.held.momentsX[$0].bitPattern == b.held.momentsX[$0].bitPattern
                    && a.held.momentsY[$0].bitPattern == b.held.momentsY[$0].bitPattern }, "\(format), round \(round)")
                #expect(a.held.closedAt == b.held.closedAt)
            }
            #expect(refused >= 50 && taken >= 400 && repeated > 500, "\(format): \(refused) refused, \(taken) taken, \(repeated) repeated")
        }
    }

    /// A pipeline of two `le:s16` curve channels: a falling curve of 5 points,
    /// then an FSR's rising curve of 17 points at uneven steps (one of a single
    /// count, a flat one), so the second starts inside the pool.
    static func curvePipeline() throws -> (ForcePipeline, [ChannelCalibration]) {
        let format = try ChannelFormat(parsing: "le:s16/16>>0".utf8)
        let layout = try ScanLayout([(index: 0, format: format), (index: 1, format: format)])
        let falling = ChannelCalibration.curve(try ForceCurve([(raw: -30_000, newtons: 4.5), (raw: -12, newtons: 2.25),
                                                               (raw: 40, newtons: 2.2), (raw: 9_000, newtons: 0.125), (raw: 20_001, newtons: -0.3)]))
        let raws: [Int64] = [-200, -199, 0, 3, 880, 1_650, 3_001, 5_000, 7_000, 10_007, 14_000, 18_000, 22_000, 26_000, 29_000, 30_800, 32_766]
        let newtons: [Float] = [0, 0.0013, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 0.75, 1.0, 1.5, 2.0, 3.0, 4.5, 6.5, 9.0, 13.0]
        let fsr = ChannelCalibration.curve(try ForceCurve(zip(raws, newtons).map { (raw: $0, newtons: $1) }))
        let calibration = try PanelCalibration([(slot: 0, calibration: falling), (slot: 1, calibration: fsr)], layout: layout)
        let pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(ClassifierSettings(sensitivity: .medium), sampleRateHz: 860),
                                     timestampSlot: nil)
        return (pipeline, [falling, fsr])
    }

    /// Every 16-bit code as `T`, in four orders: rising, falling, shuffled
    /// (by `rng`) and jumping (each scan of a column far from the one before),
    /// the last with the far ends of a `T` and the curves' points about zero.
    static func codeOrders<T: FixedWidthInteger & SignedInteger>(_: T.Type, rng: inout SplitMix) -> [[T]] {
        let codes = (T(Int16.min)...T(Int16.max)).map { $0 }
        var shuffled = codes
        for k in stride(from: shuffled.count - 1, to: 0, by: -1) { shuffled.swapAt(k, Int(rng.next() % UInt64(k + 1))) }
        var jumping: [T] = []
        for k in 0..<codes.count { jumping.append(k % 2 == 0 ? codes[k / 2] : codes[codes.count - 1 - k / 2]) }
        jumping += [T.min, T.max, T.min + 1, 0, T.max - 1, -1, 32_766, 32_765, -200, -199, -201, 20_001, 20_000, -30_000, -30_001, 1]
        return [codes, Array(codes.reversed()), shuffled, jumping]
    }

    @Test("A curve column gives the scan step's newtons bit for bit on every 16-bit code, in columns rising, falling, shuffled and jumping")
    func curveColumnMatchesLookup() throws {
        let (pipeline, curves) = try Self.curvePipeline()
        var decode = pipeline._decode
        var rng = SplitMix(seed: 43)
        var checked = 0
        for order in Self.codeOrders(Int64.self, rng: &rng) {
            for i in 0..<2 {
                let d = decode.decoders[i]
                var start = 0
                while start + 16 <= order.count {
                    var raws = InlineArray<16, Int64>(repeating: 0)
                    for k in 0..<16 { raws[k] = order[start + k] }
                    var newtons = InlineArray<16, Float>(repeating: .nan)
                    decode._curveColumn(first: Int(d.curveFirst), last: Int(d.curveLast), &raws, into: &newtons)
                    for k in 0..<16 {
                        let expected = decode._curve(i, raws[k])
                        if newtons[k].bitPattern != expected.bitPattern || expected.bitPattern != curves[i].newtons(forRaw: raws[k]).bitPattern {
                            Issue.record("channel \(i), raw \(raws[k]): column \(newtons[k]), lookup \(expected)")
                            return
                        }
                        checked += 1
                    }
                    start += 16
                }
            }
        }
        #expect(checked == 2 * (4 * 65_536 + 16))
    }

    @Test("A curve column in 32-bit lanes gives the scan step's newtons bit for bit: every 16-bit code, columns on one segment, across a point, at rest about the first point, and jumping")
    func curveLanesMatchLookup() throws {
        let (pipeline, _) = try Self.curvePipeline()
        var decode = pipeline._decode
        var rng = SplitMix(seed: 47)
        var orders = Self.codeOrders(Int32.self, rng: &rng)
        // Noisy columns about each point of both curves (a reading at rest
        // about the first, a press about a point): one segment, two, or at
        // and below the first point.
        for i in 0..<2 {
            let d = decode.decoders[i]
            for p in Int(d.curveFirst)...Int(d.curveLast) {
                let point = Int32(decode.curveRaw[p])
                for spread in [3, 40, 900] as [Int32] {
                    orders.append((0..<(16 * 40)).map { _ in point &+ Int32(truncatingIfNeeded: Int64(rng.next() % UInt64(2 * spread + 1))) - spread })
                }
            }
        }
        var checked = 0, inLanes = 0
        for order in orders {
            for i in 0..<2 {
                let d = decode.decoders[i]
                var start = 0
                while start + 16 <= order.count {
                    var now = SIMD16<Int32>()
                    for k in 0..<16 { now[k] = order[start + k] }
                    if decode._curveSegment(first: Int(d.curveFirst), last: Int(d.curveLast), now) != nil { inLanes += 1 }
                    let newtons = decode._curveLanes(first: Int(d.curveFirst), last: Int(d.curveLast), now)
                    for k in 0..<16 {
                        let expected = decode._curve(i, Int64(now[k]))
                        if newtons[k].bitPattern != expected.bitPattern {
                            Issue.record("channel \(i), raw \(now[k]) in \(now): lanes \(newtons[k]), lookup \(expected)")
                            return
                        }
                        checked += 1
                    }
                    start += 16
                }
            }
        }
        #expect(checked == orders.map { $0.count / 16 * 16 * 2 }.reduce(0, +))
        // Most columns in lanes (the consecutive codes and the noisy ones), not all (the shuffled, the jumping).
        #expect(inLanes > checked / 16 / 3 && inLanes < checked / 16 - 8_000, "\(inLanes) of \(checked / 16) columns in lanes")
    }
}
