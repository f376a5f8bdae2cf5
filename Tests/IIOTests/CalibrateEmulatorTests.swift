import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// `calibrate` and `meter` as a person uses them, on a terminal, against the emulated device.
@Suite("calibrate and meter on a terminal, against the emulator", .serialized,
       .enabled(if: emulatorAvailable && forcestage != nil, "needs root, `unshare -m`, and the built forcestage binary (swift build)"))
struct CalibrateEmulatorTests {
    static let unit: UInt64 = 21

    /// A synthesized recording of a calibration session of one HX711 unit.
    static func session(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("session.json")
        try Synthesizer.synthesize(SynthOptions(panel: .hx711at80, seed: 1, duration: 1, unitSeed: unit,
                                                script: .calibrationSession(massesGrams: [500]))).recording.write(to: url)
        return url
    }

    static func calibrateCommand(_ session: URL, output: URL, plot: URL? = nil, extra: [String] = []) -> [String] {
        [forcestage!, "emulate", "--speed", "4", session.path] + extra + ["--", forcestage!, "calibrate", "--channel", "voltage0",
         "--rate", "80", "-o", output.path] + (plot.map { ["--plot", $0.path] } ?? [])
    }

    @Test("A session typed at a terminal against the emulated panel saves a profile that scores F1 1.0 on a held-back recording")
    func interactiveSession() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = try Self.session(in: dir)
        let output = dir.appendingPathComponent("panel.toml")
        let plot = dir.appendingPathComponent("session.svg")
        let saved = dir.appendingPathComponent("live-session.json")
        let term = try PseudoTerminal(Self.calibrateCommand(session, output: output, plot: plot) + ["--save-session", saved.path])
        #expect(term.expect("Step 1 of 5: unloaded panel", timeout: 30), "\(term.output)")
        #expect(term.expect("mass 1 in grams: ", timeout: 30), "\(term.output)")
        term.type("0\n")   // a bad answer first
        #expect(term.expect("a mass must be above zero grams", timeout: 30), "\(term.output)")
        term.type("500\n")
        #expect(term.expect("Step 3 of 5: press lightly", timeout: 30), "\(term.output)")
        #expect(term.expect("firm press 5/5", timeout: 60), "\(term.output)")
        #expect(term.expect("Save the profile to", timeout: 60), "\(term.output)")
        term.type("y\n")
        let code = term.waitExit(timeout: 60)
        #expect(code == 0, "\(term.output)")
        let text = term.output
        #expect(text.contains("[##############################] 100 %"), "the unloaded step shows a progress bar")
        for line in ["peek ", "pop ", "release at ", "debounce: ", "spike rejection ", "latency budget "] {
            #expect(text.contains("\n  \(line)"), "no one-line reason starting \(line)")
        }
        // Verification shows the light and firm presses classified live.
        #expect(text.contains("  peek ") && text.contains("  pop ") && text.contains("  release "))

        let profile = try Profile.load(output)
        #expect(profile.matchName == "hx711" && profile.matchLabel == "synth-hx711-80-unit\(Self.unit)")
        // The held-back recording: the same unit, pressed differently (another seed), labelled at the profile's levels.
        let held = try Synthesizer.synthesize(SynthOptions(
            panel: .hx711at80, seed: 2, duration: 120, unitSeed: Self.unit,
            labelCalibration: RecordingCalibration(force: profile.channels, peekNewtons: Double(profile.settings.peekNewtons),
                                                   popNewtons: Double(profile.settings.popNewtons))))
        let setup = try profile.setup(for: held.recording.metadata, file: "held-back")
        let s = score(events: replay(held.recording, setup: setup).events, labels: held.recording.metadata.labels, sampleRateHz: 80)
        #expect(s.labels > 60)
        #expect(s.f1 == 1.0, "F1 \(s.f1): false \(s.falseEvents.count) missed \(s.misses.count)")
        // Its levels separate the held-back presses: taps stay under peek, held peeks between the levels.
        let peek = Double(profile.settings.peekNewtons), pop = Double(profile.settings.popNewtons)
        for p in held.script.presses where p.kind == .tap { #expect(p.peak < peek) }
        for p in held.script.presses where p.kind == .peek { #expect(p.peak > peek && p.peak < pop) }
        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.contains(">peek \(fixed2(peek)) N</text>") && svg.contains(">light presses</text>"))
        // The scans the live session saw, saved, give the same profile when analysed again from the file.
        let again = dir.appendingPathComponent("again.toml")
        let r = try runProcess([forcestage!, "calibrate", "--from-recording", saved.path, "--mass", "500", "-o", again.path, "-y"], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let second = try Profile.load(again)
        #expect(second.settings == profile.settings && second.channels == profile.channels)
    }

    @Test("Ctrl-C at a step ends the session with a clear line and saves nothing")
    func interrupted() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = try Self.session(in: dir)
        let output = dir.appendingPathComponent("panel.toml")
        let term = try PseudoTerminal(Self.calibrateCommand(session, output: output) + ["--mass", "500"])
        #expect(term.expect("Step 3 of 5: press lightly", timeout: 60), "\(term.output)")
        term.type("\u{3}")
        let code = term.waitExit(timeout: 30)
        #expect(code == 130, "\(term.output)")
        #expect(term.output.contains("interrupted during step light presses; nothing saved"), "\(term.output)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["session.iio", "session.json"])
    }

