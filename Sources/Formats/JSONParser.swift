/// A strict JSON reader (RFC 8259) into ``JSON``: strings must be UTF-8, duplicate object keys are an
/// error naming the key, nesting is bounded, numbers that overflow a Double
/// are rejected, and every error carries the line.
public struct JSONParseError: Error, Equatable, Sendable {
    public var line: Int
    public var message: String
}

extension JSON {
    /// Deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 64

    /// Parses one JSON value filling the whole text.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        var p = JSONReader(bytes: bytes)
        p.skipSpace()
        let value = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.error("unexpected text after the value") }
        return value
    }

    /// The members of an object, nil for other values.
    public var members: [(String, JSON)]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// An object's member `key` (the first, as keys are unique once parsed), nil otherwise.
    public subscript(key: String) -> JSON? {
        members?.first { $0.0 == key }?.1
    }

    /// A number as a Double, nil for other values.
    public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// A whole number (an integer, or a double with no fraction in range), nil otherwise.
    public var integer: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d): return d == d.rounded() && abs(d) < 9e15 ? Int64(d) : nil
        default: return nil
        }
    }

    /// A string's text, nil for other values.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An array's elements, nil for other values.
    public var elements: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A scalar for people: a string as it is, a number as ``format(_:)`` writes it,
    /// `true`/`false`/`null`; arrays and objects as compact JSON.
    public var displayText: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return JSON.format(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array, .object: return rendered()
        }
    }

    /// Parses UTF-8 text (a status line, a small description file).
    public static func parse(_ text: String) throws(JSONParseError) -> JSON { try parse(Array(text.utf8)) }
}

struct JSONReader {
    let bytes: [UInt8]
    var i = 0
    var line = 1

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> JSONParseError { JSONParseError(line: line, message: message) }

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A: i += 1; line += 1
            default: return
            }
        }
    }

    mutating func expect(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        let p = word.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { return false }
        i += n
        return true
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSON {
        guard i < bytes.count else { throw error("unexpected end of the text; a value is missing") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            guard depth < JSON.maximumDepth else { throw error("nested deeper than \(JSON.maximumDepth) levels") }
            i += 1
            var members: [(String, JSON)] = []
            var keys = Set<String>()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a \"key\" in an object") }
                let keyLine = line
                let key = try string()
                guard keys.insert(key).inserted else {
                    throw JSONParseError(line: keyLine, message: "key \"\(key)\" appears twice in one object")
                }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected `:` after key \"\(key)\"") }
                i += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end of the text inside an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw error("expected `,` or `}` in an object")
            }
        case UInt8(ascii: "["):
            guard depth < JSON.maximumDepth else { throw error("nested deeper than \(JSON.maximumDepth) levels") }
            i += 1
            var items: [JSON] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end of the text inside an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw error("expected `,` or `]` in an array")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            if expect("true") { return .bool(true) }
        case UInt8(ascii: "f"):
            if expect("false") { return .bool(false) }
        case UInt8(ascii: "n"):
            if expect("null") { return .null }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            break
        }
        throw error("expected a value (object, array, string, number, true, false or null)")
    }

    mutating func digits() -> Int {
        let start = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
        return i - start
    }

    mutating func number() throws(JSONParseError) -> JSON {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        let intStart = i
        let intDigits = digits()
        guard intDigits > 0 else { throw error("a number needs digits after `-`") }
        if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") { throw error("a number must not start with 0 (leading zeros)") }
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            isInteger = false
            guard digits() > 0 else { throw error("a number needs digits after `.`") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            isInteger = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if isInteger, let n = Int64(text) { return .int(n) }
        guard let d = Double(text), d.isFinite else { throw error("\(text) does not fit a 64-bit floating-point number") }
        return .double(d)
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("\\u needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("\\u needs four hex digits")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONParseError) -> String {
        i += 1  // the opening quote
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                // JSON text is UTF-8 (RFC 8259 section 8.1): a string with other bytes is refused, not repaired.
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw error("a string holds bytes that are not UTF-8")
                }
                return text
            }
            if c < 0x20 { throw error("a control character (0x\(String(c, radix: 16))) inside a string; escape it") }
            i += 1
            guard c == UInt8(ascii: "\\") else { out.append(c); continue }
            guard i < bytes.count else { break }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard expect("\\u") else { throw error("a lone UTF-16 surrogate in \\u escape") }
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("a lone UTF-16 surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw error("a lone UTF-16 surrogate in \\u escape")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw error("unknown escape \\\(Character(Unicode.Scalar(e))) in a string")
            }
        }
        throw error("unterminated string")
    }
}
