// Over 300 lines: a complete TOML 1.0 reader (lexer, values, tables, errors with lines); split, its parts would only call each other.
/// A value read from a TOML file.
public indirect enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])
    /// An offset or local date-time, date or time, as written (validated).
    case datetime(String)
    /// An inline table, or a table given as a value inside an array.
    case table([String: TOMLValue])

    /// The value as a number, integer or float.
    public var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .float(let d): return d
        default: return nil
        }
    }
}

/// One table (`[name]`, a dotted-key or inline table) or one `[[array]]`
/// element, flattened: its non-table keys in file order, each with its line.
public struct TOMLTable: Sendable {
    /// The dotted name (`levels`, `a.b`).
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

/// A TOML 1.0 document (https://toml.io/en/v1.0.0): every syntax of the
/// spec is read and everything the spec calls invalid is refused with the
/// line: duplicate keys and tables, leading zeros, bare `.5`/`5.`, bad
/// underscores, control characters, floats that overflow, invalid dates.
/// Nesting is bounded by ``Limits/maximumNesting``.
///
/// The result is flattened for readers of a fixed schema, by value, not by
/// the syntax that wrote it: `root` holds the top-level keys that are not
/// tables; `tables` every table by dotted name (`[name]`, `name.key = ...` or
/// `name = { ... }`); `arrays` every element of an array of tables in order
/// (`[[name]]` tables or `name = [{ ... }, ...]`). `value` is the whole document.
public struct TOMLDocument: Sendable {
    public var root: TOMLTable
    public var tables: [TOMLTable] = []
    public var arrays: [TOMLTable] = []
    /// Every top-level key and its value, tables included.
    public var value: [String: TOMLValue] = [:]

    public struct ParseError: Error, Equatable {
        public var line: Int
        public var message: String
    }

    public func table(_ name: String) -> TOMLTable? { tables.first { $0.name == name } }
    public func array(_ name: String) -> [TOMLTable] { arrays.filter { $0.name == name } }

    public init(parsing text: String) throws(ParseError) {
        var parser = TOMLParser(Array(text.utf8))
        let top = try parser.document()
        root = TOMLTable(name: "", line: 1)
        var top_ = TOMLTable(name: "", line: 1)
        TOMLDocument.flatten(top, name: "", into: &self, table: &top_)
        root = top_
        if case .table(let all) = top.value { value = all }
    }

    /// Copies `node`'s plain keys into `table` and its sub-tables into `tables`/`arrays`.
    private static func flatten(_ node: TOMLNode, name: String, into doc: inout TOMLDocument, table: inout TOMLTable) {
        for entry in node.entries {
            let path = name.isEmpty ? entry.key : "\(name).\(entry.key)"
            switch entry.item {
            case .value(_, _, let elements) where !elements.isEmpty:
                // An array of inline tables is the same value as `[[path]]` tables.
                flatten(elements: elements, name: path, into: &doc)
            case .value(let v, let lines, _):
                table.entries.append((entry.key, v, entry.line))
                if case .array = v { table.itemLines[entry.key] = lines }
            case .table(let child):
                var t = TOMLTable(name: path, line: child.line)
                let index = doc.tables.count
                doc.tables.append(t)
                flatten(child, name: path, into: &doc, table: &t)
                doc.tables[index] = t
            case .tableArray(let elements):
                flatten(elements: elements, name: path, into: &doc)
            }
        }
    }

    /// Appends each element of an array of tables to `arrays`, its sub-tables after it.
    private static func flatten(elements: [TOMLNode], name: String, into doc: inout TOMLDocument) {
        for element in elements {
            var t = TOMLTable(name: name, line: element.line)
            let index = doc.arrays.count
            doc.arrays.append(t)
            flatten(element, name: name, into: &doc, table: &t)
            doc.arrays[index] = t
        }
    }
}

/// A table while parsing: reference semantics so headers can reopen it.
final class TOMLNode {
    enum Origin { case header, implicit, dotted, inline }
    enum Item {
        /// `elements`: the tables of an array written as inline tables only (`[{...}, {...}]`), else empty.
        case value(TOMLValue, itemLines: [Int], elements: [TOMLNode])
        case table(TOMLNode)
        case tableArray([TOMLNode])
    }
    var origin: Origin
    var line: Int
    var entries: [(key: String, item: Item, line: Int)] = []
    var index: [String: Int] = [:]