    @Test("The device vanishing mid-step: the session says so, waits, and offers the step again")
    func deviceVanishes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = try Self.session(in: dir)
        let output = dir.appendingPathComponent("panel.toml")
        // Gone from 0.5 s to 2.0 s of the recording (0.75 s at double speed): during the unloaded step.
        var args = Self.calibrateCommand(session, output: output, extra: ["--vanish-at", "0.5", "--return-at", "2"])
        args[args.firstIndex(of: "4")!] = "2"
        args += ["--mass", "500", "-y", "--timeout-ms", "200", "--unloaded-seconds", "2"]
        let term = try PseudoTerminal(args)
        #expect(term.expect("during unloaded panel; waiting for it to come back", timeout: 60), "\(term.output)")
        #expect(term.expect("device back; starting unloaded panel again", timeout: 60), "\(term.output)")
        let code = term.waitExit(timeout: 120)
        #expect(code == 0, "\(term.output)")
        _ = try Profile.load(output)
    }

    @Test("Verification on a device that stops sending scans (the emulator's recording ends) ends after --verify-timeout with one line, saves, exits 0")
    func verificationWithoutScans() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = try Self.session(in: dir)
        let output = dir.appendingPathComponent("panel.toml")
        // The recording verifies 4 presses of the 10 asked for, then ends: no scans, the device lost and back, for ever.
        let term = try PseudoTerminal(Self.calibrateCommand(session, output: output) + ["--mass", "500", "-y", "--verify-presses", "10",
                                                                                       "--verify-timeout", "5"])
        #expect(term.expect("Step 5 of 5: verification", timeout: 90), "\(term.output)")
        #expect(term.expect("no scans from the device for 5 s: verification ends with 4 of 10 presses verified", timeout: 60), "\(term.output)")
        let code = term.waitExit(timeout: 30)
        #expect(code == 0, "\(term.output)")
        #expect(term.output.contains("verification ends after 5 s without scans"), "\(term.output)")
        _ = try Profile.load(output)
    }

    @Test("profile which asks the live (emulated) device for its name and label and shows why its profile matched")
    func profileWhichLive() throws {
        let demo = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json")
        let r = try runProcess([forcestage!, "emulate", demo.path, "--", forcestage!, "profile", "which"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("device: name hx711, label synth-hx711-80-seed7"), "\(r.stdout)")
        #expect(r.stdout.contains("* hx711-kiosk.toml (hx711-kiosk): score 5"), "\(r.stdout)")
        #expect(r.stdout.contains("name \"hx711\" matches \"hx711\" exactly (+4)"))
        #expect(r.stdout.contains("fsr-ads1115.toml (fsr-ads1115): no match"))
        #expect(r.stdout.contains("matched: ") && r.stdout.contains("calibration/hx711-kiosk.toml"))
        let none = try runProcess([forcestage!, "profile", "which", "--name", "nau7802"], timeout: 30)
        #expect(none.status == 1 && none.stderr.contains("no profile matches nau7802"), "\(none.stderr)")
    }

    @Test("The meter on an 80-column terminal (tmux): the bar with the levels, the state, the events; q quits and restores the terminal",
          .enabled(if: tmux != nil, "tmux is not installed (hardware/setup.sh installs it); the meter's screen cannot be captured"))
    func meterInTmux() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json")
        let tmuxSession = try TmuxSession(name: "fs-meter-\(getpid())", in: dir,
                                          commandLine: "\(shellQuoted(forcestage!)) emulate \(shellQuoted(demo.path)) -- \(shellQuoted(forcestage!)) meter --calibration \(shellQuoted(demo.path))")
        defer { tmuxSession.close() }
        // The demo's slam is at 4 s: wait until its pop has been shown.
        let shown = try tmuxSession.waitForScreen(seconds: 30) { $0.contains(" pop ") && $0.contains("state idle") }
        let lines = shown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.first?.hasPrefix("forcestage meter  hx711") == true, "\(shown)")
        #expect(shown.contains("state "))
        let bar = try #require(lines.first { $0.hasPrefix("[") && $0.contains("] ") && $0.hasSuffix(" N") }, "\(shown)")
        #expect(bar.contains("|") && bar.contains(":"), "levels marked on the bar: \(bar)")
        #expect(shown.contains("^peek 1.09 N") && shown.contains("^pop 2.23 N"), "\(shown)")
        // The marks sit under the bar where the levels are: peek and pop columns in proportion.
        func column(_ line: String?, _ c: Character) -> Int? { line.flatMap { l in l.firstIndex(of: c).map { l.distance(from: l.startIndex, to: $0) } } }
        #expect(column(bar, "|") == column(lines.first { $0.contains("^peek") }, "^"), "\(shown)")
        #expect(column(String(bar.reversed()), "|").map { bar.count - 1 - $0 } == column(lines.first { $0.contains("^pop") }, "^"), "\(shown)")
        #expect(shown.contains("noise ") && shown.contains(" N rms"))
        #expect(shown.contains("last events:") && shown.contains(" peek ") && shown.contains(" pop "), "\(shown)")
        #expect(shown.contains("q or Ctrl-C quits"))
        try tmuxSession.send("q")
        let after = tmuxSession.afterExit()
        #expect(after.hasPrefix("command-exit=0"), "\(after)")
        // The terminal is as it was: line editing and echo on.
        #expect(after.contains(" icanon ") && after.contains(" echo "), "\(after)")
        #expect(!(try tmuxSession.screen()).contains("q or Ctrl-C quits"), "the meter's screen is gone (the alternate screen was left)")
    }

    @Test("The meter quits on Ctrl-C too, restoring the terminal",
          .enabled(if: tmux != nil, "tmux is not installed (hardware/setup.sh installs it); the meter's screen cannot be captured"))
    func meterCtrlC() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json")
        // The shell traps SIGINT so that it survives the Ctrl-C and reports what the meter left behind.
        let tmuxSession = try TmuxSession(name: "fs-meter-c-\(getpid())", in: dir, commandLine:
            "\(shellQuoted(forcestage!)) emulate \(shellQuoted(demo.path)) -- \(shellQuoted(forcestage!)) meter --calibration \(shellQuoted(demo.path))", trapInterrupt: true)
        defer { tmuxSession.close() }
        _ = try tmuxSession.waitForScreen(seconds: 30) { $0.contains("last events:") }
        try tmuxSession.send("C-c")
        let after = tmuxSession.afterExit()
        #expect(after.hasPrefix("command-exit=0"), "emulate waited for the meter, which ended cleanly: \(after)")
        #expect(after.contains(" icanon ") && after.contains(" echo "), "\(after)")
    }
}

