import Foundation
import TestSupport
import Testing
@testable import ForceStageFormats
import ForceStageTools

/// A seeded generator of valid TOML: random values in random spellings the
/// spec allows, each written next to the value it must read as. Any valid
/// spelling refused, or read as another value, is a failure naming the seed.
struct TOMLSpeller {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

    /// Digits with underscores inserted between some of them.
    mutating func underscored(_ digits: String) -> String {
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && below(5) == 0 { out += "_" }
            out.append(c)
        }
        return out
    }

    mutating func integer() -> (String, TOMLValue) {
        let v = Int64(bitPattern: next()) >> Int64(below(63))
        switch below(5) {
        case 0 where v >= 0: return ("0x" + underscored(String(v, radix: 16, uppercase: below(2) == 0)), .integer(v))
        case 1 where v >= 0: return ("0o" + underscored(String(v, radix: 8)), .integer(v))
        case 2 where v >= 0: return ("0b" + underscored(String(v, radix: 2)), .integer(v))
        case 3 where v >= 0: return ("+" + underscored(String(v)), .integer(v))
        default: return ((v < 0 ? "-" : "") + underscored(String(v.magnitude)), .integer(v))
        }
    }

    mutating func float() -> (String, TOMLValue) {
        switch below(8) {
        case 0: return (pick(["inf", "+inf"]), .float(.infinity))
        case 1: return ("-inf", .float(-.infinity))
        default:
            let whole = below(100_000), frac = below(1000), exp = below(40) - 20
            let sign = pick(["", "-", "+"])
            var text = sign + underscored(String(whole))
            var canonical = (sign == "-" ? "-" : "") + String(whole)
            let form = below(3)
            if form != 1 { text += "." + underscored(String(frac)); canonical += "." + String(frac) }
            if form != 0 { let e = pick(["e", "E"]) + (exp >= 0 ? pick(["", "+"]) : "-") + String(abs(exp)); text += e; canonical += "e\(exp)" }
            return (text, .float(Double(canonical)!))
        }
    }

    mutating func string() -> (String, TOMLValue) {
        let alphabet = Array("abc XYZ 019 _-.,:;!?#[]{}=é✓😀\t'")
        var s = ""
        for _ in 0..<below(12) { s.append(pick(alphabet)) }
        switch below(4) {
        case 0 where !s.contains("'"):
            return ("'" + s + "'", .string(s))
        case 1 where !s.contains("'''") && !s.hasSuffix("'"):
            return ("'''" + (below(2) == 0 ? "\n" : "") + s + "'''", .string(s))
        case 2:
            var body = ""
            for ch in s.unicodeScalars {
                if ch == "\"" || ch == "\\" { body += "\\" + String(ch) }
                else if below(6) == 0 { body += ch.value < 0x10000 ? String(format: "\\u%04X", ch.value) : String(format: "\\U%08X", ch.value) }
                else { body.unicodeScalars.append(ch) }
            }
            return ("\"\"\"" + body + "\"\"\"", .string(s))
        default:
            var body = ""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": body += "\\\""
                case "\\": body += "\\\\"
                case "\t": body += pick(["\\t", "\t"])
                default: body += ch.value >= 0x10000 && below(2) == 0 ? String(format: "\\U%08X", ch.value) : String(ch)
                }
            }
            return ("\"" + body + "\"", .string(s))
        }
    }

    mutating func value(depth: Int) -> (String, TOMLValue) {
        // Root-level inline tables become tables (see TOMLConformanceTests); here they sit in arrays.
        switch below(depth == 0 ? 6 : depth > 2 ? 5 : 7) {
        case 0: return integer()
        case 1: return float()
        case 2: return string()
        case 3: let b = below(2) == 0; return (b ? "true" : "false", .bool(b))
        case 4: return (pick(["1979-05-27T07:32:00Z", "1979-05-27 07:32:00.5-07:00", "2000-02-29", "23:59:60", "1979-05-27t00:32:00"]), .datetime(""))
        case 5:
            var parts: [String] = [], values: [TOMLValue] = []
            for _ in 0..<below(4) { let (t, v) = value(depth: depth + 1); parts.append(t); values.append(v) }
            let sep = pick([", ", ",", " ,\n  ", ", # note\n  "])
            let trailing = !parts.isEmpty && below(3) == 0 ? pick([",", ",\n"]) : ""
            return ("[" + pick(["", " ", "\n  "]) + parts.joined(separator: sep) + trailing + pick(["", " ", "\n"]) + "]", .array(values))
        default:
            var parts: [String] = [], dict: [String: TOMLValue] = [:]
            for k in 0..<below(3) {
                let (t, v) = value(depth: depth + 1)
                let name = "k\(k)"
                parts.append(pick([name, "\"\(name)\"", "'\(name)'"]) + pick([" = ", "=", "  =  "]) + t)
                dict[name] = v
            }
            return ("{" + pick(["", " "]) + parts.joined(separator: pick([", ", ","])) + pick(["", " "]) + "}", .table(dict))
        }
    }

    /// One document and the values its root keys must read as.
    mutating func document() -> (String, [(String, TOMLValue)]) {
        var text = below(2) == 0 ? "# generated\n" : ""
        var expected: [(String, TOMLValue)] = []
        for k in 0..<(1 + below(8)) {
            let (t, v) = value(depth: 0)
            let key = "key\(k)"
            let spelled = pick([key, "\"\(key)\"", "'\(key)'"])
            text += pick(["", " ", "\t"]) + spelled + pick([" = ", "=", " =\t"]) + t + pick(["", " # c", "\t"]) + pick(["\n", "\r\n", "\n\n"])
            expected.append((key, v))
        }
        if below(2) == 0 { text += pick(["[ t . \"u\" ]\n", "[t]\n", "[[t]]\n"]) + "x = 1\n" }
        return (text, expected)
    }
}

