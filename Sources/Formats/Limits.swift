/// The bounds every input is validated against before it reaches the core.
/// docs/getting-started.md's "Limits" table lists them with what happens at each.
public enum Limits {
    /// Largest recording metadata file (`STEM.json`), bytes.
    public static let maximumMetadataBytes = 4 << 20
    /// Largest raw scan file (`STEM.iio`), bytes.
    public static let maximumScanBytes = 1 << 30
    /// Most ground-truth labels in one recording.
    public static let maximumLabels = 50_000
    /// Most channels in one recording.
    public static let maximumChannels = 64
    /// Most points in a calibration curve.
    public static let maximumCurvePoints = 32
    /// Longest string value (ids, names, labels), bytes.
    public static let maximumStringBytes = 256
    /// Largest profile file, bytes.
    public static let maximumProfileBytes = 256 << 10
    /// Deepest nesting in a profile or recording metadata.
    public static let maximumNesting = 64
    /// Sample rates, scans per second.
    public static let sampleRateHz: ClosedRange<Double> = 0.01...1_000_000
    /// Magnitude of a raw count (zeroRaw, curve raw): 2^53, exact in a Double.
    public static let maximumRawMagnitude: Double = 9_007_199_254_740_992
    /// Magnitude of newtons per count (non-zero).
    public static let newtonsPerCountMagnitude: ClosedRange<Double> = 1e-12...1e3
    /// Magnitude of a force level or curve point, newtons.
    public static let maximumNewtons: Double = 1e6
    /// Any duration in a profile or on the command line, milliseconds (one day).
    public static let maximumMilliseconds: Double = 86_400_000
    /// The press-to-event budget, milliseconds.
    public static let budgetMilliseconds: ClosedRange<Double> = 0.001...60_000
    /// Largest libiio context file named by `--uri xml:FILE`, bytes.
    public static let maximumContextXMLBytes = 16 << 20
    /// Scans on a rail before `saturated`.
    public static let saturationScans: ClosedRange<Double> = 1...1_000_000
}

extension Double {
    /// Whether the value is finite and within `range`.
    func within(_ range: ClosedRange<Double>) -> Bool { isFinite && range.contains(self) }
}

#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole regular file of at most `limit` bytes; the error names the
/// file, says why (errno's text, never a Foundation domain) and what to do.
///
/// - Parameter path: the file, made absolute as ``PathText/absolute(_:)`` makes it (messages name it so).
public func readBounded(path: String, limit: Int, what: String, hint: String) throws(InputError) -> [UInt8] {
    let path = PathText.absolute(path)
    // O_NONBLOCK: opening a FIFO for reading waits for a writer, forever if
    // none comes; without a wait it opens at once and fstat refuses it below.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else {
        let reason = String(cString: strerror(errno))
        throw InputError(file: path, problem: "cannot read the \(what): \(reason)", hint: hint)
    }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
        throw InputError(file: path, problem: "cannot read the \(what): \(String(cString: strerror(errno)))", hint: hint)
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
        throw InputError(file: path, problem: "the \(what) is not a regular file", hint: "name a file, not a directory, FIFO or device")
    }
    // A regular file reads the same blocking or not; clear the flag all the same.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    guard st.st_size <= limit else {
        throw InputError(file: path, problem: "the \(what) is \(st.st_size) bytes, more than the \(limit)-byte limit",
                         hint: "see the limits in docs/getting-started.md; is this the right file?")
    }
    var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
    var filled = 0
    while filled < bytes.count {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else {
            throw InputError(file: path, problem: "cannot read the \(what): \(String(cString: strerror(errno)))", hint: hint)
        }
        if n == 0 { break }
        filled += n
    }
    // A file that grew while read is cut at the size it had; one that shrank is what it holds now.
    if filled < bytes.count { bytes.removeLast(bytes.count - filled) }
    return bytes
}
