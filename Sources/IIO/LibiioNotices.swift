#if canImport(Glibc)
import Glibc
#endif

/// What libiio prints on standard error itself while a context or a buffer is
/// created, kept off the user's terminal where it is noise and passed on where
/// it is not.
///
/// libiio's local backend writes `WARNING: High-speed mode not enabled` each time
/// a buffer is opened on a device whose kernel buffer has no mmap block interface
/// (the DMA one some converters have). Every device this program reads, and the
/// emulator, is such a device: libiio then reads scans with read(2), which is the
/// normal path and loses nothing. Printed on stderr, the line lands on a prompt
/// (calibrate's questions), on a full-screen view (meter) or after it. So the
/// creation runs with standard error on a pipe: that line is dropped and handed,
/// explained, to ``noticeHandler`` (once per process); anything else libiio
/// printed goes on to standard error unchanged, so real errors still show.
public enum LibiioNotices {
    /// The line libiio prints when the high-speed (mmap) interface is not there.
    public static let highSpeedWarning = "High-speed mode not enabled"

    /// The explanation handed to ``noticeHandler``.
    public static let highSpeedExplanation = "libiio: \"High-speed mode not enabled\": the device's kernel buffer has no mmap block interface, so libiio reads scans with read(2); that is the normal path for this kind of converter and loses nothing"

    /// Called once per process with ``highSpeedExplanation`` (the service logs it); set
    /// once at start, before any thread opens a device. Without one, nothing is said.
    nonisolated(unsafe) public static var noticeHandler: ((String) -> Void)?

    nonisolated(unsafe) private static var explained = false
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()

    /// Runs `body` (a libiio call that may print) with file descriptor 2 on a pipe, then
    /// passes on what was printed except the high-speed warning. Serialized: one at a time.
    /// When the pipe cannot be made, `body` runs with standard error as it is.
    public static func filtering<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return body() }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let result = redirectingStandardError(to: ends[1], body)
        close(ends[1])
        var captured: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(ends[0], &chunk, chunk.count)
            if n > 0 { captured += chunk[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(ends[0])
        pass(captured)
        return result
    }

    /// Writes the captured lines to standard error, without the high-speed warning.
    private static func pass(_ captured: [UInt8]) {
        guard !captured.isEmpty else { return }
        var kept: [UInt8] = []
        var sawWarning = false
        for line in captured.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if String(decoding: line, as: UTF8.self).contains(highSpeedWarning) {
                sawWarning = true
                continue
            }
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        // split leaves one empty piece after a final newline: no line of its own.
        if captured.last == UInt8(ascii: "\n"), kept.last == UInt8(ascii: "\n") { kept.removeLast() }
        var offset = 0
        while offset < kept.count {
            let n = kept[offset...].withUnsafeBytes { write(2, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
        if sawWarning && !explained {
            explained = true
            noticeHandler?(highSpeedExplanation)
        }
    }
}

/// Runs `body` with file descriptor 2 on `target`, put back afterwards (standard error's
/// buffered output flushed on both sides, so nothing lands on the wrong one); where fd 2
/// cannot be saved, `body` runs with it as it is. The one place the IIO module swaps
/// standard error, for libiio's own printing (``LibiioNotices``, `IIOContext`'s probes).
func redirectingStandardError<T>(to target: Int32, _ body: () -> T) -> T {
    fflush(nil)
    let saved = dup(2)
    guard saved >= 0 else { return body() }
    dup2(target, 2)
    let result = body()
    fflush(nil)
    dup2(saved, 2)
    close(saved)
    return result
}