/// Datetimes compare by kind only (the generator does not model their text).
func sameValue(_ a: TOMLValue, _ b: TOMLValue) -> Bool {
    switch (a, b) {
    case (.datetime, .datetime): return true
    case (.float(let x), .float(let y)): return x == y || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
    case (.table(let x), .table(let y)): return x.keys.sorted() == y.keys.sorted() && x.allSatisfy { k, v in sameValue(v, y[k]!) }
    default: return a == b
    }
}

@Suite("TOML property test")
struct TOMLPropertyTests {
    @Test("2 000 seeded random valid documents read back as the values they spell")
    func randomValidDocuments() {
        var failures = 0
        for seed in 1...2000 {
            var g = TOMLSpeller(state: UInt64(seed))
            let (text, expected) = g.document()
            do {
                let doc = try TOMLDocument(parsing: text)
                for (key, value) in expected {
                    guard let got = doc.value[key], sameValue(got, value) else {
                        Issue.record("seed \(seed): \(key) read as \(String(describing: doc.value[key])), want \(value)\n\(text)")
                        failures += 1
                        break
                    }
                }
            } catch {
                Issue.record("seed \(seed): valid TOML refused at line \(error.line): \(error.message)\n\(text)")
                failures += 1
            }
            if failures > 5 { break }
        }
    }

    @Test("Random byte mutations of valid documents never trap: each parses or is refused with a line")
    func mutations() {
        for seed in 1...2000 {
            var g = TOMLSpeller(state: UInt64(seed) &* 7919)
            var bytes = Array(g.document().0.utf8)
            for _ in 0..<(1 + g.below(4)) where !bytes.isEmpty {
                let at = g.below(bytes.count)
                switch g.below(3) {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: g.next())
                case 1: bytes.remove(at: at)
                default: bytes.insert(g.pick(Array("[]{}\"'=.,#\n\\_0e+-:".utf8)), at: at)
                }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            do { _ = try TOMLDocument(parsing: text) } catch {
                #expect(error.line >= 1, "seed \(seed)")
            }
        }
    }
}
