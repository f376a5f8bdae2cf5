import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// The service end to end: the built forcestage runs inside the kernel emulator
/// (real libiio against emulated sysfs and /dev), with real socket clients and a
/// notify socket standing in for systemd.
@Suite("Service in the emulator", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary (swift build --product forcestage)"))
struct ServiceEmulatorTests {
    let fs = forcestage ?? ""

    @Test("several socket clients, one stuck: the others get every event in order, the stuck one's drops are told to it, the sensor keeps pace")
    func clientsAndStuckClient() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 250 quiet scans at 8x speed give the clients time to connect before the first event.
        let (url, recording) = try writePressTrain(in: dir, leadIn: 2000, presses: 400)
        let expected = directReplay(recording)
        #expect(expected.count >= 1000, "enough events to overflow a 16-event queue: \(expected.count)")
        let socket = dir.appendingPathComponent("ev.sock").path
        let speed = 8.0
        let service = try Running([fs, "emulate", "--speed", String(speed), "--end-after-recording", url.path, "--",
                                   fs, "run", "--calibration", url.path, "--socket", socket, "--client-queue", "16"], in: dir)
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "socket never appeared: \(service.stderr)")
        var mode = stat()
        #expect(lstat(socket, &mode) == 0 && mode.st_mode & 0o777 == 0o660, "socket mode 0660")
        let a = try SocketClient(path: socket), b = try SocketClient(path: socket), noisy = try SocketClient(path: socket)
        let stuck = try SocketClient(path: socket)   // connects, then reads nothing for most of the run
        a.startReading(); b.startReading(); noisy.startReading()
        noisy.send("hello\n")
        noisy.send("\u{1}\u{2}\u{ff}garbage\n")
        #expect(waitUntil(30) { noisy.lines.filter { $0.hasPrefix("{\"error\":") }.count == 2 }, "an error line per bad command: \(noisy.lines.prefix(3))")
        let errorLine = noisy.lines.first { $0.hasPrefix("{\"error\":") } ?? ""
        #expect(errorLine.contains("unknown command \\\"hello\\\""))
        #expect(errorLine.contains("commands are status, subscribe"))

        // A line that never ends is a protocol error: an error line, that client closed, the service unaffected.
        let flooder = try SocketClient(path: socket)
        flooder.startReading()
        flooder.send(String(repeating: "x", count: 3000))
        #expect(waitUntil(30) { flooder.closed }, "the flooding client is closed")
        #expect(flooder.lines.contains { $0.contains("line longer than 1024 bytes") }, "\(flooder.lines.prefix(2))")

        // forcestage status while it runs.
        let status = try runProcess([fs, "status", "--socket", socket], in: dir, timeout: 10)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("health          streaming"), "\(status.stdout)")
        #expect(status.stdout.contains("latency"))

        // The stuck client wakes up before the end: it gets what was queued, then the drop report, then the rest.
        usleep(6_000_000)
        let midway = statusNow(socket)
        #expect(int(midway?["clientDrops"]) ?? 0 > 0, "the stuck client's drops are counted while it is stuck")
        stuck.startReading()
        let exit = service.wait(timeout: 120)
        #expect(exit == 0, "\(service.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "socket removed at exit")
        #expect(waitUntil(30) { a.closed && b.closed && noisy.closed && stuck.closed })

        #expect(lines(service.stdout) == expected, "stdout carries every event")
        #expect(a.events == expected, "client a: \(a.events.count) of \(expected.count)")
        #expect(b.events == expected, "client b: \(b.events.count) of \(expected.count)")
        #expect(noisy.events == expected, "the client that sent garbage stays subscribed")

        let got = stuck.events
        let notices = stuck.lines.filter { $0.hasPrefix("{\"dropped\":") }
        let dropped = notices.compactMap { line -> Int? in
            guard let d = line.data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any] else { return nil }
            return int(o["dropped"])
        }.reduce(0, +)
        #expect(!notices.isEmpty, "the stuck client is told it lost events")
        #expect(dropped > 0)
        #expect(got.count + dropped == expected.count, "received \(got.count) + dropped \(dropped) = \(expected.count)")
        #expect(isSubsequence(got, of: expected), "what the stuck client got is in order")

        // The final status every client gets: the sensor kept its pace, nothing lost on the way.
        let final = try #require(a.lines.last.flatMap(statusObject), "final status line")
        #expect(final["final"] as? Bool == true)
        #expect(int(final["scans"]) == recording.scanCount)
        #expect(int(final["scansRead"]) == recording.scanCount)
        #expect(int(final["droppedScans"]) == 0)
        let overflows = final["overflows"] as? [String: Any] ?? [:]
        #expect(overflows["scanRing"] == nil && int(overflows["eventRing"]) == 0 && int(overflows["classifierRing"]) == 0)
        #expect(int(final["events"]) == expected.count)
        #expect(int(final["clientDrops"]) == dropped)
        // Pace: the first and last events reached client a as far apart as the recording says, at 8x.
        let timed = a.timedLines.filter { $0.0.hasPrefix("{\"event\":") }
        let first = try #require(timed.first), last = try #require(timed.last)
        let recordedSpan = Double(sample(last.0) - sample(first.0)) / panelRate / speed
        let seen = last.1.timeIntervalSince(first.1)
        #expect(seen > recordedSpan * 0.85 && seen < recordedSpan * 1.25, "events spanned \(seen) s for \(recordedSpan) s of recording at \(speed)x")
    }

    @Test("SIGHUP applies a good profile at once and refuses a corrupt one, keeping the one in force")
    func reloadProfile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 3.5 N press every 0.8 s: peek, pop, release under pop = 2.5 N; peek, release under pop = 5 N.
        let (_, profile, socket, service) = try startReloadableService(fs, in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "\(service.stderr)")
        let client = try SocketClient(path: socket)
        client.startReading()
        #expect(waitUntil(20) { client.events.contains { kind($0) == "pop" } }, "pops under the first profile: \(client.events.prefix(4))")
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })

        try profileText(peek: 1.0, pop: 5.0).write(to: profile, atomically: true, encoding: .utf8)
        kill(pid_t(pid), SIGHUP)
        #expect(waitUntil(30) { int(statusNow(socket)?["reloads"]) == 1 })
        #expect(statusNow(socket)?["profile"] as? String == "test-panel-5.0")
        let afterGood = client.events.count
        #expect(waitUntil(30) { releases(client.events.dropFirst(afterGood)) >= 3 })
        let goodWindow = Array(client.events.dropFirst(afterGood))
        let fromNextPress = goodWindow.drop { kind($0) != "release" }.dropFirst()   // skip a press that began before the reload
        #expect(fromNextPress.contains { kind($0) == "peek" })
        #expect(!fromNextPress.contains { kind($0) == "pop" }, "no pop under pop_newtons = 5: \(fromNextPress.map { kind($0) ?? "" })")

        try "schema = 1\n[levels]\npeek_newtons = \"heavy\"\n".write(to: profile, atomically: true, encoding: .utf8)
        kill(pid_t(pid), SIGHUP)
        #expect(waitUntil(30) { int(statusNow(socket)?["reloadFailures"]) == 1 })
        #expect(int(statusNow(socket)?["reloads"]) == 1)
        #expect(statusNow(socket)?["health"] as? String == "streaming", "the service stays up")
        let afterBad = client.events.count
        #expect(waitUntil(30) { releases(client.events.dropFirst(afterBad)) >= 2 })
        let badWindow = Array(client.events.dropFirst(afterBad))
        #expect(badWindow.contains { kind($0) == "peek" })
        #expect(!badWindow.contains { kind($0) == "pop" }, "the good profile stays in force")

        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr)")
        #expect(service.stderr.contains("profile reload refused; the old profile stays"))
        #expect(service.stderr.contains("levels.peek_newtons"), "the log names the key at fault")
        #expect(service.stderr.contains("profile reloaded"))
    }

    @Test("SIGTERM mid-press: release for the press in progress, clients told, buffer closed, socket removed, exit 0")
    func sigtermMidPress() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 1, newtons: 1.8, hold: 2500, rest: 20)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", url.path, "--", fs, "run", "--calibration", url.path, "--socket", socket], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { FileManager.default.fileExists(atPath: socket) }, "\(service.stderr)")
        let client = try SocketClient(path: socket)
        client.startReading()
        #expect(waitUntil(30) { client.events.contains { kind($0) == "peek" } })
        let pid = try #require(statusNow(socket).flatMap { int($0["pid"]) })
        kill(pid_t(pid), SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr)")
        #expect(waitUntil(30) { client.closed })
        #expect(client.events.map { kind($0) ?? "" } == ["peek", "release"], "\(client.lines)")
        #expect(lines(service.stdout).map { kind($0) ?? "" } == ["peek", "release"])
        #expect(client.lines.last.flatMap(statusObject)?["final"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(service.stderr.contains("stop requested"))
        #expect(service.stderr.contains("buffer closed"))
        #expect(service.stderr.contains("service stopped"))
    }

    @Test("watchdog: READY=1 once streaming, WATCHDOG=1 while scans advance, none once the sensor stalls")
    func watchdog() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 250, presses: 10, rest: 80)   // about 2.5 s at 2x
        let notify = NotifyListener(path: dir.appendingPathComponent("notify.sock").path)
        defer { notify.stop() }
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env["WATCHDOG_USEC"] = "400000"
        let service = try Running([fs, "emulate", "--speed", "2", url.path, "--",
                                   fs, "run", "--calibration", url.path, "--timeout-ms", "1000"], in: dir, environment: env)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        #expect(waitUntil(20) { notify.messages.contains { $0.0.contains("STATUS=sensor lost") } }, "\(notify.messages.map { $0.0 })")
        usleep(1_500_000)
        let messages = notify.messages
        let ready = try #require(messages.firstIndex { $0.0.hasPrefix("READY=1") }, "\(messages.map { $0.0 })")
        let pid = try #require(messages[ready].0.split(separator: "\n").first { $0.hasPrefix("MAINPID=") }.flatMap { Int32($0.dropFirst(8)) })
        let lostAt = messages.first { $0.0.contains("STATUS=sensor lost") }!.1
        let pings = messages.filter { $0.0 == "WATCHDOG=1" }
        #expect(!messages[..<ready].contains { $0.0 == "WATCHDOG=1" }, "no watchdog before ready")
        let whileStreaming = pings.filter { $0.1 < lostAt }.count
        // About one ping per 200 ms over 2.5 s of scans (12 or so), but how many is the machine's
        // speed: a service starved on a loaded machine sends fewer. What holds anyway: pings repeat
        // while scans advance (here) and stop once they do not (below).
        #expect(whileStreaming >= 2, "WATCHDOG=1 again and again while scans advance: \(whileStreaming)")
        // Scans stop, then two 1 s timeouts make it lost (1 s, not 300 ms: an emulator starved that long on a
        // loaded machine would lose the sensor mid-stream); the last ping may come within one interval of the stop.
        let late = pings.filter { $0.1 > lostAt.addingTimeInterval(0.05) }
        #expect(late.isEmpty, "no WATCHDOG=1 after the sensor stalled: \(late.count)")
        kill(pid, SIGTERM)
        #expect(service.wait(timeout: 20) == 0, "\(service.stderr)")
        #expect(waitUntil(30) { notify.messages.contains { $0.0 == "STOPPING=1" } })
    }

    @Test("refusals: a budget the sensor cannot meet names the knob; bad socket path, missing or foreign profile get one clear line")
    func refusals() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let deferred = dir.appendingPathComponent("slow.toml")
        try """
        schema = 1
        [match]
        name = "hx711"
        [levels]
        sensitivity = "medium"
        [debounce]
        press = "deferred"
        press_ms = 37.5
        [latency]
        budget_ms = 25
        [[channel]]
        id = "voltage0"
        zero_raw = 8423117
        newtons_per_count = 2.28e-5
        """.write(to: deferred, atomically: true, encoding: .utf8)
        let budget = try runProcess([fs, "emulate", demo, "--", fs, "run", "--rate", "80", "--profile", deferred.path], in: dir)
        #expect(budget.status == 1)
        #expect(budget.stderr.contains("forcestage run: a sensor at 80 scans/s cannot meet the 25 ms latency budget: worst case 50 ms"), "\(budget.stderr)")
        #expect(budget.stderr.contains("3-scan deferred press debounce adds 25 ms: set [debounce] press = \"eager\" or lower press_ms"))
        #expect(budget.stderr.contains("raise --budget-ms / [latency] budget_ms to at least 50"))
        let overridden = try runProcess([fs, "emulate", "--end-after-recording", "--as-fast-as-possible", demo, "--",
                                         fs, "run", "--rate", "80", "--profile", deferred.path, "--budget-ms", "50"], in: dir)
        #expect(overridden.status == 0, "--budget-ms wins over the profile: \(overridden.stderr)")
        #expect(overridden.stderr.contains("budget.worst_case_ms=50"))

        let badSocket = try runProcess([fs, "emulate", demo, "--", fs, "run", "--calibration", demo, "--socket", "/proc/forcestage.sock"], in: dir)
        #expect(badSocket.status == 1)
        #expect(badSocket.stderr.contains("cannot create socket /proc/forcestage.sock"), "\(badSocket.stderr)")
        #expect(badSocket.stderr.contains("choose a --socket path in a directory the service's user can write"))

        let missing = try runProcess([fs, "emulate", demo, "--", fs, "run", "--profile", dir.appendingPathComponent("nope.toml").path], in: dir)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.toml"), "\(missing.stderr)")
        #expect(missing.stderr.contains("cannot read the profile"))

        let noRate = try runProcess([fs, "emulate", demo, "--", fs, "run", "--profile", deferred.path], in: dir)
        #expect(noRate.status == 1)
        #expect(noRate.stderr.contains("states no sampling_frequency; pass --rate SCANS_PER_SECOND"), "\(noRate.stderr)")

        let foreign = dir.appendingPathComponent("foreign.toml")
        try profileText(peek: 1, pop: 2.5).write(to: foreign, atomically: true, encoding: .utf8)
        let wrong = try runProcess([fs, "emulate", demo, "--", fs, "run", "--profile", foreign.path], in: dir)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("is for devices named \"ads1015\", not \"hx711\""), "\(wrong.stderr)")

        let noService = try runProcess([fs, "status", "--socket", dir.appendingPathComponent("none.sock").path], in: dir)
        #expect(noService.status == 1)
        #expect(noService.stderr.contains("is `forcestage run --socket"), "\(noService.stderr)")
    }
}

