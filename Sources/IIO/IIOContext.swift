import CIIO
#if canImport(Glibc)
import Glibc
#endif

/// An open libiio context: the one owner of a `struct iio_context`, destroyed
/// with the object.
///
/// The URI picks the backend: `local:` (the kernel's sysfs and `/dev/iio:deviceN`),
/// `ip:HOST[:PORT]` (an `iiod` server) or `xml:FILE` (a description, no data).
public final class IIOContext {
    @usableFromInline internal let pointer: OpaquePointer
    /// The URI the context was created from.
    public let uri: String

    /// Opens a context. Calls `iio_create_context_from_uri`.
    ///
    /// - Throws: ``IIOError`` with the errno libiio set (e.g. `ENOENT` when
    ///   `local:` finds no IIO bus, `ECONNREFUSED` for an `ip:` with no iiod).
    ///
    /// For `xml:` the file's parse runs with standard error closed off: libxml2 prints its
    /// own lines there (a parser error with the text and a caret; "no DTD found" even for
    /// a good context without libiio's DTD), and libiio adds "ERROR: Unable to parse XML
    /// file"; the caller's one line says what is wrong instead (``xmlProblem(uri:)``).
    public init(uri: String) throws(IIOError) {
        let quiet = uri.hasPrefix("xml:")
        var code: Int32 = 0
        let created = Self.withStandardError(silenced: quiet) { () -> OpaquePointer? in
            errno = 0
            let p = iio_create_context_from_uri(uri)
            code = errno
            return p
        }
        guard let p = created else {
            errno = code
            throw IIOError.fromErrno("iio_create_context_from_uri(\(uri))")
        }
        self.pointer = p
        self.uri = uri
    }

    /// For `xml:FILE`, the usage message when libiio does not read FILE as a context
    /// (not XML, or XML that is not a libiio context), else `nil`. Opens the context
    /// once, quietly; other URIs give `nil` (they are checked when opened).
    public static func xmlProblem(uri: String) -> String? {
        guard uri.hasPrefix("xml:") else { return nil }
        do { _ = try IIOContext(uri: uri) } catch {
            let path = uri.dropFirst(4)
            return "--uri \(uri): \(path) is not a libiio context (libiio could not read it: \(error.text)); name a libiio context file (iio_genxml writes one)"
        }
        return nil
    }

    /// Runs `body` with file descriptor 2 on /dev/null when `silenced` (put back after), else
    /// with libiio's noise kept off it (``LibiioNotices``);
    /// only while one thread opens contexts (startup, before the service's threads).
    private static func withStandardError<T>(silenced: Bool, _ body: () -> T) -> T {
        guard silenced else { return LibiioNotices.filtering(body) }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard null >= 0 else { return body() }
        defer { close(null) }
        return redirectingStandardError(to: null, body)
    }

    deinit { iio_context_destroy(pointer) }

    /// The backend's name (`local`, `network`, `xml`). Calls `iio_context_get_name`.
    public var backendName: String { String(cString: iio_context_get_name(pointer)) }

    /// Whether the backend streams from the kernel directly (poll fd and non-blocking refill work).
    public var isLocal: Bool { backendName == "local" }

    /// Sets how long a blocking refill waits; 0 waits forever. Calls `iio_context_set_timeout`.
    public func setTimeout(milliseconds: UInt32) throws(IIOError) {
        if case .failure(let e) = iioResult(iio_context_set_timeout(pointer, milliseconds), "iio_context_set_timeout(\(milliseconds))") {
            throw e
        }
    }

    /// Every device of the context, in order. Calls `iio_context_get_devices_count` and `iio_context_get_device`.
    public var devices: [IIODevice] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { i in
            iio_context_get_device(pointer, i).map { IIODevice(context: self, pointer: $0) }
        }
    }

    /// Finds a device by id (`iio:device0`), then label, then name. Calls `iio_context_find_device`.
    ///
    /// - Throws: ``IIOError`` `ENODEV` when nothing matches.
    public func device(_ key: String) throws(IIOError) -> IIODevice {
        guard let p = iio_context_find_device(pointer, key) else {
            throw IIOError(code: ENODEV, operation: "iio_context_find_device(\(key))")
        }
        return IIODevice(context: self, pointer: p)
    }

    /// The single device that has force channels (buffer-capable voltage inputs).
    ///
    /// - Throws: ``IIOError`` `ENODEV` when there is none, `EBUSY`-free `EINVAL`
    ///   naming the candidates when there are several (pass a device then).
    public func forceDevice() throws(IIOError) -> IIODevice {
        let candidates = devices.filter { !$0.forceChannels.isEmpty }
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty {
            throw IIOError(code: ENODEV, operation: "no device with buffered voltage input channels in \(uri)")
        }
        let names = candidates.map { $0.displayName }.joined(separator: ", ")
        throw IIOError(code: EINVAL, operation: "several force devices in \(uri) (\(names))")
    }
}
