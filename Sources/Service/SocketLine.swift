/// The socket's line protocol, client to service: one command a line, ended by
/// LF. A line (without its LF) of at most ``SocketLineReader/maximumLineBytes``
/// bytes is a command; a longer one is a protocol error that closes the client.
/// Pure byte handling, no I/O, so a fuzzer and property tests can drive it.

/// What a client asked for in one line.
enum ClientCommand: Equatable {
    /// A blank line (ignored).
    case empty
    /// `status`: one status line back.
    case status
    /// `quit`: close once the queue is written.
    case quit
    /// `subscribe ...`: the words after it, validated by ``Subscription/parse(_:regions:gestures:sampleRateHz:)``.
    case subscribe([UInt8])
    /// Anything else, as printable text (escaped, at most 60 bytes of the line shown).
    case unknown(String)

    /// Bytes of an unknown command shown in the reply and the log.
    static let shownBytes = 60

    /// The command in one line's bytes (without the LF); ASCII blanks around it are ignored.
    static func parse<C: Collection>(_ line: C) -> ClientCommand where C.Element == UInt8 {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        var bytes = Array(line)[...]
        while let f = bytes.first, blank(f) { bytes = bytes.dropFirst() }
        while let l = bytes.last, blank(l) { bytes = bytes.dropLast() }
        if bytes.isEmpty { return .empty }
        if bytes.elementsEqual("status".utf8) { return .status }
        if bytes.elementsEqual("quit".utf8) { return .quit }
        let word = Array("subscribe".utf8)
        if bytes.starts(with: word) && (bytes.count == word.count || blank(bytes[bytes.startIndex + word.count])) {
            return .subscribe(Array(bytes.dropFirst(word.count)))
        }
        let shown = bytes.prefix(shownBytes)
        return .unknown(printable(shown) + (bytes.count > shownBytes ? "..." : ""))
    }
}

/// One complete line as the reader saw it.
enum SocketLine: Equatable {
    case command(ClientCommand)
    /// A line longer than the limit: the client is closed after an error line.
    case overlong
}

/// Splits a client's byte stream into lines without ever holding more than
/// ``maximumLineBytes`` + 1 bytes of an unfinished line.
struct SocketLineReader {
    /// The longest line accepted, in bytes, not counting its LF.
    static let maximumLineBytes = 1024

    private var pending: [UInt8] = []
    /// Set once an overlong line was seen: nothing more is read from this client.
    private(set) var failed = false

    init() { pending.reserveCapacity(Self.maximumLineBytes + 1) }

    /// Bytes of an unfinished line held.
    var pendingCount: Int { pending.count }

    /// Feeds bytes as they arrived; returns the lines they complete, in order,
    /// ending with `.overlong` (and nothing after it) when a line is too long.
    mutating func feed<C: Collection>(_ bytes: C) -> [SocketLine] where C.Element == UInt8 {
        guard !failed else { return [] }
        var lines: [SocketLine] = []
        for b in bytes {
            if b == UInt8(ascii: "\n") {
                lines.append(.command(ClientCommand.parse(pending)))
                pending.removeAll(keepingCapacity: true)
            } else if pending.count == Self.maximumLineBytes {
                pending.removeAll()
                failed = true
                lines.append(.overlong)
                return lines
            } else {
                pending.append(b)
            }
        }
        return lines
    }
}

/// `bytes` as text safe for a log line or a terminal: printable ASCII and
/// printable non-ASCII characters as they are; backslash and double quote
/// escaped; control characters (C0, DEL, C1), line and paragraph separators,
/// bidirectional overrides as `\u{..}` / `\xNN`; bytes that are not UTF-8 as `\xNN`.
func printable<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let b = Array(bytes)
    var out = ""
    var i = 0
    func hex(_ v: UInt32, _ width: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    while i < b.count {
        let lead = b[i]
        if lead < 0x80 {
            switch lead {
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "\""): out += "\\\""
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(lead))
            default: out += "\\x" + hex(UInt32(lead), 2)
            }
            i += 1
            continue
        }
        // A well-formed UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF), or one \xNN.
        var length = 0, value: UInt32 = 0, minimum: UInt32 = 0
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F); minimum = 0x80
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F); minimum = 0x800
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07); minimum = 0x10000
        default: length = 0
        }
        var ok = length > 0 && i + length <= b.count
        if ok {
            for k in 1..<length {
                let c = b[i + k]
                guard c & 0xC0 == 0x80 else { ok = false; break }
                value = value << 6 | UInt32(c & 0x3F)
            }
        }
        if ok, value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value), let scalar = Unicode.Scalar(value) {
            let unsafe = (0x80...0x9F).contains(value) || value == 0x2028 || value == 0x2029 ||
                (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
            if unsafe { out += "\\u{" + hex(value, 4) + "}" } else { out.unicodeScalars.append(scalar) }
            i += length
        } else {
            out += "\\x" + hex(UInt32(lead), 2)
            i += 1
        }
    }
    return out
}
