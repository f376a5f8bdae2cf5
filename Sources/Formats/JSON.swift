#if canImport(Glibc)
import Glibc
#endif

/// A JSON value with object keys kept in order, so files people read keep
/// the order the spec shows.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// Renders the value. `indent` > 0 pretty-prints with that many spaces;
    /// arrays of scalars stay on one line.
    public func rendered(indent: Int = 0) -> String {
        var out = ""
        render(into: &out, indent: indent, level: 0)
        return out
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }

    private func render(into out: inout String, indent: Int, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSON.format(d)
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            let flat = indent == 0 || items.allSatisfy { $0.isScalar || $0.isFlatArray }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += flat ? (indent == 0 ? "," : ", ") : "," }
                if !flat { out += "\n" + String(repeating: " ", count: indent * (level + 1)) }
                item.render(into: &out, indent: flat ? 0 : indent, level: level + 1)
            }
            if !flat && !items.isEmpty { out += "\n" + String(repeating: " ", count: indent * level) }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                if indent > 0 { out += "\n" + String(repeating: " ", count: indent * (level + 1)) }
                JSON.quote(key, into: &out)
                out += indent > 0 ? ": " : ":"
                value.render(into: &out, indent: indent, level: level + 1)
            }
            if indent > 0 && !members.isEmpty { out += "\n" + String(repeating: " ", count: indent * level) }
            out += "}"
        }
    }

    private var isFlatArray: Bool {
        if case .array(let items) = self { return items.allSatisfy { $0.isScalar } }
        return false
    }

    /// Shortest text that reads back as the same Double; integers without a fraction.
    public static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
