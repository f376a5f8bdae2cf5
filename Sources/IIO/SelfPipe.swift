#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking, close-on-exec pipe that wakes a thread sleeping in `poll`:
/// ``signal()`` writes one byte (async-signal-safe), the sleeper polls
/// ``readFD`` and calls ``clear()``. A full pipe just means a wake-up is
/// already pending. (The Glibc module has no `eventfd`; a pipe costs the same
/// one system call per wake-up.)
public final class SelfPipe: Sendable {
    /// The end to poll.
    public let readFD: Int32
    /// The end ``signal()`` writes; exposed for signal handlers, which may only call `write`.
    public let writeFD: Int32

    /// Creates the pipe; `nil` when out of file descriptors.
    public init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for f in fds {
            _ = fcntl(f, F_SETFD, FD_CLOEXEC)
            _ = fcntl(f, F_SETFL, O_NONBLOCK)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Wakes the sleeper.
    public func signal() {
        var one: UInt8 = 1
        _ = write(writeFD, &one, 1)
    }

    /// Empties the pipe (after `poll` said readable).
    public func clear() {
        var sink = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &sink, { read(readFD, $0.baseAddress, $0.count) }) == 64 {}
    }
}
