import CIIO
#if canImport(Glibc)
import Glibc
#endif

/// A streaming buffer of an ``IIODevice``: the one owner of a
/// `struct iio_buffer`, destroyed with the object (`iio_buffer_destroy`,
/// which disables the kernel buffer and every channel).
///
/// Enable the channels first; a refill then holds up to ``scansPerRefill``
/// whole scans laid out by the kernel's rule, readable through ``bytes``.
public final class IIOBuffer: @unchecked Sendable {
    /// The device streamed from.
    public let device: IIODevice
    /// Scans a blocking refill waits for (libiio's `samples_count`).
    public let scansPerRefill: Int
    /// Bytes per scan of the enabled channels.
    public let scanSize: Int
    @usableFromInline internal let pointer: OpaquePointer
    /// Whether refills are non-blocking (poll-driven).
    public private(set) var isBlocking = true
    /// A self-pipe: ``cancel()`` writes, ``waitAndRefill(timeoutMs:)`` polls the read end.
    private var cancelPipe: (read: Int32, write: Int32) = (-1, -1)

    /// The default scans per refill: what arrives within `latencyBudgetMs` at
    /// `sampleRateHz`, kept between 1 and 4 as libiio's maintainers advise for
    /// low latency (a blocking refill waits for all its scans).
    ///
    /// - Parameters:
    ///   - sampleRateHz: scans per second; unknown or non-positive gives 1.
    ///   - latencyBudgetMs: how long the first scan of a refill may wait.
    public static func defaultScansPerRefill(sampleRateHz: Double?, latencyBudgetMs: Double = 5) -> Int {
        guard let rate = sampleRateHz, rate.isFinite, rate > 0, latencyBudgetMs.isFinite, latencyBudgetMs > 0 else { return 1 }
        let scans = (rate * latencyBudgetMs / 1000).rounded(.down)
        return Int(max(1, min(4, scans)))
    }

    /// Creates the buffer. Calls `iio_device_set_kernel_buffers_count` (when
    /// `kernelBuffers` is given) and then `iio_device_create_buffer`.
    ///
    /// - Parameters:
    ///   - device: the device, with its channels enabled.
    ///   - scansPerRefill: scans per refill, at least 1.
    ///   - kernelBuffers: blocks the kernel queues, or `nil` for libiio's default (4).
    /// - Throws: ``IIOError``: `EINVAL` when no channel is enabled, `EBUSY`
    ///   when another process streams from the device.
    public init(device: IIODevice, scansPerRefill: Int, kernelBuffers: Int? = nil) throws(IIOError) {
        precondition(scansPerRefill >= 1, "IIOBuffer needs at least one scan per refill")
        if let kernelBuffers { try device.setKernelBuffersCount(kernelBuffers) }
        let size: Int
        switch device.scanSize() {
        case .success(let s): size = s
        case .failure(let e): throw e
        }
        errno = 0
        guard let p = iio_device_create_buffer(device.pointer, scansPerRefill, false) else {
            throw IIOError.fromErrno("iio_device_create_buffer(\(device.id), \(scansPerRefill))")
        }
        self.pointer = p
        self.device = device
        self.scansPerRefill = scansPerRefill
        self.scanSize = size
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            }
            self.cancelPipe = (fds[0], fds[1])
        }
    }

    deinit {
        iio_buffer_destroy(pointer)
        if cancelPipe.read >= 0 { close(cancelPipe.read); close(cancelPipe.write) }
    }

    /// Switches between blocking and non-blocking refills. Calls `iio_buffer_set_blocking_mode`.
    ///
    /// - Throws: ``IIOError`` `ENOSYS` over `ip:` (only the local backend has it).
    public func setBlocking(_ blocking: Bool) throws(IIOError) {
        let r = iio_buffer_set_blocking_mode(pointer, blocking)
        if r < 0 { throw IIOError(code: r, operation: "iio_buffer_set_blocking_mode(\(device.id), \(blocking))") }
        isBlocking = blocking
    }

    /// The file descriptor that polls readable when scans are waiting. Calls `iio_buffer_get_poll_fd`.
    ///
    /// - Throws: ``IIOError`` `ENOSYS` over `ip:`.
    public func pollFileDescriptor() throws(IIOError) -> Int32 {
        let fd = iio_buffer_get_poll_fd(pointer)
        if fd < 0 { throw IIOError(code: fd, operation: "iio_buffer_get_poll_fd(\(device.id))") }
        return fd
    }

    /// Fetches the next scans. Calls `iio_buffer_refill`.
    ///
    /// Blocking: waits (up to the context timeout) for ``scansPerRefill`` scans.
    /// Non-blocking: returns what is there, or `EAGAIN`.
    /// - Returns: the bytes now in ``bytes``, or the errno (`ETIMEDOUT`,
    ///   `ENODEV` device gone, `EBADF` cancelled, `EAGAIN` nothing yet).
    @inlinable
    public func refill() -> Result<Int, IIOError> {
        let n = iio_buffer_refill(pointer)
        if n < 0 { return .failure(IIOError(code: Int32(truncatingIfNeeded: n), operation: "iio_buffer_refill(\(device.id))")) }
        return .success(n)
    }

    /// A poll-driven refill for non-blocking buffers: waits until the device
    /// is readable (or `timeoutMs` passes, or ``cancel()`` is called), then
    /// refills. Calls `poll` on `iio_buffer_get_poll_fd`, then `iio_buffer_refill`.
    ///
    /// - Returns: bytes read (a partial buffer is normal), or `ETIMEDOUT`, `EBADF` when cancelled.
    public func waitAndRefill(timeoutMs: Int32) -> Result<Int, IIOError> {
        let fd: Int32
        do { fd = try pollFileDescriptor() } catch { return .failure(error) }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: cancelPipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let r = poll(&fds, 2, timeoutMs)
            if r < 0 {
                if errno == EINTR { continue }
                return .failure(IIOError.fromErrno("poll(\(device.id))"))
            }
            if r == 0 { return .failure(IIOError(code: ETIMEDOUT, operation: "poll(\(device.id))")) }
            if fds[1].revents != 0 { return .failure(IIOError(code: EBADF, operation: "iio_buffer_refill(\(device.id)): cancelled")) }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
                return .failure(IIOError(code: ENODEV, operation: "poll(\(device.id))"))
            }
            let result = refill()
            if case .failure(let e) = result, e.isWouldBlock { continue }
            return result
        }
    }

    /// The scans of the last refill, `iio_buffer_start` to `iio_buffer_end`:
    /// whole scans laid out as the kernel gave them. Valid until the next refill.
    @inlinable
    public var bytes: UnsafeRawBufferPointer {
        let start = iio_buffer_start(pointer)!
        let end = iio_buffer_end(pointer)!
        return UnsafeRawBufferPointer(start: UnsafeRawPointer(start), count: UnsafeRawPointer(end) - UnsafeRawPointer(start))
    }

    /// Makes a refill in progress (or the next one) return `EBADF`. Safe from
    /// another thread. Calls `iio_buffer_cancel`.
    public func cancel() {
        var one: UInt8 = 1
        if cancelPipe.write >= 0 { _ = write(cancelPipe.write, &one, 1) }
        iio_buffer_cancel(pointer)
    }
}
