import ForceStageCore
import Testing

/// The synthesizer writes scans with `ChannelFormat.encode`; these pin the
/// encoding of the supported panels' formats against hand-computed bytes.
@Suite("ChannelFormat.encode for the synthesized panels")
struct ChannelFormatEncodeTests {
    @Test("encode writes the kernel's bytes and decode reads them back",
          arguments: [
              ("le:u24/32>>0", Int64(0xFF_FFFF), [UInt8]([0xFF, 0xFF, 0xFF, 0x00])),
              ("le:u24/32>>0", Int64(8_388_608), [0x00, 0x00, 0x80, 0x00]),
              ("le:s16/16>>0", Int64(-32768), [0x00, 0x80]),
              ("le:s16/16>>0", Int64(32767), [0xFF, 0x7F]),
              ("be:s24/32>>8", Int64(-2), [0xFF, 0xFF, 0xFE, 0x00]),
              ("be:s24/32>>8", Int64(8_388_607), [0x7F, 0xFF, 0xFF, 0x00]),
          ])
    func roundTrip(format text: String, value: Int64, bytes: [UInt8]) throws {
        let format = try ChannelFormat(parsing: Array(text.utf8))
        var buffer = [UInt8](repeating: 0xAA, count: bytes.count)
        buffer.withUnsafeMutableBytes { format.encode(value, to: $0.baseAddress!) }
        #expect(buffer == bytes)
        let back = buffer.withUnsafeBytes { format.decode($0.baseAddress!) }
        #expect(back == value)
    }
}
