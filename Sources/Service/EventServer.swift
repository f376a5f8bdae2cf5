// Over 300 lines: the socket's accept, per-client buffers, subscriptions and status replies share one poll loop and its client table.
import ForceStageClock
import ForceStageCore
import ForceStageFormats
import ForceStageIIO
#if canImport(Glibc)
import Glibc
#endif
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
    private var reader = SocketLineReader()
    /// Lines read but not served yet (from one read, at most 1024), and the next to serve.
    private var waiting: [SocketLine] = []
    private var waitingNext = 0
    /// The most lines of one client served in one turn of the loop: a client that floods
    /// commands waits for its next turn like every other client, and is read again only once
    /// its waiting lines are served (meanwhile its sends fill the socket and it waits).
    static let linesPerTurn = 16
    /// Close once the queue is written (after a protocol error or `quit`).
    var closeWhenFlushed = false
    var dead = false
    /// What this client is sent (`subscribe`); every event but progress until it asks.
    var subscription = Subscription.everything

    init(fd: Int32, id: Int, eventCapacity: Int) {
        self.fd = fd
        self.id = id
        self.eventCapacity = eventCapacity
        // Events plus a few replies and the drop report.
        queue = Array(repeating: nil, count: eventCapacity + 8)
        out.reserveCapacity(4096)
    }

    var hasOutput: Bool { queued > 0 || outOffset < out.count }
    /// Whether a reply queued now would be kept (a client that asks but never reads runs out of room).
    var hasRoomForReply: Bool { queued < queue.count }
    /// When this client's last unknown command was logged (monotonic ns), and how many were not logged since.
    var lastUnknownLogNs: Int64 = 0
    var unknownNotLogged = 0

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
        JSON.object([("dropped", .int(pendingDrops)), ("droppedTotal", .int(drops)),
                     ("reason", .string("this client did not read fast enough; its queue holds \(eventCapacity) events"))]).rendered() + "\n"
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

    /// Whether lines read earlier still wait for a turn.
    var hasWaitingLines: Bool { waitingNext < waiting.count }

    /// Reads what arrived (at most 1024 bytes), unless lines read earlier still wait.
    /// - Returns: `false` when the client closed (seen only once its waiting lines are served).
    func receive() -> Bool {
        guard !hasWaitingLines else { return true }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n == 0 { return false }
        if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
        // A line longer than SocketLineReader.maximumLineBytes ends the lines with `.overlong`.
        waiting = reader.feed(buffer[0..<n])
        waitingNext = 0
        return true
    }

    /// This turn's lines: the next ``linesPerTurn`` waiting at most, oldest first.
    func takeTurn() -> ArraySlice<SocketLine> {
        let end = min(waiting.count, waitingNext + Self.linesPerTurn)
        defer { waitingNext = end }
        return waiting[waitingNext..<end]
    }
}

/// Why the socket could not be served.
struct SocketError: Error, CustomStringConvertible {
    var description: String
}

/// The Unix domain socket clients subscribe on (`--socket PATH`, mode 0660).
///
/// The file is created with its mode (umask around `bind`, never `chmod` by
/// path), its device and inode are remembered, and at exit it is removed only
/// if the path still names that socket. At most `maxClients` clients are served;
/// the next one gets the status line and one error line and is closed (counted in
/// `clientsRefused`), as is one that arrives while the process is out of file
/// descriptors (a descriptor held in reserve accepts it): `status` is answered
/// even there.
final class EventServer {
    let path: String
    let fd: Int32
    let clientQueue: Int
    let maxClients: Int
    let logger: Logger
    private(set) var clients: [EventClient] = []
    private var nextID = 1
    /// Drops of clients already gone.
    private(set) var departedDrops: Int64 = 0
    /// Clients turned away (over the limit, or no descriptor left to serve them).
    private(set) var refused: Int64 = 0
    /// The socket file this process created.
    private let device: UInt64
    private let inode: UInt64
    /// A descriptor held back so that, out of descriptors, a waiting client can still be accepted and told.
    private var reserveFD: Int32
    /// While out of descriptors, the listening socket is not polled until then (monotonic ns).
    private(set) var acceptPausedUntil: Int64 = 0
    private var lastRefusalLog: Int64 = 0
    private var refusedSinceLog: Int64 = 0