/// Non-empty lines.
func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { !$0.isEmpty } }

func sample(_ line: String) -> Int {
    guard let r = line.range(of: "\"sample\":") else { return 0 }
    return Int(line[r.upperBound...].prefix { $0.isNumber }) ?? 0
}

func releases<S: Sequence>(_ events: S) -> Int where S.Element == String { events.filter { kind($0) == "release" }.count }

/// One status request on a fresh connection.
/// The status a client that stays connected gets: asked twice on one connection, the second
/// answer (a client turned away gets one status line with its refusal, then is closed).
func statusServed(_ socket: String) -> [String: Any]? {
    guard let c = try? SocketClient(path: socket) else { return nil }
    c.startReading()
    c.send("status\n")
    guard waitUntil(10, { c.lines.contains { $0.hasPrefix("{\"status\":") } }) else { return nil }
    c.send("status\n")
    guard waitUntil(10, { c.lines.filter { $0.hasPrefix("{\"status\":") }.count >= 2 || c.closed }),
          !c.lines.contains(where: { $0.contains("\"refused: ") }) else { return nil }
    return c.lines.last { $0.hasPrefix("{\"status\":") }.flatMap(statusObject)
}

func statusNow(_ socket: String) -> [String: Any]? {
    guard let c = try? SocketClient(path: socket) else { return nil }
    c.startReading()
    c.send("status\n")
    guard waitUntil(10, { c.lines.contains { $0.hasPrefix("{\"status\":") } }) else { return nil }
    return c.lines.first { $0.hasPrefix("{\"status\":") }.flatMap(statusObject)
}

