/// libFuzzer entry: the input is a client's byte stream; its first byte picks a chunk
/// size. The reader must agree with a plain reference model, never hold more than the
/// limit of an unfinished line, produce nothing after `.overlong`, and show client text
/// without control characters. Any disagreement traps, which libFuzzer reports.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0]) % 64 == 0 ? 1024 : Int(data[0]) % 64
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limit = SocketLineReader.maximumLineBytes

    // The model: split at LF; the first line over the limit (or an unfinished tail over it) ends it.
    var expected: [SocketLine] = []
    var start = 0
    var ended = false
    for (i, b) in bytes.enumerated() where b == 10 {
        if i - start > limit { expected.append(.overlong); ended = true; break }
        expected.append(.command(ClientCommand.parse(bytes[start..<i])))
        start = i + 1
    }
    if !ended && bytes.count - start > limit { expected.append(.overlong) }

    var reader = SocketLineReader()
    var got: [SocketLine] = []
    var i = 0
    while i < bytes.count {
        let lines = reader.feed(bytes[i..<min(bytes.count, i + chunk)])
        precondition(got.last != .overlong || lines.isEmpty, "lines after .overlong")
        got += lines
        precondition(reader.pendingCount <= limit, "unbounded unfinished line")
        i += chunk
    }
    precondition(got == expected, "reader and model disagree")
    for case .command(.unknown(let text)) in got {
        for u in text.unicodeScalars {
            precondition(!(u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x202E || u.value == 0x2028), "unescaped control")
        }
    }
    return 0
}