    init(path: String, clientQueue: Int, maxClients: Int = 64, logger: Logger) throws(SocketError) {
        self.path = path
        self.clientQueue = clientQueue
        self.maxClients = maxClients
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
                throw SocketError(description: "--socket \(path) exists and is not a socket; it is left alone: move it away or choose another path")
            }
            if Self.accepts(&addr) {
                throw SocketError(description: "--socket \(path): another service is already serving it; stop that one (forcestage status --socket \(path) shows its pid) or choose another path")
            }
            guard st.st_uid == geteuid() else {
                throw SocketError(description: "--socket \(path) is a stale socket of user \(st.st_uid), not this one (\(geteuid())); it is left alone: have its owner remove it, or choose another path")
            }
            unlink(path)   // stale, ours: left by a process that died
        }
        // Bound and listening under a temporary name first, then hard-linked into place: a client
        // never finds the path before it accepts, and link() never replaces anything already there.
        let temporary = "\(path).\(getpid()).new"
        let staged = temporary.utf8.count < MemoryLayout.size(ofValue: addr.sun_path)
        var bindAddr = addr
        if staged {
            var st = stat()
            if lstat(temporary, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFSOCK, st.st_uid == geteuid() else {
                    throw SocketError(description: "\(temporary) exists and is not this user's socket; it is left alone: remove it or choose another --socket path")
                }
                unlink(temporary)   // left by a process with this pid that died
            }
            withUnsafeMutableBytes(of: &bindAddr.sun_path) { raw in
                for i in 0..<raw.count { raw[i] = 0 }
                for (i, b) in temporary.utf8.enumerated() { raw[i] = b }
            }
        }
        let bindPath = staged ? temporary : path
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard s >= 0 else { throw SocketError(description: "cannot create a Unix socket: \(String(cString: strerror(errno)))") }
        // The file gets 0660 at creation: no window with a wider mode, no chmod through a path.
        let old = umask(0o117)
        let bound = withUnsafePointer(to: &bindAddr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        let bindErrno = errno
        umask(old)
        guard bound == 0 else {
            Glibc.close(s)
            let dir = PathText.deletingLastComponent(path)
            throw SocketError(description: "cannot create socket \(path): \(String(cString: strerror(bindErrno))); choose a --socket path in a directory the service's user can write (\(dir.isEmpty ? "." : dir) is not), e.g. /run/forcestage/events.sock (RuntimeDirectory=forcestage in the unit)")
        }
        var mine = stat()
        guard lstat(bindPath, &mine) == 0, mine.st_mode & S_IFMT == S_IFSOCK, mine.st_uid == geteuid() else {
            Glibc.close(s)
            throw SocketError(description: "--socket \(path) was replaced while it was being created; choose a --socket path in a directory only the service's user can write")
        }
        device = UInt64(mine.st_dev)
        inode = UInt64(mine.st_ino)
        guard listen(s, 64) == 0 else {
            let e = errno
            Glibc.close(s)
            Self.unlinkIfSame(bindPath, device: UInt64(mine.st_dev), inode: UInt64(mine.st_ino))
            throw SocketError(description: "cannot listen on \(path): \(String(cString: strerror(e)))")
        }
        if staged {
            let linked = link(temporary, path)
            let e = errno
            Self.unlinkIfSame(temporary, device: UInt64(mine.st_dev), inode: UInt64(mine.st_ino))
            guard linked == 0 else {
                Glibc.close(s)
                throw SocketError(description: e == EEXIST ? "--socket \(path) appeared while the service was starting; it is left alone: find out what created it, or choose another path"
                                                          : "cannot create socket \(path): \(String(cString: strerror(e)))")
            }
        }
        fd = s
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    private static func accepts(_ addr: inout sockaddr_un) -> Bool {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard s >= 0 else { return false }
        defer { Glibc.close(s) }
        // Non-blocking: a live service with a full backlog answers EAGAIN, which still means live.
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        return r == 0 || errno == EAGAIN || errno == EINPROGRESS
    }

    /// Removes `path` only when it still names the socket file (device, inode) this process created.
    @discardableResult
    static func unlinkIfSame(_ path: String, device: UInt64, inode: UInt64) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK,
              UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else { return false }
        return unlink(path) == 0
    }

    /// `accept`, the descriptor made close-on-exec and non-blocking.
    private func acceptClient() -> Int32 {
        let c = accept(fd, nil, nil)
        if c >= 0 {
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)
            _ = fcntl(c, F_SETFL, O_NONBLOCK)
        }
        return c
    }

    /// Whether the listening socket should be polled now (not while backing off, out of descriptors).
    var acceptsNow: Bool { acceptPausedUntil == 0 || monotonicNanoseconds() >= acceptPausedUntil }

    /// Accepts every waiting connection; over the client limit or out of descriptors, turns it away
    /// with `status()`'s line (rendered once, when first needed) before the reason.
    func acceptAll(status: () -> String) {
        var rendered: String?
        func statusLine() -> String {
            if rendered == nil { rendered = status() }
            return rendered!
        }
        while true {
            let c = acceptClient()
            if c < 0 {
                let e = errno
                switch e {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: the pending client would make the listening socket readable forever.
                    // Spend the reserve on it (accept, tell, close), then back off from accepting for a while.
                    if reserveFD >= 0 {
                        Glibc.close(reserveFD)
                        reserveFD = -1
                        let late = acceptClient()
                        let lateErrno = errno
                        if late >= 0 { turnAway(late, because: "the service is out of file descriptors", status: statusLine()) }
                        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
                        if late >= 0 { continue }
                        if lateErrno == EAGAIN || lateErrno == EWOULDBLOCK { return }   // nobody else waiting
                    }
                    acceptPausedUntil = monotonicNanoseconds() &+ 100_000_000
                    noteRefusal(reason: "out of file descriptors: \(String(cString: strerror(e)))")
                    return
                default:
                    acceptPausedUntil = 0
                    return
                }
            }
            acceptPausedUntil = 0
            if clients.count >= maxClients {
                turnAway(c, because: "the service serves at most \(maxClients) clients", status: statusLine())
                continue
            }
            // A small kernel send buffer keeps a stuck client's backlog bounded; the queue above it counts drops.
            var size: Int32 = 16384
            setsockopt(c, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let client = EventClient(fd: c, id: nextID, eventCapacity: clientQueue)
            nextID += 1
            clients.append(client)
            logger.info("client connected", metadata: ["client.id": "\(client.id)", "clients": "\(clients.count)"])
        }
    }

    /// The status line, then one error line, to a client that cannot be served; then closed and counted.
    /// The status first: `forcestage status` takes it and is answered; a subscriber reads on to the refusal.
    private func turnAway(_ c: Int32, because reason: String, status: String) {
        let line = JSON.object([("error", .string("refused: \(reason)")),
                                ("hint", .string("try again later; clients that stay connected keep being served"))]).rendered() + "\n"
        _ = (status + line).withCString { send(c, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Glibc.close(c)
        noteRefusal(reason: reason)
    }

    /// Counts a refusal; logs at most one line a second (with how many since the last).
    private func noteRefusal(reason: String) {
        refused += 1
        refusedSinceLog += 1
        let now = monotonicNanoseconds()
        guard now &- lastRefusalLog >= 1_000_000_000 else { return }
        lastRefusalLog = now
        logger.warning("client refused", metadata: ["reason": "\(reason)", "clients": "\(clients.count)",
                                                     "clients.refused": "\(refused)", "clients.refused_since_last_log": "\(refusedSinceLog)"])
        refusedSinceLog = 0
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
        let deadline = monotonicNanoseconds() + Int64(seconds * 1e9)
        while monotonicNanoseconds() < deadline {
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
    /// Stops listening and removes the socket file, if the path still names the one this process created.
    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
        if reserveFD >= 0 { Glibc.close(reserveFD); reserveFD = -1 }
        if !Self.unlinkIfSame(path, device: device, inode: inode) {
            var st = stat()
            if lstat(path, &st) == 0 {
                logger.warning("socket path now names another file; left alone", metadata: ["socket.path": "\(printable(path.utf8))"])
            }
        }
    }
}
