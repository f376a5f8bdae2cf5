#if canImport(Glibc)
import Glibc
#endif

/// systemd's readiness and watchdog protocol without libsystemd: datagrams
/// of `KEY=value` lines sent to the socket named by `$NOTIFY_SOCKET`
/// (a path, or `@name` in the abstract namespace).
public struct SystemdNotifier: Sendable {
    /// The socket address, or `nil` when not run by systemd (then every call does nothing).
    public let socketPath: String?
    /// Half the watchdog timeout (`$WATCHDOG_USEC`), as systemd recommends; `nil` without a watchdog.
    public let watchdogIntervalNs: Int64?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        var interval: Int64?
        if path != nil, let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 {
            let pidOK = environment["WATCHDOG_PID"].flatMap { Int32($0) }.map { $0 == getpid() } ?? true
            if pidOK { interval = usec * 1000 / 2 }
        }
        watchdogIntervalNs = interval
    }

    /// Sends `state` (e.g. `READY=1`). Returns whether the datagram went out.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
        return sent == message.count
    }
}
