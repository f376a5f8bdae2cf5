#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that a reader sees the old content or the new, never half of either.
///
/// The temporary file is created in the target's directory with an
/// unpredictable name, exclusively (`O_EXCL`) and without following links
/// (`O_NOFOLLOW`), so nothing planted there can redirect the write; it is
/// removed on every error path, and a temporary left by a writer that was
/// killed is removed by the next save (only regular files of this user whose
/// writer process is gone).
public enum AtomicFile {
    /// Writes `data` to a fresh temporary file beside `path` (made absolute as
    /// ``PathText/absolute(_:)`` makes it), fsyncs it, renames it over `path`
    /// and fsyncs the directory.
    public static func write(_ data: [UInt8], toPath path: String) throws {
        try prepare(data, toPath: path).commit()
    }

    /// A temporary file written and synced beside its target, not yet renamed over it:
    /// ``commit()`` puts it in place; dropped uncommitted, it is removed. Lets a caller
    /// write several files in full before any of them replaces what is there.
    public final class Prepared {
        private let dfd: Int32
        private let name: String
        private let target: String
        private var renamed = false

        fileprivate init(dfd: Int32, name: String, target: String) {
            self.dfd = dfd
            self.name = name
            self.target = target
        }

        /// Renames the temporary over the target and fsyncs the directory.
        public func commit() throws {
            guard !renamed else { return }
            guard renameat(dfd, name, dfd, PathText.lastComponent(target)) == 0 else {
                throw POSIXFailure(operation: "rename", path: target)
            }
            renamed = true
            fsync(dfd)
        }

        deinit {
            if !renamed { unlinkat(dfd, name, 0) }
            close(dfd)
        }
    }

    /// Writes `data` to a fresh temporary file beside `path` and fsyncs it; nothing at `path` changes until
    /// ``Prepared/commit()``.
    public static func prepare(_ data: [UInt8], toPath path: String) throws -> Prepared {
        let path = PathText.absolute(path)
        let directory = PathText.deletingLastComponent(path)
        let prefix = temporaryPrefix(forPath: path)
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw POSIXFailure(operation: "open the directory", path: directory) }
        removeStaleTemporaries(directoryFD: dfd, names: directory, prefix: prefix)

        var name = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            name = prefix + "\(getpid())-" + randomToken()
            fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        let temporaryPath = PathText.appending(directory, name)
        guard fd >= 0 else {
            let failure = POSIXFailure(operation: "create", path: temporaryPath)
            close(dfd)
            throw failure
        }
        // From here the temporary belongs to `prepared`: an error drops it, which removes the file.
        let prepared = Prepared(dfd: dfd, name: name, target: path)
        var failure: POSIXFailure?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = POSIXFailure(operation: "write", path: temporaryPath)
                    return
                }
                offset += n
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = POSIXFailure(operation: "fsync", path: temporaryPath) }
        if close(fd) != 0 && failure == nil { failure = POSIXFailure(operation: "close", path: temporaryPath) }
        if let failure { throw failure }
        return prepared
    }

    /// The name prefix of `path`'s temporaries: `.NAME.tmp-`; the full name adds `PID-RANDOM`.
    public static func temporaryPrefix(forPath path: String) -> String { ".\(PathText.lastComponent(PathText.absolute(path))).tmp-" }

    /// 16 hex digits from the system's random source.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Removes `prefix<pid>-<random>` regular files of this user whose process is gone.
    static func removeStaleTemporaries(directoryFD dfd: Int32, names directory: String, prefix: String) {
        guard let names = PathText.directoryEntries(directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid > 0, pid != getpid() else { continue }
            var st = stat()
            guard fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == geteuid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlinkat(dfd, name, 0) }
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
