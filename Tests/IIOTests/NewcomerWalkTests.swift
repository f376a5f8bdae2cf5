import Foundation
import TestSupport
import Testing

/// A new user's first hour, typed into a shell in tmux: the README's first command
/// (replay the demo), `evaluate`, a calibration session through the emulator at a
/// terminal (answering its questions) and without one (refused, then `--no-verify`),
/// the service through the emulator in a second window and `status` against it.
/// Every step is checked for what it printed on the screen and its exit status.
@Suite("a newcomer's walk through the commands, typed in tmux", .serialized,
       .enabled(if: emulatorAvailable && forcestage != nil && tmux != nil,
                "needs root and `unshare -m` (the emulator), tmux, and the built forcestage binary (swift build); skipped"))
struct NewcomerWalkTests {
    /// A shell in a detached tmux session, 200 x 50, in the package root, with the built
    /// `forcestage` first on PATH (as an installed one would be).
    final class Shell {
        let session: String
        private var steps = 0

        init(session: String) throws {
            self.session = session
            let bin = URL(fileURLWithPath: forcestage!).deletingLastPathComponent().path
            let environment = "PATH=\(bin):/usr/sbin:/usr/bin:/sbin:/bin PS1='$ ' TERM=xterm HOME=/root"
            _ = try spawnAndWait([tmux!, "new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", packageRoot.path,
                                  "env -i \(environment) /bin/sh"])
        }

        func close() { _ = try? spawnAndWait([tmux!, "kill-session", "-t", session]) }

        /// Everything window `window` has shown, wrapped lines joined.
        func screen(window: Int = 0) throws -> String {
            try spawnAndWait([tmux!, "capture-pane", "-p", "-J", "-S", "-", "-t", "\(session):\(window)"]).stdout
        }

        /// The same for a failure message (empty when tmux does not answer).
        func shown(window: Int = 0) -> String { (try? screen(window: window)) ?? "" }

        func type(_ text: String, window: Int = 0) throws {
            _ = try spawnAndWait([tmux!, "send-keys", "-t", "\(session):\(window)", "-l", text])
            _ = try spawnAndWait([tmux!, "send-keys", "-t", "\(session):\(window)", "Enter"])
        }

        func interrupt(window: Int) throws { _ = try spawnAndWait([tmux!, "send-keys", "-t", "\(session):\(window)", "C-c"]) }

        func newWindow() throws {
            let bin = URL(fileURLWithPath: forcestage!).deletingLastPathComponent().path
            _ = try spawnAndWait([tmux!, "new-window", "-t", session, "-c", packageRoot.path,
                                  "env -i PATH=\(bin):/usr/sbin:/usr/bin:/sbin:/bin PS1='$ ' TERM=xterm HOME=/root /bin/sh"])
        }

