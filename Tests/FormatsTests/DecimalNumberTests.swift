import Testing
import ForceStageFormats

/// Numbers typed on a command line or a socket: decimal only, finite.
@Suite("Decimal numbers")
struct DecimalNumberTests {
    @Test("decimal spellings read as Double reads them", arguments: [
        "60", "0.5", ".5", "5.", "+2.5", "-1", "1e3", "2.5E-2", "0012", "1000",
    ])
    func accepted(text: String) {
        #expect(DecimalNumber.parse(text) == Double(text), "\(text)")
    }

    @Test("hexadecimal, infinities, NaN, overflow, blanks and junk are refused where Double takes the first four", arguments: [
        "0x10", "0X10", "-0x10", "0x1p4", "inf", "-inf", "infinity", "nan", "NaN", "1e400", "-1e999",
        "", " 5", "5 ", "1_000", "1e", "e3", ".", "+", "1.2.3", "5e+", "0x", "١٢",
    ])
    func refused(text: String) {
        #expect(DecimalNumber.parse(text) == nil, "\(text) read as \(String(describing: DecimalNumber.parse(text)))")
    }

    @Test("Swift's own reading takes the forms refused here, so the refusal is this type's doing")
    func doubleTakesThem() {
        for text in ["0x10", "inf", "nan", "1e400"] { #expect(Double(text) != nil, "\(text)") }
    }

    @Test("longer than the limit is refused unread")
    func tooLong() {
        let long = "1" + String(repeating: "0", count: DecimalNumber.maximumLength)
        #expect(DecimalNumber.parse(long) == nil)
        #expect(DecimalNumber.parse(String(repeating: "1", count: DecimalNumber.maximumLength)) != nil)
    }
}
