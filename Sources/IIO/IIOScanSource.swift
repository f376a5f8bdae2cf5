// Over 300 lines: refills, timeouts, loss, reconnection and the cancel that stops a blocked refill are one state machine every live command shares.
import CIIO
import ForceStageClock
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a live stream behaves: the one place every live command (`run`, `meter`,
/// `calibrate`, `record`) states its refill size, timeouts and what a loss means.
public struct IIOScanPolicy: Sendable {
    /// Scans a refill waits for (libiio's `samples_count`), at least 1.
    public var scansPerRefill: Int
    /// Blocks the kernel queues (`iio_device_set_kernel_buffers_count`); `nil`: libiio's default (4).
    public var kernelBuffers: Int?
    /// How long one refill may wait, ms (0: forever). The poll-driven path waits this long;
    /// a blocking refill waits the context's timeout, which the opener sets to the same value.
    public var timeoutMs: UInt32 = 1000
    /// Consecutive refill timeouts that make the sensor lost; `nil`: silence is never a loss (``IIOScanEvent/idle``).
    public var timeoutsBeforeLost: Int? = 2
    /// A timeout while the device is still present ends the stream (an exhausted emulated recording).
    public var endOnTimeout = false
    /// Non-blocking refills driven by `poll` where the backend has them (`local:`); blocking refills otherwise.
    public var pollDriven = true
    /// After a loss, reopen the device with backoff (50 ms doubling to 2 s) and report ``IIOScanEvent/recovered(_:)``;
    /// without it a loss is the end.
    public var reconnect = true

    /// A policy of `scansPerRefill` scans per refill and the defaults for everything else.
    public init(scansPerRefill: Int) {
        self.scansPerRefill = max(1, scansPerRefill)
    }
}

/// What ``IIOScanSource/next(waitingAtMostMs:)`` returns.
public enum IIOScanEvent {
    /// Whole scans as the kernel laid them out, valid until the next call, and the
    /// refill's arrival on CLOCK_MONOTONIC (one clock reading per refill).
    case scans(UnsafeRawBufferPointer, arrivalNs: Int64)
    /// A refill timed out and the policy does not count silence as a loss.
    case idle
    /// The sensor is lost (the text says how); the buffer is closed. With
    /// ``IIOScanPolicy/reconnect`` the next calls reopen it, else ``ended`` follows.
    case lost(String)
    /// A reopened device is not usable as it was (a different scan layout); still waiting. Reported once per loss.
    case unusable(String)
    /// The device is streaming again with the same layout (its display name).
    case recovered(String)
    /// The data ended: a timeout with ``IIOScanPolicy/endOnTimeout`` while the device is still present,
    /// or a loss without ``IIOScanPolicy/reconnect``.
    case ended
    /// ``IIOScanStop/request()`` was called.
    case stopped
}

/// Stops an ``IIOScanSource`` from another thread: wakes its poll (a ``SelfPipe``)
/// and cancels a blocking refill in progress (`iio_buffer_cancel`).
public final class IIOScanStop: Sendable {
    private let requested = Atomic<Bool>(false)
    /// Readable once a stop is requested; the source polls it beside the device.
    let wake: SelfPipe
    var fd: Int32 { wake.readFD }
    /// The blocking buffer being refilled, so a stop can cancel it; cleared before the buffer is destroyed.
    let blocking = Mutex<IIOBufferCancel?>(nil)

    /// A stop not yet requested; `nil` when out of file descriptors.
    public init?() {
        guard let wake = SelfPipe() else { return nil }
        self.wake = wake
    }

    /// Whether a stop was requested.
    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Requests the stop: the source's refill (poll-driven or blocking) returns, and every later
    /// call to ``IIOScanSource/next(waitingAtMostMs:)`` returns ``IIOScanEvent/stopped``. Idempotent, any thread.
    public func request() {
        if requested.exchange(true, ordering: .acquiringAndReleasing) { return }
        wake.signal()
        blocking.withLock { $0?.cancel() }
    }
}

/// `iio_buffer_cancel` for another thread. libiio documents the call as thread-safe
/// (it sets a flag and writes the buffer's own cancel eventfd); the handle is valid
/// only while it sits in ``IIOScanStop/blocking``, which the owner clears under the
/// same lock before the buffer is destroyed.
struct IIOBufferCancel: @unchecked Sendable {
    let pointer: OpaquePointer
    func cancel() { iio_buffer_cancel(pointer) }
}

/// A live stream of scans from one device: the one place that decides channel
/// roles (force, timestamp), buffer creation and refills, timeouts, loss,
/// reconnection and the end. `run`'s scan thread, `meter`, `calibrate` and
/// `record` all read through it.
///
/// One thread owns it and calls ``next(waitingAtMostMs:)``; any thread may
/// stop it through ``stop``. Refills cost two system calls where the backend
/// allows poll-driven refills (`poll` on the buffer and the stop eventfd, then
/// libiio's `read`), and no allocation.
public final class IIOScanSource {
    /// Reopens the device after a loss (the caller's context URI, device choice, timeout and trigger); `nil` while it is not back.
    public typealias Opener = () -> IIODevice?

    /// The enabled channels, their roles and the scan layout; fixed for the source's life.
    public let stream: IIOStreamChannels
    /// `name (label, id)` of the device as first opened.
    public let displayName: String
    /// Whether the device stamps scans on CLOCK_MONOTONIC (`current_timestamp_clock`), as of the last (re)open.
    public private(set) var monotonicStamps: Bool
    /// How the stream behaves.
    public let policy: IIOScanPolicy
    /// Stops the stream from another thread.
    public let stop: IIOScanStop
    /// Refills that returned scans.
    public private(set) var refills: Int64 = 0

    private let open: Opener
    private let uri: String
    private var buffer: IIOBuffer?
    private var pollFD: Int32 = -1
    private var timeouts = 0
    private var backoffMs: Int32 = IIOScanSource.firstBackoffMs
    private var finished = false
    private var unusableReported = false
    private static let firstBackoffMs: Int32 = 50
    private static let lastBackoffMs: Int32 = 2000

    /// Enables `forceChannels` (plus the timestamp) on `device`, asks for monotonic
    /// timestamps, and creates the buffer.
    ///
    /// - Parameters:
    ///   - device: the device as first opened (with any trigger already attached).
    ///   - forceChannels: ids of the channels that carry force, in the caller's order.
    ///   - policy: refills, timeouts, loss.
    ///   - open: reopens the device after a loss.
    /// - Throws: ``IIOScanSourceError`` naming the channel or the buffer problem.
    public init(device: IIODevice, forceChannels: [String], policy: IIOScanPolicy,
                reopen open: @escaping Opener) throws(IIOScanSourceError) {
        self.policy = policy
        self.open = open
        uri = device.context.uri
        displayName = device.displayName
        guard let stop = IIOScanStop() else { throw .buffer(IIOError(code: EMFILE, operation: "pipe")) }
        self.stop = stop
        monotonicStamps = device.useMonotonicTimestamps()
        do { stream = try device.enableChannels(forceChannels, timestamp: true) } catch { throw .channels(error) }
        switch makeBuffer(device) {
        case .success(let b): adopt(b)
        case .failure(let e): throw .buffer(e)
        }
    }

    deinit { closeBuffer() }

    /// The next scans, or what happened instead. Blocks until scans arrive, a
    /// timeout, a loss, or a stop. Returns ``IIOScanEvent/stopped`` or
    /// ``IIOScanEvent/ended`` forever once the stream is over.
    ///
    /// - Parameter waitingAtMostMs: a shorter wait than the policy's for this call (poll-driven refills only).
    public func next(waitingAtMostMs: UInt32? = nil) -> IIOScanEvent {
        while true {
            if stop.isRequested { closeBuffer(); finished = true; return .stopped }
            if finished { return .ended }
            guard let b = buffer else {
                if let event = reopen() { return event }
                continue
            }
            let timeout = waitingAtMostMs.map { min($0, policy.timeoutMs == 0 ? $0 : policy.timeoutMs) } ?? policy.timeoutMs
            let result = pollFD >= 0 ? pollAndRefill(b, timeoutMs: timeout == 0 ? -1 : Int32(clamping: timeout)) : b.refill()
            switch result {
            case .success:
                timeouts = 0
                backoffMs = Self.firstBackoffMs
                refills &+= 1
                return .scans(b.bytes, arrivalNs: monotonicNanoseconds())
            case .failure where stop.isRequested:
                continue
            case .failure(let e) where e.isTimeout:
                if waitingAtMostMs != nil && pollFD >= 0 && timeout < policy.timeoutMs { return .idle }
                timeouts += 1
                if policy.endOnTimeout && stillThere(b.device) {
                    closeBuffer()
                    finished = true
                    return .ended
                }
                guard let limit = policy.timeoutsBeforeLost else { return .idle }
                if timeouts < limit { continue }
                let waited = policy.timeoutMs == 0 ? "" : " for \(UInt64(limit) * UInt64(policy.timeoutMs)) ms"
                return lose("no scans\(waited) from \(displayName)")
            case .failure(let e):
                return lose("\(displayName) vanished (\(e.description))")
            }
        }
    }

    /// Ends the stream now: the buffer is destroyed (kernel buffer and channels disabled), and
    /// ``next(waitingAtMostMs:)`` returns ``IIOScanEvent/ended`` from then on. Call before putting a trigger back.
    public func close() {
        closeBuffer()
        finished = true
    }

    // MARK: - Loss and return

    private func lose(_ reason: String) -> IIOScanEvent {
        closeBuffer()
        timeouts = 0
        unusableReported = false
        if !policy.reconnect { finished = true }
        return .lost(reason)
    }

    /// One attempt to reopen after the backoff; an event when there is one to report.
    private func reopen() -> IIOScanEvent? {
        // The backoff waits on the stop eventfd, so a stop ends it at once.
        var p = pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, backoffMs)
        if stop.isRequested { return nil }
        backoffMs = min(backoffMs * 2, Self.lastBackoffMs)
        guard let d = open() else { return nil }
        guard let s = try? d.enableChannels(stream.forceIDs, timestamp: true) else { return nil }
        if s.layout != stream.layout {
            if unusableReported { return nil }
            unusableReported = true
            return .unusable("\(d.displayName) came back with a different scan layout; waiting")
        }
        monotonicStamps = d.useMonotonicTimestamps()
        guard case .success(let b) = makeBuffer(d) else { return nil }
        adopt(b)
        return .recovered(d.displayName)
    }

    /// Whether a device that timed out is still present: then the silence is the end of the data.
    private func stillThere(_ device: IIODevice) -> Bool {
        guard let context = try? IIOContext(uri: uri) else { return false }
        return (try? context.device(device.id)) != nil
    }

    // MARK: - Buffer

    private func makeBuffer(_ device: IIODevice) -> Result<IIOBuffer, IIOError> {
        do { return .success(try IIOBuffer(device: device, scansPerRefill: policy.scansPerRefill, kernelBuffers: policy.kernelBuffers)) } catch {
            return .failure(error)
        }
    }

    /// Takes `b` as the buffer: poll-driven where the backend allows it, else registered for a blocking cancel.
    private func adopt(_ b: IIOBuffer) {
        buffer = b
        pollFD = -1
        if policy.pollDriven && b.device.context.isLocal {
            do {
                try b.setBlocking(false)
                pollFD = try b.pollFileDescriptor()
            } catch {
                try? b.setBlocking(true)
                pollFD = -1
            }
        }
        if pollFD < 0 {
            let handle = IIOBufferCancel(pointer: b.pointer)
            stop.blocking.withLock { $0 = handle }
            // A stop requested meanwhile must still reach this refill.
            if stop.isRequested { handle.cancel() }
        }
    }

    /// Closes the buffer (`iio_buffer_destroy` disables the kernel buffer and the channels).
    private func closeBuffer() {
        stop.blocking.withLock { $0 = nil }
        buffer = nil
        pollFD = -1
    }

    /// Waits until the device is readable (or `timeoutMs`, or a stop), then refills what is there.
    /// Two system calls per refill: `poll` here and libiio's `read`.
    ///
    /// The kernel reports the buffer readable only once `buffer/watermark` scans wait (libiio sets the
    /// watermark to ``IIOScanPolicy/scansPerRefill``), but a non-blocking read returns whatever it holds
    /// (`iio_buffer_read` waits for nothing under `O_NONBLOCK`). So a poll that times out is followed by
    /// one such read: scans a device left short of the watermark when it stopped are delivered, not
    /// lost at the end of the stream; only `EAGAIN` there is a timeout. Steady state never times out,
    /// so it costs nothing there.
    private func pollAndRefill(_ b: IIOBuffer, timeoutMs: Int32) -> Result<Int, IIOError> {
        while true {
            let r: Int32 = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { fds in
                fds[0] = pollfd(fd: pollFD, events: Int16(POLLIN), revents: 0)
                fds[1] = pollfd(fd: stop.fd, events: Int16(POLLIN), revents: 0)
                let n = poll(fds.baseAddress!, 2, timeoutMs)
                if n < 0 { return errno == EINTR ? 1 : -errno }
                if n == 0 { return -ETIMEDOUT }
                if fds[1].revents != 0 { return -EBADF }
                if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 { return -ENODEV }
                return 1
            }
            if r == -ETIMEDOUT {
                let below = b.refill()
                if case .failure(let e) = below, e.isWouldBlock { return .failure(IIOError(code: ETIMEDOUT, operation: "poll(\(b.device.id))")) }
                return below
            }
            if r < 0 { return .failure(IIOError(code: -r, operation: "poll(\(b.device.id))")) }
            let result = b.refill()
            if case .failure(let e) = result, e.isWouldBlock { continue }
            return result
        }
    }
}

/// Why an ``IIOScanSource`` could not start.
public enum IIOScanSourceError: Error, CustomStringConvertible {
    /// A channel is missing, cannot be buffered, or the layout is inconsistent.
    case channels(IIOStreamError)
    /// `iio_device_create_buffer` (or the kernel buffer count) failed: `EBUSY` when another process streams.
    case buffer(IIOError)

    public var description: String {
        switch self {
        case .channels(let e): return e.description
        case .buffer(let e): return e.description
        }
    }
}
