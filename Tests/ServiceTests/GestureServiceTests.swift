import Foundation
import TestSupport
import Testing

/// `run` on a four-cell plate whose profile names regions, in the emulator:
/// the gesture layer's lines on standard output and, per subscription, on the socket.
@Suite("Gestures in the service", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary (swift build --product forcestage)"))
struct GestureServiceTests {
    let fs = forcestage ?? ""
    static let health: Set<String> = ["saturated", "stuck", "lost", "recovered"]

    /// 12 s of sliding presses on the synthesized panel4 and a profile of its
    /// calibration with two regions (quick actions on the top one, the bottom one with its own levels).
    func fixture(in dir: URL) throws -> (recording: String, profile: String) {
        let rec = dir.appendingPathComponent("slide.json")
        let synth = try runProcess([fs, "synth", "--panel", "panel4", "--seed", "21", "--duration", "12", "--scenario", "sliding", "-o", rec.path], in: dir)
        try #require(synth.status == 0, "\(synth.stderr)")
        let meta = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: rec)) as? [String: Any])
        let device = try #require(meta["device"] as? [String: Any])
        let calibration = try #require(meta["calibration"] as? [String: Any])
        var text = "schema = 1\nname = \"slide\"\n[match]\nname = \"\(device["name"] ?? "")\"\n[levels]\n"
        text += "peek_newtons = \(calibration["peekNewtons"] ?? 1.3)\npop_newtons = \(calibration["popNewtons"] ?? 2.9)\n"
        for cell in try #require(calibration["force"] as? [[String: Any]]) {
            text += "[[channel]]\nid = \"\(cell["channel"] ?? "")\"\nzero_raw = \(cell["zeroRaw"] ?? 0)\nnewtons_per_count = \(cell["newtonsPerCount"] ?? 0)\n"
        }
        text += "[[region]]\nname = \"top\"\nrect = [0.0, 0.0, 1.0, 0.4]\nactions = [\"open\", \"share\"]\n"
        text += "[[region]]\nname = \"bottom\"\nrect = [0.0, 0.4, 1.0, 1.0]\nsensitivity = \"medium\"\n"
        let profile = dir.appendingPathComponent("slide.toml")
        try text.write(to: profile, atomically: true, encoding: .utf8)
        return (rec.path, profile.path)
    }

    static func object(_ line: String) -> [String: Any]? { try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] }

    @Test("run with a profile's regions prints, line for line, what replay --gestures prints (health events aside)")
    func runMatchesReplay() throws {
        let dir = try temporaryDirectory()
        let (rec, profile) = try fixture(in: dir)
        let replayed = try runProcess([fs, "replay", rec, "--profile", profile, "--gestures"], in: dir)
        try #require(replayed.status == 0, "\(replayed.stderr)")
        let run = try runProcess([fs, "emulate", "--end-after-recording", "--speed", "2", "--sensor", "ad7124-4", rec, "--",
                                  fs, "run", "--profile", profile], in: dir, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let live = lines(run.stdout).filter { !Self.health.contains(kind($0) ?? "") }
        let expected = lines(replayed.stdout)
        #expect(live == expected, "first difference: \(zip(live, expected).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "in length \(live.count) vs \(expected.count)")")
        let kinds = Set(expected.compactMap(kind))
        for k in ["peek", "pop", "release", "actions", "move"] { #expect(kinds.contains(k), "the recording exercises \(k): \(kinds.sorted())") }
        #expect(expected.filter { kind($0) == "peek" }.allSatisfy { Self.object($0)?["region"] != nil }, "every peek names its region")
        #expect(!kinds.contains("progress"), "no progress without --progress-hz")
    }

    @Test("socket clients get exactly what they subscribed to; bad subscriptions get an error and the connection stays")
    func subscriptions() throws {
        let dir = try temporaryDirectory()
        let (rec, profile) = try fixture(in: dir)
        let socket = dir.appendingPathComponent("ev.sock").path
        let service = try Running([fs, "emulate", "--end-after-recording", "--sensor", "ad7124-4", rec, "--",
                                   fs, "run", "--profile", profile, "--socket", socket], in: dir)
        #expect(waitUntil(30) { FileManager.default.fileExists(atPath: socket) }, "the socket appears: \(service.stderr)")
        let asks = ["subscribe peek,pop,release\n", "subscribe region=top\n", "subscribe progress 20 region=bottom\n",
                    "subscribe bogus\nsubscribe region=nowhere\nsubscribe peek 60\nstatus\n", ""]
        let clients = try asks.map { ask -> SocketClient in
            let c = try SocketClient(path: socket)
            c.startReading()
            if !ask.isEmpty { c.send(ask) }
            return c
        }
        #expect(waitUntil(30) { clients[0...2].allSatisfy { $0.lines.contains { $0.hasPrefix("{\"subscribed\":") } } && clients[3].lines.count >= 4 })
        let firstEvent = clients[4].events.first
        #expect(service.wait(timeout: 120) == 0, "\(service.stderr)")
        #expect(waitUntil(30) { clients.allSatisfy(\.closed) })
        let stdout = lines(service.stdout)
        try #require(firstEvent == nil, "the subscriptions were taken before the first press")

        // peek, pop, release only.
        #expect(clients[0].lines.first == "{\"subscribed\":{\"events\":[\"peek\",\"pop\",\"release\"]}}")
        #expect(clients[0].events == stdout.filter { ["peek", "pop", "release"].contains(kind($0) ?? "") })
        // region=top: the events naming it, the moves of presses that began in it, health events.
        var inTop = false
        let top = stdout.filter { line in
            let o = Self.object(line) ?? [:]
            let region = o["region"] as? String
            if kind(line) == "peek" { inTop = region == "top" }
            if kind(line) == "move" { return inTop }
            return region == "top" || Self.health.contains(kind(line) ?? "")
        }
        #expect(!top.isEmpty)
        #expect(clients[1].events == top)
        // progress 20 Hz in bottom: replay's progress at 20 Hz, the bottom region's.
        let replayed = try runProcess([fs, "replay", rec, "--profile", profile, "--gestures", "--progress-hz", "20"], in: dir)
        let progress = lines(replayed.stdout).filter { kind($0) == "progress" && (Self.object($0)?["region"] as? String) == "bottom" }
        #expect(progress.count >= 5)
        #expect(clients[2].events == progress)
        #expect(!stdout.contains { kind($0) == "progress" }, "standard output gets no progress without --progress-hz")
        // Three refusals, the status, then every event as before.
        let bad = clients[3].lines
        #expect(bad.count >= 4 && bad[0].contains("unknown event kind \\\"bogus\\\"") && bad[1].contains("unknown region \\\"nowhere\\\"")
                && bad[2].contains("a rate is only for progress") && bad[3].hasPrefix("{\"status\":"), "\(bad.prefix(4))")
        #expect(clients[3].events == stdout)
        #expect(clients[4].events == stdout, "a client that never subscribes gets every event")
    }
}
