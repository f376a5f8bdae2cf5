#if canImport(Glibc)
import Glibc
#endif

/// Wakes a sleeping consumer: a non-blocking self-pipe the producer writes a
/// byte into after pushing a batch, and the consumer polls when its ring is
/// empty. One syscall per refill, none per scan, and no allocation. (A full
/// pipe just means a wake-up is already pending.)
public final class Wakeup: @unchecked Sendable {
    /// The read end, for `poll` alongside other descriptors.
    public let fd: Int32
    private let writeFD: Int32

    /// Creates the pipe (non-blocking, close-on-exec).
    public init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "pipe failed: out of file descriptors")
        for f in fds {
            _ = fcntl(f, F_SETFD, FD_CLOEXEC)
            _ = fcntl(f, F_SETFL, O_NONBLOCK)
        }
        fd = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(fd)
        close(writeFD)
    }

    /// Wakes the consumer.
    public func signal() {
        var one: UInt8 = 1
        _ = write(writeFD, &one, 1)
    }

    /// Clears pending wake-ups (after `poll` said readable).
    public func clear() {
        var sink = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &sink, { read(fd, $0.baseAddress, $0.count) }) == 64 {}
    }

    /// Sleeps until signalled or `timeoutMs` passes, then clears.
    public func wait(timeoutMs: Int32) {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, timeoutMs) > 0 { clear() }
    }
}

