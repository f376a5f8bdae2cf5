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
                    column.withUnsafeMutableBufferPointer { decoder.column32(raw.baseAddress!, stride: stride, into: $0.baseAddress!) }
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
}
