/// The one reading of a number typed by a person or a client (command-line
/// values, socket commands): decimal only, finite.
///
/// Swift's `Double(String)` also reads hexadecimal (`0x10`, `0x1p4`), `inf`,
/// `infinity` and `nan`, and turns `1e400` into infinity; none of those is a
/// number the docs promise, so each is refused here rather than taken as 16,
/// infinity or nothing.
public enum DecimalNumber {
    /// The longest text read (a sign, digits, a point, an exponent); longer is refused unread.
    public static let maximumLength = 64

    /// `text` as a finite `Double` when it is `[+-]digits[.digits][e[+-]digits]` (or `.digits`
    /// for the whole part), else `nil`.
    public static func parse<S: StringProtocol>(_ text: S) -> Double? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return nil }
        var i = 0
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        func digits() -> Int {
            let start = i
            while i < bytes.count && isDigit(bytes[i]) { i += 1 }
            return i - start
        }
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var mantissa = digits()
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            i += 1
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == bytes.count, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Why a command-line value was refused; both programs' parsers print it after
    /// "The value 'X' is invalid for '--flag <V>': ".
    public static let refusal = "not a decimal number (digits with an optional point and exponent, e.g. 2.5 or 1e3)"

    /// A command-line value that is not decimal: ``refusal`` is its description.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String { DecimalNumber.refusal }
    }

    /// swift-argument-parser's transform for a `Double` option: ``parse(_:)`` or ``Refusal``.
    @Sendable public static func argument(_ text: String) throws -> Double {
        guard let value = parse(text) else { throw Refusal() }
        return value
    }

    /// Whether `bytes` read as a decimal number (``parse(_:)``).
    public static func parse(bytes: some Collection<UInt8>) -> Double? {
        guard bytes.count <= maximumLength else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self))
    }
}
