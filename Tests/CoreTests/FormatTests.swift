import Testing
import ForceStageCore

@Suite("Channel formats and scan layout")
struct FormatTests {
    @Test("Parses the kernel's text, either sign case", arguments: [
        ("le:u24/32>>0", false, false, 24, 32, 0),
        ("le:s16/16>>0", false, true, 16, 16, 0),
        ("le:S16/16>>0", false, true, 16, 16, 0),
        ("be:s24/32>>8", true, true, 24, 32, 8),
        ("le:s12/16>>4", false, true, 12, 16, 4),
        ("be:U64/64>>0", true, false, 64, 64, 0),
        ("le:u1/8>>7", false, false, 1, 8, 7),
    ])
    func parses(text: String, be: Bool, signed: Bool, real: Int, storage: Int, shift: Int) throws {
        let f = try ChannelFormat(parsing: text)
        #expect(f.bigEndian == be && f.signed == signed)
        #expect(Int(f.realBits) == real && Int(f.storageBits) == storage && Int(f.shift) == shift)
        #expect(f.text == text.lowercased())
    }

    @Test("Refuses malformed and impossible formats", arguments: [
        ("", FormatError.malformed), ("xe:s16/16>>0", .malformed), ("le:q16/16>>0", .malformed),
        ("le:s16/16", .malformed), ("le:s16/16>>0 ", .malformed), ("le:s16-16>>0", .malformed),
        ("le:s16/24>>0", .unsupportedStorageBits(24)), ("le:s0/16>>0", .realBitsOutOfRange(0)),
        ("le:s17/16>>0", .realBitsOutOfRange(17)), ("le:s16/32>>17", .shiftOutOfRange(17)),
        ("le:s16/16X2>>0", .repeatUnsupported),
    ])
    func refuses(text: String, error: FormatError) {
        #expect(throws: error) { try ChannelFormat(parsing: text) }
    }

    @Test("The three layouts of the spec")
    func specLayouts() throws {
        let ts = try ChannelFormat(parsing: "le:s64/64>>0")
        let hx = try ScanLayout([(index: 2, format: ts), (index: 0, format: try ChannelFormat(parsing: "le:u24/32>>0"))])
        #expect(hx.scanSize == 16 && hx[0].offset == 0 && hx[1].offset == 8 && hx[1].index == 2)
        let ads = try ScanLayout([(index: 4, format: try ChannelFormat(parsing: "le:s16/16>>0")), (index: 8, format: ts)])
        #expect(ads.scanSize == 16 && ads[0].offset == 0 && ads[1].offset == 8)
        let cell = try ChannelFormat(parsing: "be:s24/32>>8")
        let four = try ScanLayout([(0, cell), (1, cell), (2, cell), (3, cell), (4, ts)].map { (index: $0.0, format: $0.1) })
        #expect(four.scanSize == 24)
        #expect((0..<5).map { four[$0].offset } == [0, 4, 8, 12, 16])
    }

    @Test("Alignment pads a small channel after a large one and rounds the scan up")
    func padding() throws {
        let u8 = try ChannelFormat(parsing: "le:u8/8>>0")
        let s32 = try ChannelFormat(parsing: "le:s32/32>>0")
        let l = try ScanLayout([(index: 0, format: u8), (index: 1, format: s32), (index: 2, format: u8)])
        #expect([l[0].offset, l[1].offset, l[2].offset] == [0, 4, 8])
        #expect(l.scanSize == 12)
        #expect(l.slot(forIndex: 2) == 2 && l.slot(forIndex: 5) == nil)
    }

    @Test("Duplicate, out-of-range and too many channels are refused")
    func layoutErrors() throws {
        let f = try ChannelFormat(parsing: "le:s16/16>>0")
        #expect(throws: LayoutError.duplicateIndex(3)) { try ScanLayout([(index: 3, format: f), (index: 3, format: f)]) }
        #expect(throws: LayoutError.indexOutOfRange(-1)) { try ScanLayout([(index: -1, format: f)]) }
        #expect(throws: LayoutError.empty) { try ScanLayout([(index: Int, format: ChannelFormat)]()) }
        #expect(throws: LayoutError.tooManyChannels(17)) { try ScanLayout((0..<17).map { (index: $0, format: f) }) }
    }

    @Test("encode is the inverse of decode over each format's range")
    func roundTrip() throws {
        var rng = SystemRandomNumberGenerator()
        for text in ["le:u24/32>>0", "be:s24/32>>8", "le:s12/16>>4", "le:s16/16>>0", "be:u10/16>>6", "le:s64/64>>0", "be:u7/8>>1"] {
            let f = try ChannelFormat(parsing: text)
            var bytes = [UInt8](repeating: 0, count: 8)
            for _ in 0..<2000 {
                let v = Int64.random(in: f.minimumRaw...f.maximumRaw, using: &rng)
                bytes.withUnsafeMutableBytes { f.encode(v, to: $0.baseAddress!) }
                let back = bytes.withUnsafeBytes { f.decode($0.baseAddress!) }
                #expect(back == v, "\(text): \(v) came back as \(back)")
            }
        }
    }

    @Test("A format is its five stated fields, so a layout of 16 channels stays small")
    func formatSize() throws {
        // A scan layout holds 16 formats, and a pipeline holds the layout
        // and a format per decoder: on a board these are RAM and the stack
        // that configuring takes. Mask and sign shift follow from realBits.
        #expect(MemoryLayout<ChannelFormat>.size == 5)
        #expect(MemoryLayout<ScanLayout>.size <= 16 * 3 * MemoryLayout<Int>.size + 2 * MemoryLayout<Int>.size)
    }
}
