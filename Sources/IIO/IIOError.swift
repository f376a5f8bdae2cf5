#if canImport(Glibc)
import Glibc
#endif

/// A libiio call that failed, with the errno it reported and the operation
/// that was attempted, in the manner of swift-system's `Errno`.
///
/// libiio reports failures two ways: functions returning pointers give `NULL`
/// and set `errno`; functions returning integers give a negative errno. Both
/// end up here as a positive ``code``.
public struct IIOError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The errno value, positive (`ETIMEDOUT`, `ENODEV`, ...).
    public var code: Int32
    /// What was being done, e.g. `iio_buffer_refill(iio:device0)`.
    public var operation: String

    /// Creates an error from a positive or negative errno.
    public init(code: Int32, operation: String) {
        self.code = code < 0 ? -code : code
        self.operation = operation
    }

    /// Creates an error from the calling thread's current `errno`.
    public static func fromErrno(_ operation: String) -> IIOError {
        let e = errno
        return IIOError(code: e == 0 ? EIO : e, operation: operation)
    }

    /// The errno's symbolic name when it is one libiio commonly returns, else `errno N`.
    public var name: String {
        switch code {
        case EPERM: return "EPERM"
        case ENOENT: return "ENOENT"
        case EINTR: return "EINTR"
        case EIO: return "EIO"
        case ENXIO: return "ENXIO"
        case EBADF: return "EBADF"
        case EAGAIN: return "EAGAIN"
        case ENOMEM: return "ENOMEM"
        case EACCES: return "EACCES"
        case EBUSY: return "EBUSY"
        case ENODEV: return "ENODEV"
        case EINVAL: return "EINVAL"
        case EPIPE: return "EPIPE"
        case ENOSYS: return "ENOSYS"
        case ETIMEDOUT: return "ETIMEDOUT"
        case ECONNREFUSED: return "ECONNREFUSED"
        case ECONNRESET: return "ECONNRESET"
        case EHOSTUNREACH: return "EHOSTUNREACH"
        case ENOTSUP: return "ENOTSUP"
        default: return "errno \(code)"
        }
    }

    /// The C library's text for the errno (`strerror`).
    public var text: String { String(cString: strerror(code)) }

    /// `operation: text (NAME)`, e.g. `iio_buffer_refill(iio:device0): Connection timed out (ETIMEDOUT)`.
    public var description: String { "\(operation): \(text) (\(name))" }

    // MARK: - Classification

    /// The refill waited the context timeout and no scan came (`ETIMEDOUT`).
    public var isTimeout: Bool { code == ETIMEDOUT }
    /// The device went away (`ENODEV`, `ENOENT`, `ENXIO`, or a dropped connection).
    public var isDeviceGone: Bool {
        code == ENODEV || code == ENOENT || code == ENXIO || code == EPIPE || code == ECONNRESET
    }
    /// The buffer was cancelled (`EBADF` after `iio_buffer_cancel`).
    public var isCancelled: Bool { code == EBADF }
    /// A non-blocking refill found nothing yet (`EAGAIN`).
    public var isWouldBlock: Bool { code == EAGAIN }
    /// The backend does not do this (`ENOSYS`), e.g. non-blocking mode over `ip:`.
    public var isUnsupported: Bool { code == ENOSYS || code == ENOTSUP }
}

/// Turns a libiio integer return (negative errno on failure) into a `Result`.
@usableFromInline
internal func iioResult<T: BinaryInteger>(_ value: T, _ operation: @autoclosure () -> String) -> Result<Int, IIOError> {
    value < 0 ? .failure(IIOError(code: Int32(truncatingIfNeeded: value), operation: operation())) : .success(Int(value))
}
