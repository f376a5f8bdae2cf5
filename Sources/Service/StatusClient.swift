import ForceStageClock
import ForceStageFormats
import ForceStageIIO
#if canImport(Glibc)
import Glibc
#endif

/// The client side of `forcestage status`: connects to the service's socket,
/// asks for `status`, and returns the reply line.
public enum StatusClient {
    /// Why the status could not be read: a message for people.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong and what to check.
        public var description: String
        /// Whether the service was there but did not answer in time (accepting or replying).
        public var timedOut = false
    }

    /// Connects to `path`, sends `status`, and returns the service's status line (JSON).
    /// Connecting and reading the reply share one deadline, `timeoutMs` from the call:
    /// a service whose backlog is full or that never answers is a timeout, not a hang.
    public static func fetch(socketPath path: String, timeoutMs: Int32 = 3000) throws(Failure) -> String {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { throw Failure(description: "\(path) is too long for a Unix socket path") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "cannot create a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let deadline = monotonicNanoseconds() &+ Int64(timeoutMs) * 1_000_000
        func remainingMs() -> Int32 { Int32(clamping: max(0, (deadline &- monotonicNanoseconds()) / 1_000_000)) }
        let stuck = "the service may be stuck; check its log (journalctl -u forcestage), or raise --timeout-ms"
        // Non-blocking connect: a Unix socket with a full backlog answers EAGAIN; retry until the deadline.
        while true {
            let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            if r == 0 { break }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EINPROGRESS {
                guard remainingMs() > 0 else {
                    throw Failure(description: "\(path) accepted no connection within \(timeoutMs) ms (its backlog is full); \(stuck)", timedOut: true)
                }
                if e == EINPROGRESS {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, min(remainingMs(), 50))
                    var soError: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    if p.revents != 0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len) == 0, soError == 0 { break }
                } else {
                    usleep(20_000)
                }
                continue
            }
            let hint = e == ENOENT || e == ECONNREFUSED ? "is `forcestage run --socket \(path)` running?" :
                e == EACCES ? "your user needs to be in the service's group (forcestage)" : "check the path"
            throw Failure(description: "cannot connect to \(path): \(String(cString: strerror(e))); \(hint)")
        }
        let request = Array("status\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        // Events may arrive before the reply: read lines until the status one (each line bounded).
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while remainingMs() > 0 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, min(remainingMs(), 100))
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { break }
            if p.revents == 0 { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if n <= 0 {
                throw Failure(description: "\(path) closed the connection without a status line; the service may be stopping or refusing clients (see its log)")
            }
            pending.append(contentsOf: buffer[0..<n])
            while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                if line.hasPrefix("{\"status\":") { return line }
                if line.hasPrefix("{\"error\":") {
                    throw Failure(description: "\(path) answered: \(printable(line.utf8))")
                }
            }
            if pending.count > 1 << 20 { throw Failure(description: "\(path) sent a line over 1 MiB; that is not a forcestage service") }
        }
        throw Failure(description: "no status reply from \(path) within \(timeoutMs) ms; \(stuck)", timedOut: true)
    }

    /// The status line as text for people.
    public static func humanReadable(_ line: String) -> String {
        guard let top = try? JSON.parse(line), let s = top["status"], s.members != nil else { return line }
        // Values come from another process: shown escaped, never as terminal control.
        func text(_ value: JSON?) -> String { value.map { printable($0.displayText.utf8) } ?? "-" }
        func v(_ k: String) -> String { text(s[k]) }
        func lat(_ k: String) -> String {
            guard let l = s[k], let n = l["samples"]?.integer, n > 0 else { return "no events yet" }
            return ["p50", "p90", "p99", "p999", "max"].map { "\($0 == "p999" ? "p99.9" : $0) \(text(l[$0]))" }.joined(separator: "  ") + " ms  (\(n) events)"
        }
        let o = s["overflows"] ?? .object([])
        var extra = ""
        let haptic = s["hapticDelayMs"] == nil ? "" :
            "\nhaptic delay    \(lat("hapticDelayMs"))  on \(v("hapticDevice")), \(v("hapticFailures")) failed"
        if let u = s["uinput"], u.members != nil {
            extra += "\nuinput          \(text(u["name"])) at \(text(u["device"])), \(text(u["writeFailures"])) failed writes"
        }
        return """
        health          \(v("health"))  \(v("device"))  pid \(v("pid"))  up \(v("uptimeSeconds")) s
        profile         \(v("profile"))  \(v("sampleRateHz")) scans/s  \(v("scansPerRefill")) scans per refill
        scans           \(v("scans")) classified, \(v("scansRead")) read, \(v("droppedScans")) dropped (timestamp gaps)
        events          \(v("events"))
        overflows       classifier ring \(text(o["classifierRing"])), event ring \(text(o["eventRing"]))
        budget          \(v("budgetMs")) ms, worst case \(v("worstCaseMs")) ms, \(v("budgetViolations")) violations
        latency         \(lat("latencyMs"))
        host latency    \(lat("hostLatencyMs"))\(haptic)
        sensor losses   \(v("losses"))
        reloads         \(v("reloads")) applied, \(v("reloadFailures")) refused
        clients         \(v("clients")) connected (at most \(v("maxClients"))), \(v("clientsRefused")) refused, \(v("clientDrops")) events dropped for slow clients
        """ + extra
    }
}
