import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// The live commands against the emulated HX711 of the bundled demo, as a new user
/// first runs them: no --rate (the driver states none; the matching profile does),
/// calibration without a terminal, a fresh recording replayed, libiio's warning kept
/// off the screen, and the service's default budget at 80 scans/s.
@Suite("live commands on the emulated HX711 without --rate", .serialized,
       .enabled(if: emulatorAvailable && forcestage != nil, "needs root, `unshare -m`, and the built forcestage binary (swift build)"))
struct LiveCommandEdgeTests {
    static let demo = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path

    /// Runs `commandLine` in /bin/sh with standard input from /dev/null (no terminal).
    static func shell(_ commandLine: String, timeout: Double = 120) throws -> ProcessResult {
        try runProcess(["/bin/sh", "-c", commandLine + " </dev/null"], timeout: timeout)
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test("record without --rate takes the matching profile's 80 scans/s, writes its calibration, and replay classifies the fresh recording")
    func recordThenReplay() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("mine.json")
        let r = try runProcess([forcestage!, "emulate", "--speed", "8", Self.demo, "--", forcestage!, "record", "-o", out.path, "--exit-on-timeout"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("with the calibration of profile hx711-kiosk"), "\(r.stderr)")
        #expect(!r.stderr.contains("High-speed mode not enabled"), "libiio's warning reached the screen: \(r.stderr)")
        let recording = try Recording.load(out)
        #expect(recording.metadata.sampleRateHz == 80)
        let profile = try Profile.load(path: packageRoot.appendingPathComponent("calibration/hx711-kiosk.toml").path)
        #expect(recording.metadata.calibration?.force == profile.channels)
        #expect(recording.metadata.calibration?.peekNewtons == Double(profile.settings.peekNewtons))
        let replayed = try runProcess([forcestage!, "replay", out.path, "--transitions-only"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(lines(replayed.stdout).filter { $0.contains("\"event\":\"peek\"") }.count >= 5, "\(replayed.stdout)")
    }

    @Test("run without --rate streams at the profile's rate; with the demo's own calibration (no budget stated) the budget is derived from 80 scans/s")
    func runWithoutRate() throws {
        let r = try runProcess([forcestage!, "emulate", "--end-after-recording", "--as-fast-as-possible", Self.demo, "--",
                                forcestage!, "run", "--exit-on-timeout"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("stream.rate_hz=80.0") && r.stderr.contains("panel.source=hx711-kiosk"), "\(r.stderr)")
        #expect(!r.stderr.contains("High-speed mode not enabled"), "libiio's warning reached the log: \(r.stderr)")
        #expect(lines(r.stdout).filter { $0.contains("\"event\":\"pop\"") }.count >= 2, "\(r.stdout)")
        // The demo's calibration states no budget: 25 ms would be the sensor's own worst case
        // (sampling and spike filter, 12.5 ms each) with nothing left for the host.
        let own = try runProcess([forcestage!, "emulate", "--end-after-recording", "--as-fast-as-possible", Self.demo, "--",
                                  forcestage!, "run", "--calibration", Self.demo, "--exit-on-timeout"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stderr.contains("budget.ms=35") && own.stderr.contains("budget.worst_case_ms=25"), "\(own.stderr)")
        #expect(!own.stderr.contains("High-speed mode not enabled"), "libiio's warning reached the log: \(own.stderr)")
        // At debug level the log explains libiio's warning, once.
        let debug = try runProcess([forcestage!, "emulate", "--end-after-recording", "--as-fast-as-possible", Self.demo, "--",
                                    forcestage!, "run", "--calibration", Self.demo, "--exit-on-timeout", "--log-level", "debug"])
        #expect(debug.status == 0, "\(debug.stderr.suffix(1000))")
        #expect(debug.stderr.components(separatedBy: "libiio: \"High-speed mode not enabled\": the device's kernel buffer has no mmap block interface").count == 2,
                "\(debug.stderr.suffix(2000))")
        #expect(!debug.stderr.contains("WARNING: High-speed mode not enabled"), "\(debug.stderr.suffix(1000))")
        // A stated budget still wins.
        let stated = try runProcess([forcestage!, "emulate", "--end-after-recording", "--as-fast-as-possible", Self.demo, "--",
                                     forcestage!, "run", "--calibration", Self.demo, "--budget-ms", "25", "--exit-on-timeout"])
        #expect(stated.stderr.contains("budget.ms=25"), "\(stated.stderr)")
    }

    @Test("meter without --rate opens the emulated HX711 at the profile's rate and leaves no libiio warning behind")
    func meterWithoutRate() throws {
        let r = try Self.shell("timeout -s INT 4 \(forcestage!) emulate \(Self.demo) -- \(forcestage!) meter")
        #expect(!r.stderr.contains("pass --rate"), "\(r.stderr)")
        #expect(!r.stderr.contains("High-speed mode not enabled"), "\(r.stderr)")
        #expect(r.stdout.contains("hx711"), "the meter drew nothing: \(r.stdout.suffix(300))")
    }

    @Test("calibrate with standard input not a terminal: refused in one line (exit 64) unless --no-verify, which saves a profile that says it is unverified")
    func calibrateWithoutTerminal() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = dir.appendingPathComponent("session.json")
        try Synthesizer.synthesize(SynthOptions(panel: .hx711at80, seed: 1, duration: 1, unitSeed: 21,
                                                script: .calibrationSession(massesGrams: [500]))).recording.write(to: session)
        let output = dir.appendingPathComponent("panel.toml")
        let command = "\(forcestage!) emulate --speed 4 \(Self.quoted(session.path)) -- \(forcestage!) calibrate --channel voltage0 --mass 500 -o \(Self.quoted(output.path))"
        let refused = try Self.shell(command)
        #expect(refused.status == 64, "\(refused.stdout)\(refused.stderr)")
        #expect(lines(refused.stderr) == ["forcestage calibrate: live verification needs a terminal (standard input is not one); pass --no-verify to save the profile without it"],
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let accepted = try Self.shell(command + " --no-verify")
        #expect(accepted.status == 0, "\(accepted.stdout)\(accepted.stderr)")
        #expect(accepted.stderr.contains("forcestage calibrate: --no-verify: the profile is not verified live"), "\(accepted.stderr)")
        #expect(!accepted.stderr.contains("High-speed mode not enabled") && !accepted.stdout.contains("High-speed"), "\(accepted.stderr)")
        #expect(!accepted.stdout.contains("Step 5 of 5: verification"), "\(accepted.stdout)")
        // No --rate: the session ran at the matching profile's rate, and the new profile states it.
        #expect(accepted.stdout.contains("80 scans/s"), "\(accepted.stdout)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("# Not verified live (--no-verify or --verify-presses 0)"), "\(text)")
        #expect(text.contains("\nsample_rate_hz = 80 "), "the profile states the rate it was made at: \(text)")
        _ = try Profile.load(path: output.path)
    }
}
