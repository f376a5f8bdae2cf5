import ForceStageFormats
import ForceStageTools
import Foundation
import TestSupport
import Testing

/// What the commands' help says against what they do: units, counts, exit statuses,
/// the rate and calibration rules, and the options kept only for old scripts.
@Suite("command help says what the commands do")
struct CommandHelpTests {
    /// `forcestage ARGS --help` at 200 columns (no wrapping inside a phrase), as one line of text.
    static func help(_ arguments: [String]) throws -> String {
        let r = try runProcess([forcestageBinary.path] + arguments + ["--help"], environment: ["COLUMNS": "200"])
        try #require(r.status == 0, "\(arguments) --help: \(r.stderr)")
        return r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    @Test("meter --help: the calibration is --profile, --calibration or the best match in calibration/; an emulated recording lends none")
    func meterHelp() throws {
        let text = try Self.help(["meter"])
        #expect(!text.contains("the recording being emulated (when it names this device)"), "\(text)")
        #expect(text.contains("else the profile in calibration/ that best matches the device's name and label"), "\(text)")
        #expect(text.contains("the recording being emulated lends it no calibration"), "\(text)")
    }

    @Test("--rate of record and calibrate names the matching profile's sample_rate_hz, not a calibration recording they cannot take",
          arguments: ["record", "calibrate"])
    func rateHelpWithoutCalibration(command: String) throws {
        let text = try Self.help([command])
        #expect(!text.contains("--calibration"), "\(command) has no --calibration: \(text)")
        #expect(text.contains("(default: the sample_rate_hz of the profile in calibration/ that matches the device)"), "\(text)")
    }

    @Test("--rate of run and meter: the calibration's rate, a profile's sample_rate_hz or the --calibration recording's", arguments: ["run", "meter"])
    func rateHelpWithCalibration(command: String) throws {
        let text = try Self.help([command])
        #expect(text.contains("(default: the calibration's rate: the profile's sample_rate_hz, or the --calibration recording's rate)"), "\(text)")
    }

    @Test("Timeouts in milliseconds: status --timeout-ms and calibrate --verify-timeout-ms shown; the seconds spellings hidden")
    func timeoutsInMilliseconds() throws {
        let status = try Self.help(["status"])
        #expect(status.contains("--timeout-ms <MS>") && status.contains("Milliseconds to wait"), "\(status)")
        #expect(!status.contains("--timeout <"), "\(status)")
        let calibrate = try Self.help(["calibrate"])
        #expect(calibrate.contains("--verify-timeout-ms <MS>") && calibrate.contains("after this many milliseconds"), "\(calibrate)")
        #expect(!calibrate.contains("--verify-timeout <"), "\(calibrate)")
    }

    @Test("The seconds spellings still work: status --timeout 1 tries the socket (exit 1, not a usage error); --timeout-ms is bounded")
    func oldTimeoutStillAccepted() throws {
        let old = try forcestage(["status", "--socket", "/nonexistent/fs.sock", "--timeout", "1"])
        #expect(old.status == 1 && old.stderr.hasPrefix("forcestage status: cannot connect to /nonexistent/fs.sock"), "\(old.stderr)")
        let new = try forcestage(["status", "--socket", "/nonexistent/fs.sock", "--timeout-ms", "1000"])
        #expect(new.status == 1 && new.stderr.hasPrefix("forcestage status: cannot connect to /nonexistent/fs.sock"), "\(new.stderr)")
        let low = try forcestage(["status", "--socket", "/nonexistent/fs.sock", "--timeout-ms", "5"])
        #expect(low.status == 64 && low.stderr.contains("--timeout-ms must be 100 to 600000 milliseconds"), "\(low.stderr)")
        let verify = try forcestage(["calibrate", "-o", "/nonexistent/x.toml", "--verify-timeout-ms", "0"])
        #expect(verify.status == 64 && verify.stderr.contains("--verify-timeout-ms must be above 0"), "\(verify.stderr)")
        let both = try forcestage(["calibrate", "-o", "/nonexistent/x.toml", "--verify-timeout-ms", "5000", "--verify-timeout", "5"])
        #expect(both.status == 64 && both.stderr.contains("give --verify-timeout-ms or --verify-timeout, not both"), "\(both.stderr)")
    }

    @Test("calibrate --help: panels of 2 to 4 cells, --no-verify, and the exit status without a terminal")
    func calibrateHelp() throws {
        let text = try Self.help(["calibrate"])
        #expect(text.contains("A panel of 2 to 4 force channels"), "\(text)")
        #expect(!text.contains("A panel of four force channels"), "\(text)")
        #expect(text.contains("--no-verify") && text.contains("64 usage (also: a live session without a terminal and without --no-verify)"), "\(text)")
    }

    @Test("profile which --help documents the statuses it exits with: 1 no match, 2 an unreadable profile directory")
    func profileWhichStatuses() throws {
        let text = try Self.help(["profile", "which"])
        #expect(text.contains("Exit status: 0 a profile matched, 1 none did (or no device answered), 2 a bad profile directory (bad input), 64 usage."), "\(text)")
        let none = try forcestage(["profile", "which", "--name", "nau7802"])
        #expect(none.status == 1, "\(none.stderr)")
        let badDirectory = try forcestage(["profile", "which", "--name", "hx711", "--dir", "/nonexistent/profiles"])
        #expect(badDirectory.status == 2, "\(badDirectory.stderr)")
    }

    @Test("The overview names every event: peek, pop, hold, release")
    func overviewNamesHold() throws {
        let r = try runProcess([forcestageBinary.path, "--help"], environment: ["COLUMNS": "200"])
        #expect(r.stdout.contains("peek, pop, hold, release"), "\(r.stdout)")
    }

    @Test("evaluate over recordings at several rates: the overall latency is in milliseconds only, said to be across rates")
    func evaluateOverallAcrossRates() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fast = dir.appendingPathComponent("fsr.json")
        let made = try forcestage(["synth", "--panel", "fsr-ads1115", "--seed", "2", "--duration", "20", "-o", fast.path])
        try #require(made.status == 0, "\(made.stderr)")
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json")
        let r = try forcestage(["evaluate", demo.path, fast.path])
        #expect(r.status == 0, "\(r.stderr)")
        let overall = try #require(lines(r.stdout).first { $0.hasPrefix("overall ") }, "\(r.stdout)")
        #expect(overall.contains("latency ms (recordings at several rates) p50 "), "\(overall)")
        #expect(!overall.contains("scans/ms"), "scans of 12.5 ms and of 1.2 ms mixed in one column: \(overall)")
        // Each recording keeps its own scans and milliseconds (one rate each).
        #expect(lines(r.stdout).filter { $0.contains("latency scans/ms p50 ") }.count == 2, "\(r.stdout)")
        // At one rate the overall line keeps both.
        let same = try forcestage(["evaluate", demo.path, demo.path])
        #expect(lines(same.stdout).first { $0.hasPrefix("overall ") }?.contains("latency scans/ms p50 1/12.5") == true, "\(same.stdout)")
    }

