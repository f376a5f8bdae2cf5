#if canImport(Glibc)
import Glibc
#endif

// The few text operations the service path used from Foundation (`import
// Foundation` loads ICU; docs/benchmarks.md, "Footprint"), done on Unicode scalars as
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

    /// `path` made absolute as `URL(fileURLWithPath:).path` makes it, so messages
    /// name files as they did when the formats read through `URL`: a leading `~`
    /// or `~user` is the home directory; an absolute path keeps its text but
    /// not its trailing slashes; a relative one is joined to the working
    /// directory with its `.` and `..` components resolved.
    public static func absolute(_ path: String) -> String {
        var path = path
        if path.hasPrefix("~") {
            let end = path.firstIndex(of: "/") ?? path.endIndex
            let user = String(path[path.index(after: path.startIndex)..<end])
            if let home = homeDirectory(user) { path = home + path[end...] }
        }
        if path.hasPrefix("/") { return withoutTrailingSlashes(path) }
        var segments = currentDirectory().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.last == "" { segments.removeLast() }
        let relative = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for (i, segment) in relative.enumerated() {
            switch segment {
            case ".": if i == relative.count - 1 { segments.append("") }
            case "..":
                if segments.count > 1 { segments.removeLast() }
                if i == relative.count - 1 { segments.append("") }
            default: segments.append(segment)
            }
        }
        let joined = segments.joined(separator: "/")
        return joined.isEmpty ? "/" : withoutTrailingSlashes(joined)
    }

    /// `path` without the extension of its last component, as `URL`'s
    /// `deletingPathExtension()` reads it: `a/b.json` gives `a/b`; a name that
    /// starts with its only dot (`.json`) or ends with a dot (`x.`) has none.
    public static func deletingExtension(_ path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        let name = lastComponent(trimmed)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else { return trimmed }
        return String(trimmed.dropLast(name.distance(from: dot, to: name.endIndex)))
    }

    /// `directory/name`, as `URL`'s `appendingPathComponent(_:)` joins them.
    public static func appending(_ directory: String, _ name: String) -> String {
        let head = withoutTrailingSlashes(directory)
        return head == "/" ? "/" + name : head + "/" + name
    }

    /// The working directory (`getcwd`), or `/` when it cannot be read.
    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `$HOME` (or the password database's entry) for `~`, the entry for `~user`.
    private static func homeDirectory(_ user: String) -> String? {
        if user.isEmpty, let home = getenv("HOME") { return String(cString: home) }
        let entry = user.isEmpty ? getpwuid(getuid()) : getpwnam(user)
        guard let entry, let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }

    /// The names in a directory (`opendir`/`readdir`, without `.` and `..`),
    /// in the order the file system gives them; `nil` when it cannot be listed.
    public static func directoryEntries(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.last == "/" { p.removeLast() }
        return String(p)
    }
}
