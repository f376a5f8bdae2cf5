import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that a reader sees the old content or the new, never half of either.
public enum AtomicFile {
    /// Writes `data` to a temporary file in the same directory, fsyncs it,
    /// renames it over `url` and fsyncs the directory.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXFailure(operation: "create", path: temporary.path) }
        var ok = true
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    ok = false
                    return
                }
                offset += n
            }
        }
        let failure = ok ? nil : POSIXFailure(operation: "write", path: temporary.path)
        if ok && fsync(fd) != 0 { ok = false }
        close(fd)
        guard ok else {
            unlink(temporary.path)
            throw failure ?? POSIXFailure(operation: "fsync", path: temporary.path)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let error = POSIXFailure(operation: "rename", path: url.path)
            unlink(temporary.path)
            throw error
        }
        let dfd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }
}

/// A failed system call on a path, with errno's text.
public struct POSIXFailure: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32

    public init(operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(code)))"
    }
}