    @Test("synth --negative-gain: force lowers the counts, the labels stay, and the bundled sample is what the command writes and scores F1 1.000")
    func negativeGainSample() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stem = "demo-hx711-negative-gain"
        let made = dir.appendingPathComponent("\(stem).json")
        let r = try forcestage(["synth", "--panel", "hx711-80", "--seed", "7", "--duration", "30", "--presses", "6", "--artefacts", "all",
                                "--negative-gain", "-o", made.path])
        try #require(r.status == 0, "\(r.stderr)")
        let bundled = repositoryRoot.appendingPathComponent("hardware/recordings/\(stem).json")
        #expect(try Data(contentsOf: made) == Data(contentsOf: bundled), "rerun the synth command above and commit its files")
        #expect(try Data(contentsOf: Recording.dataURL(forMetadata: made)) == Data(contentsOf: Recording.dataURL(forMetadata: bundled)))
        let sample = try Recording.load(bundled)
        let positive = try Recording.load(repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json"))
        #expect(sample.metadata.labels == positive.metadata.labels)
        guard case .linear(_, let gain)? = sample.metadata.calibration?.force.first?.mapping else {
            Issue.record("no linear calibration")
            return
        }
        #expect(gain < 0, "newtons per count \(gain)")
        // Where the positive panel's counts rise under a press, the sample's fall by as much.
        let setup = try PanelSetup(metadata: sample.metadata, file: stem)
        let peek = try #require(sample.metadata.labels.first { $0.event == .peek }?.sample)
        let raw = { (r: Recording, i: Int) -> Int64 in
            r.scans.withUnsafeBytes { setup.layout[0].format.decode($0.baseAddress! + i * setup.layout.scanSize + setup.layout[0].offset) }
        }
        #expect(raw(sample, peek + 20) < raw(sample, 10) && raw(positive, peek + 20) > raw(positive, 10))
        let score = try forcestage(["evaluate", bundled.path])
        #expect(score.status == 0 && score.stdout.contains("F1 1.000") && score.stdout.contains("false 0 missed 0"), "\(score.stdout)\(score.stderr)")
        // A force-sensing resistor has no wiring to turn round.
        let fsr = try forcestage(["synth", "--panel", "fsr-ads1115", "--seed", "1", "--duration", "5", "--negative-gain", "-o", dir.appendingPathComponent("f.json").path])
        #expect(fsr.status == 64 && fsr.stderr.contains("--negative-gain: fsr-ads1115:") && fsr.stderr.contains("use a load-cell panel"), "\(fsr.stderr)")
    }
}
