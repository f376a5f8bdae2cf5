// The few text operations the service path used from Foundation (`import
// Foundation` loads ICU; README, "Footprint"), done on Unicode scalars as
// Foundation does them, never on grapheme clusters (where "\r\n" is one Character).

extension String {
    /// Every occurrence of `target` replaced by `replacement`, matched scalar by
    /// scalar, left to right, without overlaps (Foundation's `replacingOccurrences(of:with:)`
    /// for the ASCII escapes this project makes).
    public func replacingScalars(_ target: String, with replacement: String) -> String {
        let needle = Array(target.unicodeScalars)
        guard !needle.isEmpty else { return self }
        let scalars = Array(unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            if i + needle.count <= scalars.count, scalars[i..<(i + needle.count)].elementsEqual(needle) {
                out.append(contentsOf: replacement.unicodeScalars)
                i += needle.count
            } else {
                out.append(scalars[i])
                i += 1
            }
        }
        return String(out)
    }

    /// Without leading and trailing spaces and tabs (Foundation's `CharacterSet.whitespaces`:
    /// general category Zs and U+0009).
    public func trimmingSpaces() -> String {
        func isSpace(_ s: Unicode.Scalar) -> Bool { s == "\t" || s.properties.generalCategory == .spaceSeparator }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// Cut or filled with spaces to `length` characters (Foundation's
    /// `padding(toLength:withPad:" ",startingAt:0)` for the ASCII names it pads).
    public func padded(to length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}

/// Paths as text, as `NSString`'s path methods read them.
public enum PathText {
    /// The last component: `/a/b.json` gives `b.json`, `/a/b/` gives `b`, `/` gives `/`.
    public static func lastComponent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// All but the last component: `/a/b.json` gives `/a`, `/a` gives `/`, `b.json` gives the empty string.
    public static func deletingLastComponent(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        if trimmed == "/" { return "/" }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let head = withoutTrailingSlashes(String(trimmed[..<slash]))
        return head.isEmpty ? "/" : head
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.last == "/" { p.removeLast() }
        return String(p)
    }
}