    init(_ origin: Origin, line: Int) {
        self.origin = origin
        self.line = line
    }

    subscript(key: String) -> Item? { index[key].map { entries[$0].item } }

    func set(_ key: String, _ item: Item, line: Int) {
        if let i = index[key] { entries[i].item = item; return }
        index[key] = entries.count
        entries.append((key, item, line))
    }

    /// The table as a plain value (for inline tables inside arrays).
    var value: TOMLValue {
        var d: [String: TOMLValue] = [:]
        for e in entries {
            switch e.item {
            case .value(let v, _, _): d[e.key] = v
            case .table(let t): d[e.key] = t.value
            case .tableArray(let ts): d[e.key] = .array(ts.map { $0.value })
            }
        }
        return .table(d)
    }

    /// Marks this table and every table under it as frozen (inline).
    func freeze() {
        origin = .inline
        for e in entries {
            if case .table(let t) = e.item { t.freeze() }
        }
    }
}

struct TOMLParser {
    typealias ParseError = TOMLDocument.ParseError
    let bytes: [UInt8]
    var i = 0
    var line = 1

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> ParseError { ParseError(line: line, message: message) }

    func peek(_ offset: Int = 0) -> UInt8? { i + offset < bytes.count ? bytes[i + offset] : nil }

    mutating func advance() {
        if bytes[i] == 10 { line += 1 }
        i += 1
    }

    mutating func take(_ c: UInt8) -> Bool {
        guard peek() == c else { return false }
        advance()
        return true
    }

    static func isBare(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 45
    }