        /// Waits until window `window` shows `text`, up to `seconds`.
        func waitFor(_ text: String, window: Int = 0, seconds: Double) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try screen(window: window).contains(text) { return true }
                usleep(200_000)
            }
            return false
        }

        /// Types `command` with a marker that shows its exit status, and waits for it (up to `seconds`).
        /// `answering` is called once the command is typed (to answer its questions).
        /// - Returns: the exit status (nil when it did not end in time) and what the command printed.
        func step(_ command: String, seconds: Double, answering: (() throws -> Void)? = nil) throws -> (status: Int32?, output: String) {
            steps += 1
            let marker = "[step \(steps) exit "
            let typed = marker + "$?]"
            try type("\(command); echo \"\(typed)\"")
            try answering?()
            let deadline = Date().addingTimeInterval(seconds)
            var shown = ""
            while Date() < deadline {
                shown = try screen()
                // The typed line holds the marker with `$?`; the shell's echo of it holds the number.
                if let echoed = shown.range(of: NSRegularExpression.escapedPattern(for: marker) + "[0-9]+\\]", options: .regularExpression),
                   let line = shown.range(of: typed, options: .backwards, range: shown.startIndex..<echoed.lowerBound) {
                    let status = Int32(shown[echoed].dropFirst(marker.count).dropLast())
                    return (status, String(shown[line.upperBound..<echoed.lowerBound]))
                }
                usleep(200_000)
            }
            return (nil, String(shown.suffix(2000)))
        }
    }

    @Test("replay, evaluate, calibrate at a terminal and without one, run and status: each step's output and exit status")
    func walk() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shell = try Shell(session: "fs-walk-\(getpid())")
        defer { shell.close() }

        // The README's first command (the installed program; `swift run forcestage` builds it first).
        let replay = try shell.step("forcestage replay --score --format text", seconds: 60)
        #expect(replay.status == 0, "\(replay.output)")
        #expect(replay.output.contains("pop ") && replay.output.contains("F1 1.000"), "\(replay.output)")

        let evaluate = try shell.step("forcestage evaluate hardware/recordings/demo-hx711.json", seconds: 60)
        #expect(evaluate.status == 0, "\(evaluate.output)")
        #expect(evaluate.output.contains("labels 14 events 14") && evaluate.output.contains("F1 1.000"), "\(evaluate.output)")

        // A panel to calibrate: a recorded calibration session of one HX711 unit, played by the emulator.
        let session = dir.appendingPathComponent("session.json").path
        let synth = try shell.step("forcestage synth --panel hx711-80 --seed 1 --duration 1 --unit-seed 21 --script session --masses 500 -o \(session)",
                                   seconds: 60)
        #expect(synth.status == 0 && synth.output.contains("wrote \(session)"), "\(synth.output)")

        // At a terminal: the mass is asked for and typed, then "save?" answered.
        let profile = dir.appendingPathComponent("panel.toml").path
        let live = try shell.step("forcestage emulate --speed 4 \(session) -- forcestage calibrate --channel voltage0 -o \(profile)", seconds: 120) {
            #expect(try shell.waitFor("mass 1 in grams: ", seconds: 60), "\(shell.shown().suffix(1500))")
            try shell.type("500")
            #expect(try shell.waitFor("Save the profile to \(profile)? [Y/n]", seconds: 90), "\(shell.shown().suffix(1500))")
            try shell.type("y")
        }
        #expect(live.status == 0, "\(live.output)")
        #expect(live.output.contains("Step 5 of 5: verification") && live.output.contains("Saved \(profile)"), "\(live.output)")
        #expect(live.output.contains("80 scans/s"), "the emulated HX711 streams at its profile's rate without --rate: \(live.output)")

        // Without a terminal: refused in one line, then saved with --no-verify.
        let unverified = dir.appendingPathComponent("unverified.toml").path
        let calibrate = "forcestage emulate --speed 4 \(session) -- forcestage calibrate --channel voltage0 --mass 500 -o \(unverified)"
        let refused = try shell.step("\(calibrate) </dev/null", seconds: 60)
        #expect(refused.status == 64, "\(refused.output)")
        #expect(refused.output.contains("forcestage calibrate: live verification needs a terminal (standard input is not one); pass --no-verify to save the profile without it"),
                "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: unverified))
        let accepted = try shell.step("\(calibrate) --no-verify </dev/null", seconds: 120)
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(accepted.output.contains("the profile is not verified live") && accepted.output.contains("Saved \(unverified)"), "\(accepted.output)")
        #expect(try String(contentsOfFile: unverified, encoding: .utf8).contains("# Not verified live"))

        // The service through the emulator in a second window, as a user would keep it running; status from the first.
        let socket = dir.appendingPathComponent("fs.sock").path
        try shell.newWindow()
        try shell.type("forcestage emulate hardware/recordings/demo-hx711.json -- forcestage run --socket \(socket); echo \"[run exit $?]\"", window: 1)
        #expect(try shell.waitFor("streaming", window: 1, seconds: 60), "\(shell.shown(window: 1).suffix(1500))")
        #expect(try shell.waitFor("\"event\":\"peek\"", window: 1, seconds: 30), "\(shell.shown(window: 1).suffix(1500))")
        let status = try shell.step("forcestage status --socket \(socket)", seconds: 30)
        #expect(status.status == 0, "\(status.output)")
        #expect(status.output.contains("hx711-kiosk") && status.output.contains("80 scans/s"), "\(status.output)")
        try shell.interrupt(window: 1)
        #expect(try shell.waitFor("[run exit 0]", window: 1, seconds: 30), "\(shell.shown(window: 1).suffix(1500))")

        // libiio's own warning never reached either screen.
        for window in [0, 1] {
            let shown = try shell.screen(window: window)
            #expect(!shown.contains("High-speed mode not enabled"), "window \(window): \(shown.suffix(2000))")
        }
    }
}