func fixed2(_ v: Double) -> String { String(format: "%.2f", v) }

@Suite("meter's plate map on a four-cell panel", .serialized,
       .enabled(if: emulatorAvailable && forcestage != nil, "needs root, `unshare -m` and the built forcestage"))
struct MeterPlateMapTests {
    @Test("The meter shows where a four-cell panel is pressed on a small plate map",
          .enabled(if: tmux != nil, "tmux is not installed (hardware/setup.sh installs it); the meter's screen cannot be captured"),
          .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func plateMap() throws {
        let rec = sharedRecordings.appendingPathComponent("panel4-500hz-offcentre-sample.json")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tmuxSession = try TmuxSession(name: "fs-meter-map-\(getpid())", in: dir, commandLine:
            "\(shellQuoted(forcestage!)) emulate --sensor ad7124-4 \(shellQuoted(rec.path)) -- \(shellQuoted(forcestage!)) meter --calibration \(shellQuoted(rec.path))")
        defer { tmuxSession.close() }
        var pressed = "", idle = ""
        _ = try tmuxSession.waitForScreen(seconds: 30, every: 100_000) { shown in
            if shown.contains("pressed at x") { pressed = shown } else if shown.contains("not pressed") { idle = shown }
            return !pressed.isEmpty && !idle.isEmpty
        }
        #expect(idle.contains("plate +---------------------+  not pressed"), "\(idle)")
        let rows = pressed.split(separator: "\n").map(String.init).filter { $0.hasPrefix("      |") }
        #expect(rows.count == 3 && rows.filter { $0.contains("o") }.count == 1, "\(pressed)")
        #expect(pressed.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }
}
