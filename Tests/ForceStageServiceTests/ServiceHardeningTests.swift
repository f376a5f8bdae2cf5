import Foundation
import Testing
import ForceStageCore
import ForceStageHost

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
        let (url, _) = try writePressTrain(in: dir, leadIn: 500, presses: 30, hold: 40, rest: 152)
        let profile = dir.appendingPathComponent("panel.toml")
        try profileText(peek: 1.0, pop: 2.5).write(to: profile, atomically: true, encoding: .utf8)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", "--speed", "2", url.path, "--",
                                   fs, "run", "--profile", profile.path, "--socket", socket], in: dir)
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
            #expect(waitUntil(5) { int(statusNow(socket)?["reloadFailures"]) == i + 1 }, "\(extra): \(service.stderr.suffix(600))")
            #expect(kill(pid_t(pid), 0) == 0, "the daemon is alive after \(extra)")
        }
        try profileText(peek: 3.0, pop: 1.0).write(to: profile, atomically: true, encoding: .utf8)
        kill(pid_t(pid), SIGHUP)
        #expect(waitUntil(5) { int(statusNow(socket)?["reloadFailures"]) == 4 })
        let status = try #require(statusNow(socket))
        #expect(status["health"] as? String == "streaming")
        #expect(int(status["reloads"]) == 0)
        #expect(status["profile"] as? String == "test-panel-2.5", "the first profile stays in force")
        #expect(status["budgetMs"] as? Double == 25)
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr)")
        let log = service.stderr
        #expect(log.contains("budget_ms = 1e+13 is outside the accepted range above 0 to 60000 ms"), "\(log)")
        #expect(log.contains("cannot meet the 25 ms latency budget"), "press_ms = 1e30 misses the budget")
        #expect(log.components(separatedBy: "profile reload refused; the old profile stays").count - 1 == 4)

        // The same budget at start-up: one line, exit 2, no trap.
        try profileText(peek: 1.0, pop: 2.5, extra: "[latency]\nbudget_ms = 1e13").write(to: profile, atomically: true, encoding: .utf8)
        let start = try runProcess([fs, "emulate", url.path, "--", fs, "run", "--profile", profile.path], in: dir, timeout: 30)
        #expect(start.status == 2, "\(start.stderr)")
        #expect(start.stderr.contains("forcestage run: "), "\(start.stderr)")
        #expect(start.stderr.contains("[latency] budget_ms = 1e+13 is outside"), "\(start.stderr)")
    }

    @Test("line limit over the live socket: 1024 bytes is a command (answered, connection kept), 1025 and 1500 close the client; client control bytes reach the log escaped")
    func lineLimitAndLogEscaping() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 2500, presses: 2)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", fs, "run", "--socket", socket], in: dir)
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
        #expect(waitUntil(5) { over.closed && far.closed }, "1025 and 1500 bytes close the client")
        #expect(over.lines.first?.contains("line longer than 1024 bytes") == true, "\(over.lines)")
        #expect(far.lines.first?.contains("line longer than 1024 bytes") == true, "\(far.lines)")
        #expect(!over.lines.contains { $0.hasPrefix("{\"status\":") }, "nothing after the overlong line is served")
        #expect(waitUntil(5) { fits.lines.contains { $0.hasPrefix("{\"status\":") } }, "\(fits.lines)")
        #expect(fits.lines.first?.contains("unknown command") == true)
        #expect(!fits.closed)
        #expect(waitUntil(5) { hostile.lines.filter { $0.hasPrefix("{\"error\":") }.count >= 3 })
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
    }

    @Test("out of file descriptors (RLIMIT_NOFILE 64): no busy loop, connected clients still get status, new ones are told and counted, service recovers when descriptors free up")
    func outOfDescriptors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 200)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", "prlimit", "--nofile=64:64", fs, "run", "--socket", socket, "--no-stdout"], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { statusNow(socket)?["health"] as? String == "streaming" }, "\(service.stderr)")
        let first = try SocketClient(path: socket)
        first.startReading()
        first.send("status\n")
        #expect(waitUntil(5) { first.lines.contains { $0.hasPrefix("{\"status\":") } })
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
        #expect(waitUntil(5) { first.lines.filter { $0.hasPrefix("{\"status\":") }.count >= 2 }, "a connected client is still answered")
        let status = try #require(first.lines.last { $0.hasPrefix("{\"status\":") }.flatMap(statusObject))
        #expect(int(status["clientsRefused"]) ?? 0 > 0, "refusals counted: \(status)")
        // The turned-away clients got a reason.
        for c in extra { c.startReading() }
        #expect(waitUntil(5) { extra.contains { $0.lines.contains { $0.contains("out of file descriptors") } } })
        // Descriptors free up: a new client is served again.
        for c in extra { shutdown(c.fd, Int32(SHUT_RDWR)) }   // their reader threads hold them: hang up explicitly
        extra.removeAll()
        usleep(500_000)
        #expect(waitUntil(5) { statusNow(socket)?["health"] as? String == "streaming" }, "served again once descriptors are free")
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr.suffix(800))")
        #expect(service.stderr.contains("client refused"))
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
}
