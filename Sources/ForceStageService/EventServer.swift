import Foundation
import Logging

/// What a socket client is waiting to receive.
enum ClientEntry {
    /// An event line (counts against the client's queue bound).
    case event(String)
    /// A reply or notice (status, error, drop report).
    case reply(String)
}

/// One connected client: its own bounded queue, so a stuck client never
/// delays the others, the classifier or the sensor.
final class EventClient {
    let fd: Int32
    let id: Int
    private var queue: [ClientEntry?]
    private var head = 0
    private(set) var queued = 0
    private var queuedEvents = 0
    let eventCapacity: Int
    /// Events dropped since the last drop report was queued.
    private(set) var pendingDrops: Int64 = 0
    /// Events dropped in all.
    private(set) var drops: Int64 = 0
    private var out: [UInt8] = []
    private var outOffset = 0
    private var input: [UInt8] = []
    /// Close once the queue is written (after a protocol error or `quit`).
    var closeWhenFlushed = false
    var dead = false

    init(fd: Int32, id: Int, eventCapacity: Int) {
        self.fd = fd
        self.id = id
        self.eventCapacity = eventCapacity
        // Events plus a few replies and the drop report.
        queue = Array(repeating: nil, count: eventCapacity + 8)
        out.reserveCapacity(4096)
        input.reserveCapacity(1024)
    }

    var hasOutput: Bool { queued > 0 || outOffset < out.count }

    private func append(_ e: ClientEntry) -> Bool {
        guard queued < queue.count else { return false }
        queue[(head + queued) % queue.count] = e
        queued += 1
        return true
    }

    /// Queues an event line, or counts it as dropped when the queue is full.
    func enqueue(event line: String) {
        if pendingDrops > 0 {
            // Report the drops in sequence, before the next event that fits.
            guard queuedEvents < eventCapacity, append(.reply(dropNotice())) else { pendingDrops += 1; drops += 1; return }
            pendingDrops = 0
        }
        guard queuedEvents < eventCapacity, append(.event(line)) else { pendingDrops += 1; drops += 1; return }
        queuedEvents += 1
    }

    /// Queues a reply; replies past the small reserve are dropped (a client spamming commands it never reads).
    func enqueue(reply line: String) { _ = append(.reply(line)) }

    /// Queues a line at shutdown even past the bound (the drop report and the final status).
    func enqueueFinal(_ line: String) {
        if queued == queue.count {
            // Grow by one slot, keeping the ring's order: once per line, only at shutdown.
            var ordered: [ClientEntry?] = (0..<queued).map { queue[(head + $0) % queue.count] }
            ordered.append(nil)
            queue = ordered
            head = 0
        }
        _ = append(.reply(line))
    }

    /// Queues the drop report now, if any is owed (at shutdown), even past the bound.
    func flushDropNotice() {
        guard pendingDrops > 0 else { return }
        enqueueFinal(dropNotice())
        pendingDrops = 0
    }

    private func dropNotice() -> String {
        "{\"dropped\":\(pendingDrops),\"droppedTotal\":\(drops),\"reason\":\"this client did not read fast enough; its queue holds \(eventCapacity) events\"}\n"
    }

