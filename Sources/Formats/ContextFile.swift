#if canImport(Glibc)
import Glibc
#endif

/// The check of `--uri xml:FILE` that every live command makes before libiio
/// reads the file: libxml2 opens a FIFO and waits for a writer, and says what
/// it could not read in lines of its own on standard error.
public enum ContextFile {
    /// The usage message when `uri` is `xml:FILE` and FILE is not a readable
    /// regular file within ``Limits/maximumContextXMLBytes``; `nil` otherwise
    /// (other schemes, or a file libiio may read).
    public static func problem(uri: String) -> String? {
        guard uri.hasPrefix("xml:") else { return nil }
        let path = String(uri.dropFirst(4))
        let hint = "name a libiio context file (iio_genxml writes one)"
        // O_NONBLOCK: opening a FIFO does not wait for a writer, and fstat refuses it.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return "--uri \(uri): cannot read \(path): \(String(cString: strerror(errno))); \(hint)" }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return "--uri \(uri): cannot read \(path): \(String(cString: strerror(errno))); \(hint)" }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return "--uri \(uri): \(path) is not a regular file; \(hint)" }
        guard st.st_size <= Limits.maximumContextXMLBytes else {
            return "--uri \(uri): \(path) is \(st.st_size) bytes, more than the \(Limits.maximumContextXMLBytes)-byte limit; \(hint)"
        }
        return nil
    }
}
