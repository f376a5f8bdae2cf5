import Foundation
import Synchronization
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// The service against hostile neighbours, end to end in the emulator: extreme
/// profiles on SIGHUP, lines at the length limit, control bytes for the log,
/// descriptor exhaustion, a closing terminal, a stuck service for `status`.
@Suite("Service hardening in the emulator", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary (swift build --product forcestage)"))
struct ServiceHardeningTests {
    let fs = forcestage ?? ""

    /// CPU seconds (user + system) a process has used, from /proc.
    func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return nil }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test("SIGHUP with profiles that parse but hold extreme values (budget_ms = 1e13, press_ms = 1e30, inverted levels): refused with the reason, the daemon lives, the old profile stays; at start-up the same budget is refused with exit 2")
    func reloadExtremeProfiles() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, profile, socket, service) = try startReloadableService(fs, in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" }, "\(service.stderr)")
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })
        let extremes = [
            "[latency]\nbudget_ms = 1e13",
            "[debounce]\npress = \"deferred\"\npress_ms = 1e30",
            "[latency]\nbudget_ms = 3e38",
        ]
        for (i, extra) in extremes.enumerated() {
            try profileText(peek: 1.0, pop: 5.0, extra: extra).write(to: profile, atomically: true, encoding: .utf8)
            kill(pid_t(pid), SIGHUP)
            #expect(waitUntil(30) { int(statusNow(socket)?["reloadFailures"]) == i + 1 }, "\(extra): \(service.stderr.suffix(600))")
            #expect(kill(pid_t(pid), 0) == 0, "the daemon is alive after \(extra)")
        }
        try profileText(peek: 3.0, pop: 1.0).write(to: profile, atomically: true, encoding: .utf8)
        kill(pid_t(pid), SIGHUP)
        #expect(waitUntil(30) { int(statusNow(socket)?["reloadFailures"]) == 4 })
        let status = try #require(statusNow(socket))
        #expect(status["health"] as? String == "streaming")
        #expect(int(status["reloads"]) == 0)
        #expect(status["profile"] as? String == "test-panel-2.5", "the first profile stays in force")
        // It states no budget: at 250 scans/s its worst case (sampling, spike filter, a 3-scan deferred release) is 16 ms, plus the host's 10.
        #expect(status["budgetMs"] as? Double == 26)
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr)")
        let log = service.stderr
        // The profile reader bounds budget_ms itself (docs/getting-started.md, "Limits"), naming the line and key.
        #expect(log.contains("latency.budget_ms: must be at most 60000"), "\(log)")
        #expect(log.contains("press_ms: must be at most"), "press_ms = 1e30 is refused by the profile's bounds")
        #expect(log.components(separatedBy: "profile reload refused; the old profile stays").count - 1 == 4)

        // The same budget at start-up: one line, exit 2, no trap.
        try profileText(peek: 1.0, pop: 2.5, extra: "[latency]\nbudget_ms = 1e13").write(to: profile, atomically: true, encoding: .utf8)
        let start = try runProcess([fs, "emulate", url.path, "--", fs, "run", "--profile", profile.path], in: dir, timeout: 30)
        #expect(start.status == 2, "\(start.stderr)")
        #expect(start.stderr.contains("forcestage run: "), "\(start.stderr)")
        #expect(start.stderr.contains("latency.budget_ms: must be at most 60000"), "\(start.stderr)")
    }

    @Test("line limit over the live socket: 1024 bytes is a command (answered, connection kept), 1025 and 1500 close the client; client control bytes reach the log escaped")
    func lineLimitAndLogEscaping() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 2500, presses: 2)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", fs, "run", "--calibration", url.path, "--socket", socket], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "\(service.stderr)")
        let fits = try SocketClient(path: socket), over = try SocketClient(path: socket), far = try SocketClient(path: socket)
        let hostile = try SocketClient(path: socket)
        for c in [fits, over, far, hostile] { c.startReading() }
        fits.send(String(repeating: "x", count: 1024) + "\nstatus\n")
        over.send(String(repeating: "y", count: 1025) + "\nstatus\n")
        far.send(String(repeating: "z", count: 1500) + "\nstatus\n")
        hostile.send("st\u{1b}[31mat\rus\u{7}\n")
        hostile.send("evil\r\nforged log line\n")
        #expect(waitUntil(30) { over.closed && far.closed }, "1025 and 1500 bytes close the client")
        #expect(over.lines.first?.contains("line longer than 1024 bytes") == true, "\(over.lines)")
        #expect(far.lines.first?.contains("line longer than 1024 bytes") == true, "\(far.lines)")
        #expect(!over.lines.contains { $0.hasPrefix("{\"status\":") }, "nothing after the overlong line is served")
        #expect(waitUntil(30) { fits.lines.contains { $0.hasPrefix("{\"status\":") } }, "\(fits.lines)")
        #expect(fits.lines.first?.contains("unknown command") == true)
        #expect(!fits.closed)
        #expect(waitUntil(30) { hostile.lines.filter { $0.hasPrefix("{\"error\":") }.count >= 3 })
        // A client flooding commands: its log lines are rate-limited, status is rendered once per read.
        let flood = try SocketClient(path: socket)
        flood.startReading()
        flood.send(String(repeating: "nonsense\n", count: 2000) + String(repeating: "status\n", count: 2000))
        #expect(waitUntil(30) { flood.lines.filter { $0.hasPrefix("{\"status\":") }.count >= 1 })
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0)
        let log = try Data(contentsOf: service.err)
        #expect(!log.contains(0x1B), "no raw ESC in the log")
        #expect(!log.contains(0x0D), "no raw CR in the log")
        #expect(!log.contains(0x07), "no raw BEL in the log")
        let text = String(decoding: log, as: UTF8.self)
        #expect(text.contains("st\\x1B[31mat\\x0Dus\\x07"), "\(text.suffix(800))")
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("forged log line") }, "a client cannot start a log line")
        let unknownLogged = text.components(separatedBy: "client sent an unknown command").count - 1
        #expect(unknownLogged <= 6, "2 000 unknown commands in a burst: \(unknownLogged) log lines")
    }

    @Test("--max-clients: a client that leaves in the same poll round as a new one arrives frees its place for it (the service stopped across the hang-up and the connect)")
    func clientLeavesAsAnotherArrives() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 2500, presses: 2)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", fs, "run", "--calibration", url.path, "--socket", socket, "--max-clients", "2", "--no-stdout"], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "\(service.stderr)")
        let a = try SocketClient(path: socket), b = try SocketClient(path: socket)
        a.startReading(); b.startReading()
        a.send("status\n")
        #expect(waitUntil(30) { a.lines.contains { $0.hasPrefix("{\"status\":") } }, "\(a.lines)")
        b.send("status\n")
        #expect(waitUntil(30) { b.lines.contains { $0.hasPrefix("{\"status\":") } }, "\(b.lines)")
        // B's reply, not A's: A's status can be served before the service has accepted B (still in the
        // listen backlog: clients 1, seen once in a parallel run); B's is served with both connected.
        let status = try #require(b.lines.first { $0.hasPrefix("{\"status\":") }.flatMap(statusObject))
        #expect(int(status["clients"]) == 2)
        let pid = pid_t(try #require(int(status["pid"])))
        // Stopped, the service sees B's hang-up and C's connection in one poll round when it goes on.
        #expect(kill(pid, SIGSTOP) == 0)
        Glibc.shutdown(b.fd, Int32(SHUT_RDWR))
        let c = try SocketClient(path: socket)   // queued in the listen backlog meanwhile
        c.startReading()
        #expect(kill(pid, SIGCONT) == 0)
        c.send("status\n")
        #expect(waitUntil(30) { c.lines.contains { $0.hasPrefix("{\"status\":") } || c.closed }, "\(c.lines)")
        #expect(!c.lines.contains { $0.contains("refused") }, "\(c.lines)")
        #expect(c.lines.contains { $0.hasPrefix("{\"status\":") }, "\(c.lines)")
        kill(pid, SIGTERM)
        #expect(service.wait(timeout: 20) == 0)
    }

    @Test("out of file descriptors (RLIMIT_NOFILE 64): no busy loop, connected clients still get status, new ones are told and counted, service recovers when descriptors free up")
    func outOfDescriptors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (socket, service) = try startWithFewDescriptors(in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        let first = try SocketClient(path: socket)
        first.startReading()
        first.send("status\n")
        #expect(waitUntil(30) { first.lines.contains { $0.hasPrefix("{\"status\":") } })
        let pid = try #require(first.lines.first { $0.hasPrefix("{\"status\":") }.flatMap(statusObject).flatMap { int($0["pid"]) })
        // Fill the service's descriptor table with clients, then a few more wait in the backlog.
        var extra: [SocketClient] = []
        for _ in 0..<70 { if let c = try? SocketClient(path: socket) { extra.append(c) } }
        usleep(500_000)
        let before = try #require(cpuSeconds(pid_t(pid)))
        usleep(2_000_000)
        let after = try #require(cpuSeconds(pid_t(pid)))
        #expect(after - before < 0.6, "service CPU over 2 s while out of descriptors: \(after - before) s")
        first.send("status\n")
        #expect(waitUntil(30) { first.lines.filter { $0.hasPrefix("{\"status\":") }.count >= 2 }, "a connected client is still answered")
        let status = try #require(first.lines.last { $0.hasPrefix("{\"status\":") }.flatMap(statusObject))
        #expect(int(status["clientsRefused"]) ?? 0 > 0, "refusals counted: \(status)")
        // The turned-away clients got a reason.
        for c in extra { c.startReading() }
        #expect(waitUntil(30) { extra.contains { $0.lines.contains { $0.contains("out of file descriptors") } } })
        // Descriptors free up: a new client is served again.
        for c in extra { shutdown(c.fd, Int32(SHUT_RDWR)) }   // their reader threads hold them: hang up explicitly
        extra.removeAll()
        usleep(500_000)
        #expect(waitUntil(30) { statusServed(socket)?["health"] as? String == "streaming" }, "served again once descriptors are free")
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr.suffix(800))")
        #expect(service.stderr.contains("client refused"))
    }

    @Test("one client flooding status commands starves no other: 20 clients each get their status and are closed on quit while the flood's commands still wait unread")
    func floodDoesNotStarveOthers() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 2500, presses: 2)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", fs, "run", "--calibration", url.path, "--socket", socket, "--no-stdout"], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "\(service.stderr)")
        let flood = try SocketClient(path: socket)
        flood.startReading()
        // 1000 `status` lines a send, 20 000 at least, and on until the others are done.
        let stop = Mutex(false), sent = Mutex(0)
        Thread {
            let chunk = String(repeating: "status\n", count: 1000)
            while !stop.withLock({ $0 }) || sent.withLock({ $0 }) < 20_000 {
                flood.send(chunk)
                sent.withLock { $0 += 1000 }
            }
        }.start()
        defer { stop.withLock { $0 = true }; Glibc.shutdown(flood.fd, Int32(SHUT_RDWR)) }
        func answered() -> Int { flood.lines.filter { $0.hasPrefix("{\"status\":") }.count }
        #expect(waitUntil(30) { answered() > 0 && sent.withLock { $0 } >= 20_000 }, "the flood is on and being served")
        let quiet = try (0..<20).map { _ in try SocketClient(path: socket) }
        for q in quiet {
            q.startReading()
            q.send("status\nquit\n")
        }
        // The limit only bounds a failure: served fairly, they are done within a few turns of the loop.
        let served = waitUntil(120) { quiet.allSatisfy(\.closed) }
        // Bytes the flood sent that the service has not read yet (SIOCOUTQ of a Unix stream socket).
        var unread: Int32 = 0
        #expect(ioctl(flood.fd, UInt(TIOCOUTQ), &unread) == 0)
        #expect(served, "\(quiet.filter { !$0.closed }.count) of 20 clients not served")
        #expect(unread > 0, "the others were served while the flood's commands still waited")
        for (i, q) in quiet.enumerated() {
            #expect(q.lines.contains { $0.hasPrefix("{\"status\":") }, "client \(i): \(q.lines)")
        }
        // The flood goes on being served at its own share.
        let before = answered()
        #expect(waitUntil(60) { answered() > before })
        stop.withLock { $0 = true }
        try stopCleanly(service, socket: socket)
    }

    @Test("at its descriptor limit (RLIMIT_NOFILE 64) the service still answers forcestage status: the status line, then the refusal; counted as refused")
    func statusAtDescriptorLimit() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (socket, service) = try startWithFewDescriptors(in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        var held: [SocketClient] = []
        for _ in 0..<70 { if let c = try? SocketClient(path: socket) { held.append(c) } }
        defer { for c in held { shutdown(c.fd, Int32(SHUT_RDWR)) } }
        // The table is full: a new client is turned away for want of a descriptor.
        let turned = try SocketClient(path: socket)
        turned.startReading()
        #expect(waitUntil(30) { turned.closed }, "\(turned.lines)")
        #expect(turned.lines.last?.contains("refused: the service is out of file descriptors") == true, "\(turned.lines)")
        #expect(turned.lines.first?.hasPrefix("{\"status\":") == true, "\(turned.lines)")
        let r = try runProcess([fs, "status", "--socket", socket, "--json", "--timeout", "10"], in: dir, timeout: 60)
        #expect(r.status == 0, "\(r.status): \(r.stderr)")
        let status = try #require(statusObject(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(r.stdout)")
        #expect(status["health"] as? String == "streaming", "\(status)")
        #expect(int(status["clientsRefused"]) ?? 0 > 0, "\(status)")
        for c in held { shutdown(c.fd, Int32(SHUT_RDWR)) }
        held.removeAll()
        #expect(waitUntil(30) { statusServed(socket)?["health"] as? String == "streaming" }, "served again once descriptors are free")
        try stopCleanly(service, socket: socket)
    }

    /// `run` on a train of 200 presses under RLIMIT_NOFILE 64, streaming: a descriptor table a test can fill.
    func startWithFewDescriptors(in dir: URL) throws -> (socket: String, service: Running) {
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 200)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", "prlimit", "--nofile=64:64", fs, "run", "--calibration", url.path, "--socket", socket, "--no-stdout"], in: dir)
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" }, "\(service.stderr)")
        return (socket, service)
    }

    /// SIGTERM to the service behind `socket` (its pid from a status it serves): it stops with status 0.
    func stopCleanly(_ service: Running, socket: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pid = try #require(statusServed(socket).flatMap { int($0["pid"]) }, sourceLocation: sourceLocation)
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr.suffix(800))", sourceLocation: sourceLocation)
    }

    @Test("forcestage status on a service whose backlog is full: exit 5 within --timeout, one clear line")
    func statusTimeout() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = FullBacklog(path: dir.appendingPathComponent("stuck.sock").path)
        defer { full.shutDown() }
        let started = Date()
        let r = try runProcess([fs, "status", "--socket", full.path, "--timeout", "1"], in: dir, timeout: 10)
        let took = Date().timeIntervalSince(started)
        #expect(r.status == 5, "\(r.status): \(r.stderr)")
        #expect(took < 5, "gave up after \(took) s")
        #expect(r.stderr.hasPrefix("forcestage status: "), "\(r.stderr)")
        #expect(r.stderr.contains("accepted no connection within 1000 ms"), "\(r.stderr)")
    }

    @Test("a reload stuck reading the profile (a FIFO put in its place) never keeps SIGTERM from stopping the service")
    func stuckReload() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 200)
        let profile = dir.appendingPathComponent("panel.toml")
        try profileText(peek: 1.0, pop: 2.5).write(to: profile, atomically: true, encoding: .utf8)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", fs, "run", "--profile", profile.path, "--socket", socket], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" }, "\(service.stderr)")
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })
        defer { kill(pid_t(pid), SIGKILL) }
        unlink(profile.path)
        #expect(mkfifo(profile.path, 0o600) == 0)
        kill(pid_t(pid), SIGHUP)
        usleep(500_000)
        #expect(statusNow(socket)?["health"] as? String == "streaming", "still streaming while the reload waits")
        kill(pid_t(pid), SIGTERM)
        #expect(waitUntil(30) { kill(pid_t(pid), 0) != 0 }, "SIGTERM stops it although the reload never returned")
        #expect(service.wait(timeout: 10) == 0, "\(service.stderr.suffix(600))")
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test("SIGPIPE never kills: stdout's reader gone and clients that vanish mid-stream; events keep reaching the other clients")
    func brokenPipes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 200)
        let socket = dir.appendingPathComponent("ev.sock").path
        let err = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: fs)
        p.arguments = ["emulate", url.path, "--", fs, "run", "--calibration", url.path, "--socket", socket]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = try FileHandle(forWritingTo: err)
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        try out.fileHandleForReading.close()   // nobody reads stdout any more
        try? out.fileHandleForWriting.close()
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" })
        let steady = try SocketClient(path: socket)
        steady.startReading()
        for _ in 0..<10 {
            let gone = try SocketClient(path: socket)
            gone.send("status\n")
            shutdown(gone.fd, Int32(SHUT_RDWR))   // hangs up without reading
        }
        #expect(waitUntil(20) { steady.events.count >= 20 }, "events keep flowing: \(steady.events.count)")
        let status = try #require(statusNow(socket))
        #expect(status["health"] as? String == "streaming")
        let pid = try #require(int(status["pid"]))
        kill(pid_t(pid), SIGTERM)
        #expect(waitUntil(20) { !p.isRunning })
        let log = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        #expect(log.contains("standard output closed; events go to socket clients only"), "\(log.suffix(800))")
        #expect(log.contains("service stopped"))
    }

    /// Waits (up to 30 s, then SIGKILL) for a child started with posix_spawn.
    func reap(_ pid: pid_t) {
        var status: Int32 = 0
        if !waitUntil(30, { waitpid(pid, &status, WNOHANG) != 0 }) {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
    }

    /// Starts `command` in a new session whose controlling terminal is a fresh pseudo-terminal
    /// (stdin, stdout and stderr on it); returns the master, which the test closes to hang up.
    func startOnTerminal(_ command: [String], in dir: URL, environment: [String: String]) throws -> (master: Int32, pid: pid_t) {
        // posix_openpt/unlockpt/ptsname by hand: /dev/ptmx, TIOCSPTLCK, TIOCGPTN. Close-on-exec, so
        // no child holds the master open (that would prevent the hang-up).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0, "TIOCSPTLCK")
        try #require(ioctl(master, UInt(0x8004_5430), &number) == 0, "TIOCGPTN")
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(slave >= 0)
        defer { close(slave) }
        // posix_spawn rather than Process: the child starts with no signal blocked and default
        // dispositions, as from a login shell (the test runner's threads block SIGHUP, and a blocked
        // mask is inherited across exec, which would keep the hang-up from ever arriving).
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGHUP, SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_adddup2(&actions, slave, fd) }
        // A new session with the terminal as its controlling tty.
        let args = ["/usr/bin/setsid", "--ctty"] + command
        let argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, args[0], &actions, &attr, argv, envp) == 0)
        // Keep the terminal drained so output never blocks the service; a read in progress would keep
        // the master open after close(), so the drain polls and stops once the test closes it.
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, 50)
                if r < 0 || p.revents & Int16(POLLNVAL | POLLERR) != 0 { return }
                if p.revents & Int16(POLLIN) != 0 {
                    let n = read(master, &buffer, buffer.count)
                    if n <= 0 { return }
                    if let h = FileHandle(forWritingAtPath: dir.appendingPathComponent("tty.out").path) { h.seekToEndOfFile(); h.write(Data(buffer[0..<n])); h.closeFile() }
                }
            }
        }.start()
        return (master, pid)
    }

    @Test("closing the terminal that started run: it stops cleanly (release, buffer closed, socket removed) instead of taking SIGHUP as reload", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid"), "needs setsid(1) from util-linux"))
    func terminalHangup() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 1, newtons: 1.8, hold: 5000, rest: 20)
        let socket = dir.appendingPathComponent("ev.sock").path
        let log = dir.appendingPathComponent("run.log").path
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = nil
        env["INVOCATION_ID"] = nil
        // stdin and stdout stay on the terminal; the log goes to a file the test reads afterwards.
        let (master, child) = try startOnTerminal([fs, "emulate", url.path, "--", "/bin/sh", "-c", "exec \"$0\" run --calibration \"$3\" --socket \"$1\" 2>\"$2\"", fs, socket, log, url.path],
                                              in: dir, environment: env)
        defer { reap(child) }
        var masterOpen = true
        defer { if masterOpen { close(master) } }
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" }, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let client = try SocketClient(path: socket)
        client.startReading()
        #expect(waitUntil(30) { client.events.contains { kind($0) == "peek" } }, "a press in progress")
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })
        defer { kill(pid_t(pid), SIGKILL) }   // only if it outlived the test (the bug)
        close(master)
        masterOpen = false
        #expect(waitUntil(30) { kill(pid_t(pid), 0) != 0 }, "run ended after the hang-up")
        #expect(!FileManager.default.fileExists(atPath: socket), "socket removed")
        #expect(waitUntil(30) { client.closed })
        #expect(client.events.map { kind($0) ?? "" } == ["peek", "release"], "\(client.lines)")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("terminal hung up; stopping"), "\(text.suffix(1000)) TTY: \((try? String(contentsOfFile: dir.appendingPathComponent("tty.out").path, encoding: .utf8)) ?? "")")
        #expect(text.contains("buffer closed"))
        #expect(text.contains("service stopped"))
    }

    @Test("under systemd (INVOCATION_ID) on a terminal, SIGHUP stays reload: run keeps serving", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid"), "needs setsid(1) from util-linux"))
    func hangupUnderServiceManager() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 400)
        let socket = dir.appendingPathComponent("ev.sock").path
        let log = dir.appendingPathComponent("run.log").path
        var env = ProcessInfo.processInfo.environment
        env["INVOCATION_ID"] = "0123456789abcdef"
        let (master, child) = try startOnTerminal([fs, "emulate", url.path, "--", "/bin/sh", "-c", "exec \"$0\" run --calibration \"$3\" --socket \"$1\" 2>\"$2\"", fs, socket, log, url.path],
                                              in: dir, environment: env)
        defer { close(master); reap(child) }
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" })
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })
        defer { kill(pid_t(pid), SIGKILL) }
        kill(pid_t(pid), SIGHUP)
        usleep(500_000)
        #expect(kill(pid_t(pid), 0) == 0, "still running")
        #expect(statusNow(socket) != nil, "still serving")
        kill(pid_t(pid), SIGTERM)
        #expect(waitUntil(30) { kill(pid_t(pid), 0) != 0 })
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("reload ignored: no profile"), "SIGHUP was taken as reload: \(text.suffix(600))")
        #expect(!text.contains("terminal hung up"))
    }
}
