import CIIO
import Foundation
import TestSupport
import Testing
import ForceStageCore

/// libiio's own `iio_channel_convert` is the judge of the decoder: a context
/// built from XML describes channels of every format class, and random bytes
/// (padding bits included) must decode to what libiio makes of them.
@Suite("Decoder against libiio")
struct DecoderOracleTests {
    /// Every format class: both byte orders, both signs, each storage size,
    /// real bits from 1 to the storage size, with and without shift.
    static let formats: [String] = {
        var list: [String] = []
        for storage in [8, 16, 32, 64] {
            for endian in ["le", "be"] {
                for sign in ["s", "u"] {
                    var shapes: Set<[Int]> = [[storage, 0], [1, 0], [1, storage - 1], [storage / 2, storage / 4],
                                              [storage - 1, 1], [storage / 2 + 1, 0]]
                    if storage >= 16 { shapes.insert([12, storage - 12]) }
                    if storage >= 32 { shapes.insert([24, 8]); shapes.insert([24, 0]); shapes.insert([18, 6]) }
                    if storage == 64 { shapes.insert([63, 1]); shapes.insert([40, 20]) }
                    for s in shapes.sorted(by: { $0.lexicographicallyPrecedes($1) }) where s[0] + s[1] <= storage {
                        list.append("\(endian):\(sign)\(s[0])/\(storage)>>\(s[1])")
                    }
                }
            }
        }
        return list
    }()

    static func xml(_ formats: [String]) -> String {
        var x = #"<?xml version="1.0" encoding="utf-8"?><context name="xml" description="decoder oracle"><device id="iio:device0" name="oracle">"#
        for (i, f) in formats.enumerated() {
            let escaped = f.replacingOccurrences(of: ">", with: "&gt;")
            x += #"<channel id="voltage\#(i)" type="input"><scan-element index="\#(i)" format="\#(escaped)" scale="1.0" /></channel>"#
        }
        return x + "</device></context>"
    }

    @Test("iio_channel_convert and ChannelFormat.decode agree on random bytes of every format class")
    func agreesWithLibiio() throws {
        let formats = Self.formats
        #expect(formats.count > 80)
        let text = Self.xml(formats)
        let ctx = text.withCString { iio_create_xml_context_mem($0, strlen($0)) }
        try #require(ctx != nil, "libiio refused the XML context")
        defer { iio_context_destroy(ctx) }
        let dev = try #require(iio_context_find_device(ctx, "oracle"))
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for (i, f) in formats.enumerated() {
            let format = try ChannelFormat(parsing: f)
            let chn = try #require(iio_device_find_channel(dev, "voltage\(i)", false), "channel for \(f)")
            // libiio read the same format back out of the XML.
            let df = iio_channel_get_data_format(chn)!.pointee
            #expect(Int(df.length) == Int(format.storageBits) && Int(df.bits) == Int(format.realBits) && Int(df.shift) == Int(format.shift))
            #expect(df.is_signed == format.signed && df.is_be == format.bigEndian)
            let width = format.storageBytes
            var src = [UInt8](repeating: 0, count: 8)
            var dst = [UInt8](repeating: 0, count: 8)
            for _ in 0..<1500 {
                for b in 0..<8 { src[b] = UInt8.random(in: 0...255, using: &rng) }
                src.withUnsafeBytes { s in dst.withUnsafeMutableBytes { d in iio_channel_convert(chn, d.baseAddress, s.baseAddress) } }
                let expected: Int64 = dst.withUnsafeBytes { d in
                    switch (width, format.signed) {
                    case (1, true): return Int64(d.load(as: Int8.self))
                    case (1, false): return Int64(d.load(as: UInt8.self))
                    case (2, true): return Int64(d.load(as: Int16.self))
                    case (2, false): return Int64(d.load(as: UInt16.self))
                    case (4, true): return Int64(d.load(as: Int32.self))
                    case (4, false): return Int64(d.load(as: UInt32.self))
                    default: return d.load(as: Int64.self)
                    }
                }
                let ours = src.withUnsafeBytes { format.decode($0.baseAddress!) }
                #expect(ours == expected, "\(f) on bytes \(src.prefix(width)): libiio \(expected), ForceStage \(ours)")
                checked += 1
            }
        }
        #expect(checked == formats.count * 1500)
    }
}
