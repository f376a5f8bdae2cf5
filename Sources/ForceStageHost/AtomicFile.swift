import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that a reader sees the old content or the new, never half of either.
public enum AtomicFile {
    /// Writes `data` to a temporary file in the same directory, fsyncs it,
    /// renames it over `url` and fsyncs the directory.
    ///
    /// Temporary files left by writers that died (a crash or a kill between
    /// create and rename) are removed first: their process no longer exists.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent).tmp-"
        removeStaleTemporaries(in: directory, prefix: prefix)
        let temporary = directory.appendingPathComponent(prefix + "\(getpid())")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXFailure(operation: "create", path: temporary.path) }
        var ok = true
        // Test hook: stop halfway through the data for this long, so a test can kill the writer mid-save.
        let pauseMs = ProcessInfo.processInfo.environment[testOnly_pauseMidWriteVariable].flatMap { Int($0) }
        data.withUnsafeBytes { raw in
            var offset = 0
            var paused = pauseMs == nil
            while offset < raw.count {
                if !paused && offset >= raw.count / 2 {
                    paused = true
                    usleep(UInt32(pauseMs!) * 1000)
                }
                let end = paused ? raw.count : raw.count / 2
                let n = Glibc.write(fd, raw.baseAddress! + offset, max(1, end - offset))
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

extension AtomicFile {
    /// The environment variable that makes ``write(_:to:)`` pause halfway (milliseconds): tests only.
    public static let testOnly_pauseMidWriteVariable = "FORCESTAGE_TESTONLY_PAUSE_MID_WRITE_MS"

    /// Removes `prefix<pid>` files whose process is gone.
    static func removeStaleTemporaries(in directory: URL, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory.appendingPathComponent(name).path) }
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