    /// Writes what the socket takes without blocking.
    /// - Returns: `false` when the client is gone.
    func write() -> Bool {
        while true {
            if outOffset >= out.count {
                guard queued > 0, let entry = queue[head] else { return true }
                queue[head] = nil
                head = (head + 1) % queue.count
                queued -= 1
                out.removeAll(keepingCapacity: true)
                outOffset = 0
                switch entry {
                case .event(let s): out.append(contentsOf: s.utf8); queuedEvents -= 1
                case .reply(let s): out.append(contentsOf: s.utf8)
                }
            }
            let n = out.withUnsafeBytes { send(fd, $0.baseAddress! + outOffset, $0.count - outOffset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { outOffset += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
            if n < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// Reads what arrived; returns the complete lines, or `nil` when the client closed.
    /// A line longer than 1 KiB is a protocol error: the returned array then ends with `nil`.
    func readLines() -> [String?]? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n == 0 { return nil }
        if n < 0 { return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? [] : nil }
        input.append(contentsOf: buffer[0..<n])
        var lines: [String?] = []
        while let nl = input.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: input[..<nl], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            input.removeSubrange(...nl)
        }
        if input.count > 1024 {
            input.removeAll()
            lines.append(nil)
        }
        return lines
    }
}

/// Why the socket could not be served.
struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// The Unix domain socket clients subscribe on (`--socket PATH`, mode 0660).
final class EventServer {
    let path: String
    let fd: Int32
    let clientQueue: Int
    let logger: Logger
    private(set) var clients: [EventClient] = []
    private var nextID = 1
    /// Drops of clients already gone.
    private(set) var departedDrops: Int64 = 0

    init(path: String, clientQueue: Int, logger: Logger) throws(SocketError) {
        self.path = path
        self.clientQueue = clientQueue
        self.logger = logger
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw SocketError(description: "--socket \(path) is longer than the \(MemoryLayout.size(ofValue: addr.sun_path) - 1) bytes a Unix socket path may have; choose a shorter path such as /run/forcestage/events.sock")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError(description: "--socket \(path) exists and is not a socket; remove it or choose another path")
            }
            if Self.accepts(&addr) {
                throw SocketError(description: "--socket \(path): another service is already serving it; stop that one or choose another path")
            }
            unlink(path)   // stale: left by a process that died
        }
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard s >= 0 else { throw SocketError(description: "cannot create a Unix socket: \(String(cString: strerror(errno)))") }
        let old = umask(0o117)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        let bindErrno = errno
        umask(old)
        guard bound == 0 else {
            Glibc.close(s)
            let dir = (path as NSString).deletingLastPathComponent
            throw SocketError(description: "cannot create socket \(path): \(String(cString: strerror(bindErrno))); choose a --socket path in a directory the service's user can write (\(dir.isEmpty ? "." : dir) is not), e.g. /run/forcestage/events.sock (RuntimeDirectory=forcestage in the unit)")
        }
        chmod(path, 0o660)
        guard listen(s, 64) == 0 else {
            Glibc.close(s)
            unlink(path)
            throw SocketError(description: "cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        fd = s
    }

    private static func accepts(_ addr: inout sockaddr_un) -> Bool {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { return false }
        defer { Glibc.close(s) }
        return withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 } }
    }

    /// Accepts every waiting connection.
    func acceptAll() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)
            _ = fcntl(c, F_SETFL, O_NONBLOCK)
            // A small kernel send buffer keeps a stuck client's backlog bounded; the queue above it counts drops.
            var size: Int32 = 16384
            setsockopt(c, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let client = EventClient(fd: c, id: nextID, eventCapacity: clientQueue)
            nextID += 1
            clients.append(client)
            logger.info("client connected", metadata: ["client.id": "\(client.id)", "clients": "\(clients.count)"])
        }
    }

    /// Sends an event line to every client (into its queue, then as far as its socket takes).
    func broadcast(_ line: String) {
        for c in clients where !c.dead {
            c.enqueue(event: line)
            if !c.write() { c.dead = true }
        }
    }

    /// Client drops in all, present and departed.
    var totalDrops: Int64 { departedDrops + clients.reduce(0) { $0 + $1.drops } }

    /// Closes and forgets dead clients.
    func reap() {
        clients.removeAll { c in
            guard c.dead else { return false }
            Glibc.close(c.fd)
            departedDrops += c.drops
            logger.info("client disconnected", metadata: ["client.id": "\(c.id)", "client.dropped": "\(c.drops)"])
            return true
        }
    }

    /// Flushes every queue for up to `seconds`, then closes every client and removes the socket.
    func shutdown(finalLine: String, seconds: Double) {
        for c in clients where !c.dead {
            c.flushDropNotice()
            c.enqueueFinal(finalLine)
        }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var fds: [pollfd] = []
            for c in clients where !c.dead {
                if !c.write() { c.dead = true; continue }
                if c.hasOutput { fds.append(pollfd(fd: c.fd, events: Int16(POLLOUT), revents: 0)) }
            }
            if fds.isEmpty { break }
            _ = poll(&fds, nfds_t(fds.count), 50)
        }
        for c in clients where !c.dead { c.dead = true }
        reap()
        close()
    }

    private var closed = false
    /// Stops listening and removes the socket file.
    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
        unlink(path)
    }
}
