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
public final class IIOBuffer {
    /// The device streamed from.
    public let device: IIODevice
    /// Scans a blocking refill waits for (libiio's `samples_count`).
    public let scansPerRefill: Int
    /// Bytes per scan of the enabled channels.
    public let scanSize: Int
    @usableFromInline internal let pointer: OpaquePointer
    /// Whether refills are non-blocking (poll-driven).
    public private(set) var isBlocking = true

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
        // libiio's local backend prints a warning here on most devices (``LibiioNotices``).
        var code: Int32 = 0
        let created = LibiioNotices.filtering { () -> OpaquePointer? in
            errno = 0
            let p = iio_device_create_buffer(device.pointer, scansPerRefill, false)
            code = errno
            return p
        }
        guard let p = created else {
            errno = code
            throw IIOError.fromErrno("iio_device_create_buffer(\(device.id), \(scansPerRefill))")
        }
        self.pointer = p
        self.device = device
        self.scansPerRefill = scansPerRefill
        self.scanSize = size
    }

    deinit { iio_buffer_destroy(pointer) }

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

    /// The scans of the last refill, `iio_buffer_start` to `iio_buffer_end`:
    /// whole scans laid out as the kernel gave them. Valid until the next refill.
    @inlinable
    public var bytes: UnsafeRawBufferPointer {
        let start = iio_buffer_start(pointer)!
        let end = iio_buffer_end(pointer)!
        return UnsafeRawBufferPointer(start: UnsafeRawPointer(start), count: UnsafeRawPointer(end) - UnsafeRawPointer(start))
    }

    /// Makes a refill in progress (or the next one) return `EBADF`. Calls `iio_buffer_cancel`.
    /// (From another thread, go through ``IIOScanSource/stop``.)
    public func cancel() {
        iio_buffer_cancel(pointer)
    }
}
