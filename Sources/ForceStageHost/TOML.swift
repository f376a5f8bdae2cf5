/// A value read from a TOML file, with the line it was on.
public indirect enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])

    /// The value as a number, integer or float.
    public var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .float(let d): return d
        default: return nil
        }
    }
}

/// One `[table]` or `[[array]]` element: keys in file order, each with its line.
public struct TOMLTable: Sendable {
    public var name: String
    public var line: Int
    public var entries: [(key: String, value: TOMLValue, line: Int)] = []
    /// For array values: the line each top-level item starts on, by key (a
    /// multi-line curve's errors name the bad point's line, not the key's).
    public var itemLines: [String: [Int]] = [:]

    public subscript(key: String) -> (value: TOMLValue, line: Int)? {
        entries.first { $0.key == key }.map { ($0.value, $0.line) }
    }
}

/// The subset of TOML that profiles use: comments, `[table]`, `[[array of
/// tables]]`, `key = value` with basic strings, integers, floats, booleans and
/// (nested, multi-line) arrays. Errors carry the line.
public struct TOMLDocument: Sendable {
    /// Keys before the first table header.
    public var root: TOMLTable
    /// `[name]` tables.
    public var tables: [TOMLTable] = []
    /// `[[name]]` elements, in order.
    public var arrays: [TOMLTable] = []

    public struct ParseError: Error, Equatable {
        public var line: Int
        public var message: String
    }

    public func table(_ name: String) -> TOMLTable? { tables.first { $0.name == name } }
    public func array(_ name: String) -> [TOMLTable] { arrays.filter { $0.name == name } }

    public init(parsing text: String) throws(ParseError) {
        root = TOMLTable(name: "", line: 1)
        var parser = Parser(Array(text.utf8))
        var current: (kind: Int, index: Int) = (0, 0)  // 0 root, 1 table, 2 array
        while true {
            parser.skipBlankAndComments()
            guard let c = parser.peek() else { break }
            let line = parser.line
            if c == UInt8(ascii: "[") {
                parser.advance()
                let isArray = parser.peek() == UInt8(ascii: "[")
                if isArray { parser.advance() }
                let name = try parser.bareKey()
                guard parser.take("]"), !isArray || parser.take("]") else {
                    throw ParseError(line: line, message: "a table header must look like [name] or [[name]]")
                }
                try parser.endOfLine()
                if isArray {
                    arrays.append(TOMLTable(name: name, line: line))
                    current = (2, arrays.count - 1)
                } else {
                    if tables.contains(where: { $0.name == name }) {
                        throw ParseError(line: line, message: "table [\(name)] is defined twice")
                    }
                    tables.append(TOMLTable(name: name, line: line))
                    current = (1, tables.count - 1)
                }
                continue
            }
            let key = try parser.bareKey()
            parser.skipSpaces()
            guard parser.take("=") else { throw ParseError(line: line, message: "expected `=` after key \(key)") }
            parser.skipSpaces()
            var lines: [Int] = []
            let value = try parser.value(itemLines: &lines)
            try parser.endOfLine()
            func add(_ t: inout TOMLTable) throws(ParseError) {
                if t[key] != nil { throw ParseError(line: line, message: "key \(key) is set twice") }
                t.entries.append((key, value, line))
                if case .array = value { t.itemLines[key] = lines }
            }
            switch current.kind {
            case 0: try add(&root)
            case 1: try add(&tables[current.index])
            default: try add(&arrays[current.index])
            }
        }
    }

    struct Parser {
        let bytes: [UInt8]
        var i = 0
        var line = 1

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }
        mutating func advance() {
            if bytes[i] == UInt8(ascii: "\n") { line += 1 }
            i += 1
        }
        mutating func take(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= bytes.count, Array(bytes[i..<i + u.count]) == u else { return false }
            for _ in u { advance() }
            return true
        }
        mutating func skipSpaces() {
            while let c = peek(), c == 32 || c == 9 { advance() }
        }
        mutating func skipComment() {
            if peek() == UInt8(ascii: "#") { while let c = peek(), c != 10 { advance() } }
        }
        mutating func skipBlankAndComments() {
            while let c = peek() {
                if c == 32 || c == 9 || c == 10 || c == 13 { advance() }
                else if c == UInt8(ascii: "#") { skipComment() }
                else { break }
            }
        }
        mutating func endOfLine() throws(ParseError) {
            skipSpaces()
            skipComment()
            if peek() == 13 { advance() }
            guard peek() == nil || peek() == 10 else {
                throw ParseError(line: line, message: "unexpected text after the value; one key = value per line")
            }
        }
        mutating func bareKey() throws(ParseError) -> String {
            skipSpaces()
            let start = i
            while let c = peek(), (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 45 || c == 46 {
                advance()
            }
            guard i > start else { throw ParseError(line: line, message: "expected a key (letters, digits, _ or -)") }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
        mutating func value() throws(ParseError) -> TOMLValue {
            var ignored: [Int] = []
            return try value(itemLines: &ignored)
        }

        /// A value; for an array, `itemLines` gets the line each item starts on.
        mutating func value(itemLines: inout [Int], depth: Int = 0) throws(ParseError) -> TOMLValue {
            guard let c = peek() else { throw ParseError(line: line, message: "expected a value") }
            guard depth < Limits.maximumNesting else {
                throw ParseError(line: line, message: "arrays nested deeper than \(Limits.maximumNesting) levels")
            }
            if c == UInt8(ascii: "\"") { return .string(try string()) }
            if c == UInt8(ascii: "[") {
                advance()
                var items: [TOMLValue] = []
                while true {
                    skipBlankAndComments()
                    if take("]") { return .array(items) }
                    itemLines.append(line)
                    var ignored: [Int] = []
                    items.append(try value(itemLines: &ignored, depth: depth + 1))
                    skipBlankAndComments()
                    if take(",") { continue }
                    skipBlankAndComments()
                    guard take("]") else { throw ParseError(line: line, message: "expected `,` or `]` in an array") }
                    return .array(items)
                }
            }
            if take("true") { return .bool(true) }
            if take("false") { return .bool(false) }
            let start = i
            while let d = peek(), (d >= 48 && d <= 57) || d == 43 || d == 45 || d == 46 || d == 95 || d == 101 || d == 69 {
                advance()
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self).replacingUnderscores()
            if text.isEmpty { throw ParseError(line: line, message: "expected a value: a \"string\", number, true/false or [array]") }
            if !text.contains(".") && !text.contains("e") && !text.contains("E"), let n = Int64(text) { return .integer(n) }
            if let d = Double(text), d.isFinite { return .float(d) }
            throw ParseError(line: line, message: "\(text) is not a number")
        }
        mutating func string() throws(ParseError) -> String {
            advance()
            var out: [UInt8] = []
            while let c = peek() {
                if c == 10 { break }
                advance()
                if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if c == UInt8(ascii: "\\") {
                    guard let e = peek() else { break }
                    advance()
                    switch e {
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "t"): out.append(9)
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(e)
                    default: throw ParseError(line: line, message: "unknown escape \\\(Character(Unicode.Scalar(e)))")
                    }
                } else {
                    out.append(c)
                }
            }
            throw ParseError(line: line, message: "unterminated string; close it with \" on the same line")
        }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