    static func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 48 && $0 <= 57 } ?? false }

    mutating func skipSpaces() {
        while let c = peek(), c == 32 || c == 9 { i += 1 }
    }

    /// A comment to the end of the line; control characters other than tab are invalid.
    mutating func skipComment() throws(ParseError) {
        guard peek() == UInt8(ascii: "#") else { return }
        while let c = peek(), c != 10 {
            if c == 13 && peek(1) == 10 { break }
            if (c < 0x20 && c != 9) || c == 0x7F { throw error("a control character (0x\(String(c, radix: 16))) in a comment") }
            i += 1
        }
    }

    /// A newline (LF or CRLF) or the end of the text.
    mutating func newlineOrEnd() throws(ParseError) {
        skipSpaces()
        try skipComment()
        if peek() == nil { return }
        if peek() == 13 && peek(1) == 10 { i += 1 }
        guard take(10) else { throw error("unexpected text after the value; one key = value per line") }
    }

    /// Blank lines, comments and newlines (inside arrays too).
    mutating func skipBlank() throws(ParseError) {
        while let c = peek() {
            if c == 32 || c == 9 || c == 10 { advance() }
            else if c == 13 && peek(1) == 10 { i += 1 }
            else if c == UInt8(ascii: "#") { try skipComment() }
            else { break }
        }
    }

    // MARK: Document

    mutating func document() throws(ParseError) -> TOMLNode {
        let root = TOMLNode(.header, line: 1)
        var current = root
        while true {
            try skipBlank()
            guard let c = peek() else { return root }
            let startLine = line
            if c == UInt8(ascii: "[") {
                advance()
                let isArray = take(UInt8(ascii: "["))
                skipSpaces()
                let path = try key()
                skipSpaces()
                guard take(UInt8(ascii: "]")), !isArray || take(UInt8(ascii: "]")) else {
                    throw error(isArray ? "an array-of-tables header must end with ]]" : "a table header must end with ]")
                }
                try newlineOrEnd()
                current = try open(path, in: root, array: isArray, line: startLine)
            } else {
                try keyValue(into: current, depth: 0)
                try newlineOrEnd()
            }
        }
    }

    /// Finds or creates the table a `[path]` or `[[path]]` header names.
    mutating func open(_ path: [String], in root: TOMLNode, array: Bool, line: Int) throws(ParseError) -> TOMLNode {
        var node = root
        let shown = path.joined(separator: ".")
        for (n, k) in path.enumerated() {
            let last = n == path.count - 1
            switch node[k] {
            case nil:
                if last && array {
                    let element = TOMLNode(.header, line: line)
                    node.set(k, .tableArray([element]), line: line)
                    return element
                }
                let child = TOMLNode(last ? .header : .implicit, line: line)
                node.set(k, .table(child), line: line)
                node = child
            case .table(let child):
                if child.origin == .inline { throw ParseError(line: line, message: "[\(shown)]: \(k) is an inline table, which cannot be extended") }
                if last {
                    if array { throw ParseError(line: line, message: "[[\(shown)]]: \(shown) is already a table") }
                    switch child.origin {
                    case .header: throw ParseError(line: line, message: "table [\(shown)] is defined twice")
                    case .dotted: throw ParseError(line: line, message: "table [\(shown)] was already defined by dotted keys")
                    default: child.origin = .header
                    }
                }
                node = child
            case .tableArray(let elements):
                if last {
                    guard array else { throw ParseError(line: line, message: "[\(shown)]: \(shown) is an array of tables; write [[\(shown)]]") }
                    let element = TOMLNode(.header, line: line)
                    node.set(k, .tableArray(elements + [element]), line: line)
                    return element
                }
                node = elements[elements.count - 1]
            case .value:
                throw ParseError(line: line, message: "[\(shown)]: key \(path[0...n].joined(separator: ".")) already holds a value")
            }
        }
        return node
    }

    /// `key = value` into `table` (dotted keys create tables on the way).
    mutating func keyValue(into table: TOMLNode, depth: Int) throws(ParseError) {
        let keyLine = line
        let path = try key()
        skipSpaces()
        guard take(UInt8(ascii: "=")) else { throw error("expected `=` after key \(path.joined(separator: "."))") }
        skipSpaces()
        var node = table
        for k in path.dropLast() {
            switch node[k] {
            case nil:
                let child = TOMLNode(.dotted, line: keyLine)
                node.set(k, .table(child), line: keyLine)
                node = child
            case .table(let child) where child.origin == .dotted:
                node = child
            default:
                throw ParseError(line: keyLine, message: "key \(path.joined(separator: ".")): \(k) is already defined and cannot be extended by dotted keys")
            }
        }
        let last = path[path.count - 1]
        guard node[last] == nil else {
            throw ParseError(line: keyLine, message: "key \(path.joined(separator: ".")) is set twice")
        }
        var itemLines: [Int] = []
        var elements: [TOMLNode] = []
        if peek() == UInt8(ascii: "{") {
            let inline = try inlineTable(depth: depth + 1)
            inline.line = keyLine
            node.set(last, .table(inline), line: keyLine)
        } else {
            let v: TOMLValue
            do { v = try value(depth: depth, itemLines: &itemLines, elements: &elements) } catch {
                // Name the key whose value is at fault (a nested key is named once, innermost).
                throw error.message.hasPrefix("key ") ? error : ParseError(line: error.line, message: "key \(path.joined(separator: ".")): \(error.message)")
            }
            node.set(last, .value(v, itemLines: itemLines, elements: elements), line: keyLine)
        }
    }

    // MARK: Keys

    /// A possibly dotted key: bare, "basic" or 'literal' parts.
    mutating func key() throws(ParseError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let c = peek() else { throw error("expected a key") }
            if c == UInt8(ascii: "\"") {
                if peek(1) == c && peek(2) == c { throw error("a key cannot be a multi-line string") }
                parts.append(try basicString())
            } else if c == UInt8(ascii: "'") {
                if peek(1) == c && peek(2) == c { throw error("a key cannot be a multi-line string") }
                parts.append(try literalString())
            } else {
                let start = i
                while let b = peek(), TOMLParser.isBare(b) { i += 1 }
                guard i > start else { throw error("expected a key (letters, digits, _ or -, or a quoted key)") }
                parts.append(String(decoding: bytes[start..<i], as: UTF8.self))
            }
            guard parts.count <= Limits.maximumNesting else { throw error("a key with more than \(Limits.maximumNesting) dotted parts") }
            skipSpaces()
            guard take(UInt8(ascii: ".")) else { return parts }
        }
    }

    // MARK: Values

    /// A value; for an array, each item's line into `itemLines` and, when every
    /// item is an inline table, those tables into `elements` (with their keys' lines).
    mutating func value(depth: Int, itemLines: inout [Int], elements: inout [TOMLNode]) throws(ParseError) -> TOMLValue {
        guard depth < Limits.maximumNesting else { throw error("arrays or inline tables nested deeper than \(Limits.maximumNesting) levels") }
        guard let c = peek() else { throw error("expected a value") }
        switch c {
        case UInt8(ascii: "\""):
            if peek(1) == c && peek(2) == c { return .string(try multilineBasicString()) }
            return .string(try basicString())
        case UInt8(ascii: "'"):
            if peek(1) == c && peek(2) == c { return .string(try multilineLiteralString()) }
            return .string(try literalString())
        case UInt8(ascii: "["):
            advance()
            var items: [TOMLValue] = []
            var tables: [TOMLNode] = []
            while true {
                try skipBlank()
                if take(UInt8(ascii: "]")) { break }
                itemLines.append(line)
                if peek() == UInt8(ascii: "{") {
                    let table = try inlineTable(depth: depth + 1)
                    tables.append(table)
                    items.append(table.value)
                } else {
                    var ignoredLines: [Int] = [], ignoredTables: [TOMLNode] = []
                    items.append(try value(depth: depth + 1, itemLines: &ignoredLines, elements: &ignoredTables))
                }
                try skipBlank()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "]")) else { throw error("expected `,` or `]` in an array") }
                break
            }
            elements = !items.isEmpty && tables.count == items.count ? tables : []
            return .array(items)
        case UInt8(ascii: "{"):
            return try inlineTable(depth: depth + 1).value
        default:
            return try scalar()
        }
    }

    /// `{ k = v, ... }` on one line, no trailing comma; frozen once read.
    mutating func inlineTable(depth: Int) throws(ParseError) -> TOMLNode {
        guard depth < Limits.maximumNesting else { throw error("arrays or inline tables nested deeper than \(Limits.maximumNesting) levels") }
        let table = TOMLNode(.dotted, line: line)
        advance()  // {
        skipSpaces()
        if take(UInt8(ascii: "}")) { table.freeze(); return table }
        while true {
            skipSpaces()
            try keyValue(into: table, depth: depth)
            skipSpaces()
            if take(UInt8(ascii: "}")) { break }
            guard take(UInt8(ascii: ",")) else { throw error("expected `,` or `}` in an inline table (which must stay on one line)") }
            skipSpaces()
            if peek() == UInt8(ascii: "}") { throw error("a trailing comma is not allowed in an inline table") }
        }
        table.freeze()
        return table
    }

    /// true, false, a number, or a date/time.
    mutating func scalar() throws(ParseError) -> TOMLValue {
        let start = i
        while let c = peek(), TOMLParser.isBare(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") { i += 1 }
        // A date followed by a space and a time is one date-time.
        if i - start == 10, peek() == 32, TOMLParser.isDigit(peek(1)), TOMLParser.isDigit(peek(2)), peek(3) == UInt8(ascii: ":"),
           bytes[start + 4] == UInt8(ascii: "-") {
            i += 1
            while let c = peek(), TOMLParser.isBare(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":") { i += 1 }
        }
        let token = Array(bytes[start..<i])
        guard !token.isEmpty else { throw error("expected a value: a string, number, true/false, date, [array] or {table}") }
        let text = String(decoding: token, as: UTF8.self)
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let v = TOMLParser.integer(token) { return .integer(v) }
        if TOMLParser.looksLikeInteger(token) { throw error("\(text) is not a valid integer (leading zeros, bad underscores, or beyond 64 bits)") }
        if let d = TOMLParser.float(token) {
            guard d.isFinite || text.hasSuffix("inf") || text.hasSuffix("nan") else { throw error("\(text) overflows a 64-bit float") }
            return .float(d)
        }
        if TOMLParser.isDateTime(token) { return .datetime(text) }
        throw error("\(text) is not a TOML value (strings need quotes; numbers like 1, 1.5, 1e3, 0x1F)")
    }

    /// Digits with single underscores between them; `digit` says which bytes count.
    static func digits(_ t: ArraySlice<UInt8>, _ digit: (UInt8) -> Bool) -> String? {
        guard let first = t.first, let last = t.last, digit(first), digit(last) else { return nil }
        var out = ""
        var previousUnderscore = false
        for c in t {
            if c == 95 {
                if previousUnderscore { return nil }
                previousUnderscore = true
                continue
            }
            guard digit(c) else { return nil }
            previousUnderscore = false
            out.unicodeScalars.append(Unicode.Scalar(c))
        }
        return out
    }

    static func isDecimal(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    static func looksLikeInteger(_ t: [UInt8]) -> Bool {
        let body = t.first == 43 || t.first == 45 ? t.dropFirst() : t[...]
        return !body.isEmpty && body.allSatisfy { isDecimal($0) || $0 == 95 } ||
            (t.count > 2 && t[0] == 48 && (t[1] == UInt8(ascii: "x") || t[1] == UInt8(ascii: "o") || t[1] == UInt8(ascii: "b")))
    }

    static func integer(_ t: [UInt8]) -> Int64? {
        if t.count > 2 && t[0] == 48 {
            let radix: Int
            let digit: (UInt8) -> Bool
            switch t[1] {
            case UInt8(ascii: "x"): radix = 16; digit = { isDecimal($0) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
            case UInt8(ascii: "o"): radix = 8; digit = { $0 >= 48 && $0 <= 55 }
            case UInt8(ascii: "b"): radix = 2; digit = { $0 == 48 || $0 == 49 }
            default: radix = 0; digit = { _ in false }
            }
            if radix != 0 {
                guard let d = digits(t[2...], digit) else { return nil }
                return Int64(d, radix: radix)
            }
        }
        var body = t[...]
        var sign = ""
        if let f = body.first, f == 43 || f == 45 {
            sign = f == 45 ? "-" : ""
            body = body.dropFirst()
        }
        guard let d = digits(body, isDecimal) else { return nil }
        if d.count > 1 && d.hasPrefix("0") { return nil }
        return Int64(sign + d)
    }

    static func float(_ t: [UInt8]) -> Double? {
        var body = t[...]
        var sign = ""
        if let f = body.first, f == 43 || f == 45 {
            sign = f == 45 ? "-" : ""
            body = body.dropFirst()
        }
        let word = String(decoding: body, as: UTF8.self)
        if word == "inf" { return sign == "-" ? -.infinity : .infinity }
        if word == "nan" { return .nan }
        // int-part [. frac] [e[sign]exp], at least one of frac and exp.
        let e = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = body[body.startIndex..<(e ?? body.endIndex)]
        let dot = mantissa.firstIndex(of: UInt8(ascii: "."))
        guard dot != nil || e != nil else { return nil }
        let intPart = mantissa[mantissa.startIndex..<(dot ?? mantissa.endIndex)]
        guard let whole = digits(intPart, isDecimal), !(whole.count > 1 && whole.hasPrefix("0")) else { return nil }
        var text = sign + whole
        if let dot {
            guard let frac = digits(mantissa[(dot + 1)...], isDecimal) else { return nil }
            text += "." + frac
        }
        if let e {
            var exp = body[(e + 1)...]
            var expSign = ""
            if let f = exp.first, f == 43 || f == 45 {
                expSign = f == 45 ? "-" : "+"
                exp = exp.dropFirst()
            }
            guard let x = digits(exp, isDecimal) else { return nil }
            text += "e" + expSign + x
        }
        return Double(text)
    }

    /// RFC 3339 date-time, local date-time, local date or local time, with real calendar ranges.
    static func isDateTime(_ t: [UInt8]) -> Bool {
        var p = 0
        func num(_ n: Int) -> Int? {
            guard p + n <= t.count else { return nil }
            var v = 0
            for k in p..<p + n {
                guard isDecimal(t[k]) else { return nil }
                v = v * 10 + Int(t[k] - 48)
            }
            p += n
            return v
        }
        func lit(_ c: UInt8) -> Bool {
            guard p < t.count, t[p] == c else { return false }
            p += 1
            return true
        }
        func time() -> Bool {
            guard let h = num(2), lit(58), let m = num(2), lit(58), let s = num(2), h < 24, m < 60, s <= 60 else { return false }
            if lit(46) {
                let start = p
                while p < t.count, isDecimal(t[p]) { p += 1 }
                if p == start { return false }
            }
            return true
        }
        var hasDate = false
        if t.count >= 10 && t[4] == UInt8(ascii: "-") {
            guard let y = num(4), lit(45), let mo = num(2), lit(45), let d = num(2), (1...12).contains(mo), d >= 1 else { return false }
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
            guard d <= days else { return false }
            hasDate = true
            if p == t.count { return true }
            guard lit(UInt8(ascii: "T")) || lit(UInt8(ascii: "t")) || lit(32) else { return false }
        }
        guard time() else { return false }
        if p == t.count { return true }
        guard hasDate else { return false }
        if lit(UInt8(ascii: "Z")) || lit(UInt8(ascii: "z")) { return p == t.count }
        guard lit(43) || lit(45), let oh = num(2), lit(58), let om = num(2), oh < 24, om < 60 else { return false }
        return p == t.count
    }

    // MARK: Strings

    /// A character allowed in a string as is: not a control character (tab is fine).
    func checkCharacter(_ c: UInt8) throws(ParseError) {
        if (c < 0x20 && c != 9) || c == 0x7F { throw error("a control character (0x\(String(c, radix: 16))) inside a string; escape it") }
    }

    mutating func escape(into out: inout [UInt8]) throws(ParseError) {
        guard let e = peek() else { throw error("unterminated string") }
        i += 1
        switch e {
        case UInt8(ascii: "b"): out.append(8)
        case UInt8(ascii: "t"): out.append(9)
        case UInt8(ascii: "n"): out.append(10)
        case UInt8(ascii: "f"): out.append(12)
        case UInt8(ascii: "r"): out.append(13)
        case UInt8(ascii: "\""): out.append(34)
        case UInt8(ascii: "\\"): out.append(92)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let n = e == UInt8(ascii: "u") ? 4 : 8
            guard i + n <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + n], as: UTF8.self), radix: 16),
                  bytes[i..<i + n].allSatisfy({ TOMLParser.isBare($0) && $0 != 45 && $0 != 95 }),
                  let scalar = Unicode.Scalar(v) else {
                throw error("\\\(Character(Unicode.Scalar(e))) needs \(n) hex digits naming a Unicode scalar value")
            }
            i += n
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw error("unknown escape \\\(Character(Unicode.Scalar(e))) in a string")
        }
    }

    mutating func basicString() throws(ParseError) -> String {
        i += 1
        var out: [UInt8] = []
        while let c = peek() {
            if c == 10 || c == 13 { break }
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") { try escape(into: &out); continue }
            try checkCharacter(c)
            out.append(c)
        }
        throw error("unterminated string; close it with \" on the same line")
    }

    mutating func literalString() throws(ParseError) -> String {
        i += 1
        var out: [UInt8] = []
        while let c = peek() {
            if c == 10 || c == 13 { break }
            i += 1
            if c == UInt8(ascii: "'") { return String(decoding: out, as: UTF8.self) }
            try checkCharacter(c)
            out.append(c)
        }
        throw error("unterminated literal string; close it with ' on the same line")
    }

    /// After the opening delimiter: a newline right after it is dropped.
    mutating func dropFirstNewline() {
        if peek() == 10 { advance() } else if peek() == 13 && peek(1) == 10 { i += 1; advance() }
    }

    /// Up to two quotes may sit right before the closing three.
    mutating func closeMultiline(_ q: UInt8, into out: inout [UInt8]) throws(ParseError) -> Bool {
        guard peek() == q && peek(1) == q && peek(2) == q else { return false }
        var run = 3
        while peek(run) == q { run += 1 }
        guard run <= 5 else { throw error("more than five quotes in a row close a multi-line string") }
        for _ in 0..<(run - 3) { out.append(q) }
        i += run
        return true
    }

    mutating func multilineBasicString() throws(ParseError) -> String {
        i += 3
        dropFirstNewline()
        var out: [UInt8] = []
        while let c = peek() {
            if try closeMultiline(34, into: &out) { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                // A line-ending backslash trims the newline and the whitespace after it.
                var k = 1
                while let w = peek(k), w == 32 || w == 9 { k += 1 }
                if peek(k) == 10 || (peek(k) == 13 && peek(k + 1) == 10) {
                    i += k
                    while let w = peek(), w == 32 || w == 9 || w == 10 || (w == 13 && peek(1) == 10) { advance() }
                    continue
                }
                i += 1
                try escape(into: &out)
                continue
            }
            if c == 13 && peek(1) == 10 { out.append(10); i += 1; advance(); continue }
            if c != 10 { try checkCharacter(c) }
            out.append(c)
            advance()
        }
        throw error("unterminated multi-line string; close it with \"\"\"")
    }

    mutating func multilineLiteralString() throws(ParseError) -> String {
        i += 3
        dropFirstNewline()
        var out: [UInt8] = []
        while let c = peek() {
            if try closeMultiline(39, into: &out) { return String(decoding: out, as: UTF8.self) }
            if c == 13 && peek(1) == 10 { out.append(10); i += 1; advance(); continue }
            if c != 10 { try checkCharacter(c) }
            out.append(c)
            advance()
        }
        throw error("unterminated multi-line literal string; close it with '''")
    }
}