@Suite("Deployment files")
struct DeploymentFileTests {
    @Test("the udev helper gives the group read/write on exactly the attributes streaming writes", .enabled(if: geteuid() == 0, "chgrp to another group needs root"))
    func udevHelper() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dev = dir.appendingPathComponent("iio:device0")
        let files = ["name", "current_timestamp_clock", "buffer/enable", "buffer/length", "buffer/watermark",
                     "scan_elements/in_voltage0_en", "scan_elements/in_timestamp_en", "scan_elements/in_voltage0_type", "trigger/current_trigger"]
        for f in files {
            let url = dev.appendingPathComponent(f)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "0\n".write(to: url, atomically: false, encoding: .utf8)
            chmod(url.path, 0o644)
        }
        let script = packageRoot.appendingPathComponent("hardware/udev/forcestage-iio-permissions").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: script)
        p.arguments = [dev.path]
        p.environment = ["FORCESTAGE_GROUP": "1", "PATH": "/usr/bin:/bin"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        for f in files {
            var st = stat()
            #expect(stat(dev.appendingPathComponent(f).path, &st) == 0)
            let granted = st.st_gid == 1 && st.st_mode & 0o060 == 0o060
            let shouldBe = !(f == "name" || f.hasSuffix("_type"))
            #expect(granted == shouldBe, "\(f): gid \(st.st_gid) mode \(String(st.st_mode & 0o777, radix: 8))")
        }
    }

    @Test("the systemd unit is Type=notify with a watchdog, runs unprivileged, reloads with SIGHUP")
    func unit() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("hardware/systemd/forcestage.service"), encoding: .utf8)
        for line in ["Type=notify", "WatchdogSec=", "User=forcestage", "Group=forcestage", "ExecReload=/bin/kill -HUP $MAINPID",
                     "RuntimeDirectory=forcestage", "--socket /run/forcestage/events.sock", "Restart=on-failure", "DeviceAllow=char-iio rw"] {
            #expect(text.contains(line), "\(line)")
        }
        #expect(!text.contains("User=root"))
    }
}
