import Foundation
import TestSupport
import Testing
@testable import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools
#if canImport(Glibc)
import Glibc
#endif

/// The result of the real `forcestage` run under a deadline, with its peak memory.
struct BoundedRun {
    var status: Int32
    /// The signal that ended it, or 0.
    var signal: Int32
    var timedOut: Bool
    var stdout: String
    var stderr: String
    /// Peak resident set, kB (the child's VmHWM, sampled every 2 ms while it runs).
    var maxRSSKilobytes: Int
}

/// Runs the real binary with a deadline (killed at the deadline: a hang is a
/// failure, not a stuck test) and reports how it ended and its peak memory.
func forcestageBounded(_ arguments: [String], seconds: Double = 60) throws -> BoundedRun {
    try spawnBounded([forcestageBinary.path] + arguments, seconds: seconds)
}

/// Runs `argv` (argv[0] an absolute path) with every signal at its default
/// disposition, under a deadline, and reports how it ended and its peak memory.
/// `discardOutput` sends stdout and stderr to /dev/null (not files a file-size limit would count).
func spawnBounded(_ command: [String], seconds: Double = 60, discardOutput: Bool = false) throws -> BoundedRun {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let outPath = dir.appendingPathComponent("out").path, errPath = dir.appendingPathComponent("err").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, discardOutput ? "/dev/null" : outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, discardOutput ? "/dev/null" : errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = command.map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    sigfillset(&all)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
    guard rc == 0 else { throw POSIXFailure(operation: "spawn", path: command[0], code: rc) }
    let deadline = Date().addingTimeInterval(seconds)
    var status: Int32 = 0
    var usage = rusage()
    var timedOut = false
    // Peak memory is the child's own VmHWM, read while it runs: posix_spawn
    // starts the child on the test runner's address space (CLONE_VM), and exec
    // folds that space's high-water mark into the child's ru_maxrss, so
    // wait4's figure reports the runner (often near 100 MB), not the child.
    var peakKilobytes = 0
    while true {
        peakKilobytes = max(peakKilobytes, highWaterKilobytes(pid))
        let r = wait4(pid, &status, WNOHANG, &usage)
        if r == pid { break }
        if Date() > deadline {
            timedOut = true
            kill(pid, SIGKILL)
            _ = wait4(pid, &status, 0, &usage)
            break
        }
        usleep(2_000)
    }
    let exited = (status & 0x7f) == 0
    return BoundedRun(status: exited ? (status >> 8) & 0xff : -1, signal: exited ? 0 : status & 0x7f, timedOut: timedOut,
                      stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                      maxRSSKilobytes: peakKilobytes)
}

/// `VmHWM` of a running process from /proc (0 once it has exited). Read with
/// stdio: /proc files report size 0, which Foundation's readers take at its word.
func highWaterKilobytes(_ pid: pid_t) -> Int {
    guard let file = fopen("/proc/\(pid)/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(cString: line)
        if text.hasPrefix("VmHWM:") {
            return Int(text.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
    }
    return 0
}

/// The bundled demo copied into `dir` with its metadata text changed by `edit`.
func demoCopy(in dir: URL, name: String = "rec", edit: (String) -> String) throws -> URL {
    let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711")
    let json = dir.appendingPathComponent("\(name).json")
    try FileManager.default.copyItem(at: demo.appendingPathExtension("iio"), to: dir.appendingPathComponent("\(name).iio"))
    let text = try String(contentsOf: demo.appendingPathExtension("json"), encoding: .utf8)
    let edited = edit(text)
    try edited.write(to: json, atomically: false, encoding: .utf8)
    return json
}

/// Checks a run ended by itself with a one-line error (no trap, no hang) naming `mentions`.
func expectCleanRefusal(_ r: BoundedRun, mentions: [String], code: Int32? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!r.timedOut, "hung until killed", sourceLocation: sourceLocation)
    #expect(r.signal == 0, "killed by signal \(r.signal): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.status != 0, "accepted: \(r.stdout.prefix(200))", sourceLocation: sourceLocation)
    if let code { #expect(r.status == code, "exit \(r.status), want \(code): \(r.stderr)", sourceLocation: sourceLocation) }
    #expect(r.stderr.hasPrefix("forcestage"), "\(r.stderr)", sourceLocation: sourceLocation)
    for m in mentions { #expect(r.stderr.contains(m), "error does not name \(m): \(r.stderr)", sourceLocation: sourceLocation) }
}

@Suite("Hostile recordings and command-line values")
struct HostileInputTests {
    static let zeroRawLine = "\"zeroRaw\": 8990445"
    static let scaleLine = "\"newtonsPerCount\": 2.36913e-06"

    @Test("Extreme calibration numbers in a recording are refused by key, never trapped on",
          arguments: [("\"zeroRaw\": 1e30", "zeroRaw"), ("\"zeroRaw\": -9.3e18", "zeroRaw"),
                      ("\"zeroRaw\": 8990445, \"newtonsPerCount\": 1e30", "newtonsPerCount"), ("\"zeroRaw\": 8990445, \"newtonsPerCount\": 3e38", "newtonsPerCount")])
    func extremeCalibration(replacement: String, key: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try demoCopy(in: dir) { text in
            if key == "newtonsPerCount" {
                return text.replacingOccurrences(of: "\(Self.zeroRawLine),\n        \(Self.scaleLine)", with: replacement)
            }
            return text.replacingOccurrences(of: Self.zeroRawLine, with: replacement)
        }
        #expect(try String(contentsOf: json, encoding: .utf8).contains(replacement))
        for args in [["replay", "--format", "text", json.path], ["replay", json.path],
                     ["plot", json.path, "-o", dir.appendingPathComponent("p.svg").path]] {
            let r = try forcestageBounded(args, seconds: 60)
            expectCleanRefusal(r, mentions: ["calibration.force[0].\(key)"], code: 2)
        }
    }

    @Test("Sample rates of 1e10 and 1e-10 are refused naming sampleRateHz", arguments: ["1e10", "1e-10", "0", "-80"])
    func extremeSampleRate(rate: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try demoCopy(in: dir) { $0.replacingOccurrences(of: "\"sampleRateHz\": 80", with: "\"sampleRateHz\": \(rate)") }
        for args in [["replay", "--format", "text", json.path], ["evaluate", json.path]] {
            expectCleanRefusal(try forcestageBounded(args), mentions: ["sampleRateHz"])
        }
    }

    @Test("replay --trace 0:Int64.max traces every scan and ends")
    func traceToInt64Max() throws {
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let r = try forcestageBounded(["replay", "--trace", "0:\(Int64.max)", demo])
        #expect(r.signal == 0 && !r.timedOut && r.status == 0, "\(r.stderr)")
        let scans = try Recording.load(URL(fileURLWithPath: demo)).scanCount
        #expect(r.stdout.split(separator: "\n").count == scans)
    }

    @Test("Non-finite and huge command-line numbers are usage errors", arguments: [
        ["plot", "DEMO", "--from", "nan", "-o", "OUT"], ["plot", "DEMO", "--from", "inf", "-o", "OUT"],
        ["plot", "DEMO", "--to", "1e300", "-o", "OUT"], ["plot", "DEMO", "--from", "-inf", "-o", "OUT"],
        ["calibrate", "--from-recording", "DEMO", "--mass", "500", "--unloaded-seconds", "1e18", "-o", "OUT.toml"],
        ["calibrate", "--from-recording", "DEMO", "--mass", "1e300", "-o", "OUT.toml"],
        ["synth", "--panel", "hx711-80", "--duration", "1e18", "-o", "OUT.json"],
        ["synth", "--panel", "hx711-80", "--script", "session", "--masses", "500,1e300", "-o", "OUT.json"],
        ["record", "--rate", "1e-10", "-o", "OUT.json"], ["emulate", "DEMO", "--speed", "nan", "--", "true"],
        ["replay", "--trace=-5:10", "DEMO"], ["replay", "--trace", "5", "DEMO"], ["replay", "--trace", "20:10", "DEMO"],
    ])
    func badNumbers(args: [String]) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let out = dir.appendingPathComponent("out").path
        let argv = args.map { $0.replacingOccurrences(of: "DEMO", with: demo).replacingOccurrences(of: "OUT", with: out) }
        let r = try forcestageBounded(argv, seconds: 60)
        expectCleanRefusal(r, mentions: [])
        #expect(!FileManager.default.fileExists(atPath: out + ".svg"))
    }

    @Test("212 000 labels in 9 MB are refused by size before parsing; peak memory stays small")
    func hugeLabelList() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let labels = (0..<212_000).map { "    {\"event\": \"peek\", \"sample\": \($0 % 1000)}" }.joined(separator: ",\n")
        let json = try demoCopy(in: dir) { text in
            let start = text.range(of: "\"labels\": [")!
            return String(text[..<start.upperBound]) + "\n" + labels + "\n  ]\n}\n"
        }
        let size = try FileManager.default.attributesOfItem(atPath: json.path)[.size] as! Int
        #expect(size > 8_000_000)
        let r = try forcestageBounded(["replay", json.path])
        expectCleanRefusal(r, mentions: [json.lastPathComponent, "limit"])
        #expect(r.maxRSSKilobytes > 0 && r.maxRSSKilobytes < 100_000, "peak RSS \(r.maxRSSKilobytes) kB (0: never sampled)")
    }

    @Test("More labels than the limit are refused naming labels; the largest accepted metadata stays bounded in memory")
    func labelCountLimit() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let labels = (0...Limits.maximumLabels).map { "{\"event\":\"peek\",\"sample\":\($0 % 1000)}" }.joined(separator: ",")
        let json = try demoCopy(in: dir) { text in
            let start = text.range(of: "\"labels\": [")!
            return String(text[..<start.upperBound]) + labels + "]}"
        }
        let r = try forcestageBounded(["replay", json.path])
        expectCleanRefusal(r, mentions: ["labels", "\(Limits.maximumLabels)"])
        // Parsing a metadata file of almost the size limit costs a bounded multiple of it.
        #expect(r.maxRSSKilobytes > 0 && r.maxRSSKilobytes < 150_000, "peak RSS \(r.maxRSSKilobytes) kB (0: never sampled)")
    }

    @Test("A duplicate JSON key is refused, naming the key and its line")
    func duplicateKey() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try demoCopy(in: dir) { $0.replacingOccurrences(of: "\"sampleRateHz\": 80,", with: "\"sampleRateHz\": 80,\n  \"sampleRateHz\": 10,") }
        let r = try forcestageBounded(["replay", json.path])
        expectCleanRefusal(r, mentions: ["\"sampleRateHz\" appears twice", "rec.json:8"])
        #expect(throws: JSONParseError.self) { try JSON.parse(Array("{\"a\": {\"b\": 1, \"b\": 1}}".utf8)) }
    }

    @Test("A FIFO named as any input file is refused at once as not a regular file, never waited on")
    func fifoInputs() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let fifo = dir.appendingPathComponent("fifo.json").path, fifoProfile = dir.appendingPathComponent("fifo.toml").path
        // A recording whose metadata is real and whose raw scans are a FIFO.
        let stem = try demoCopy(in: dir, name: "scans") { $0 }
        let scans = dir.appendingPathComponent("scans.iio").path
        try FileManager.default.removeItem(atPath: scans)
        for path in [fifo, fifoProfile, scans] { #expect(mkfifo(path, 0o600) == 0, "mkfifo \(path)") }
        let cases: [([String], String)] = [
            (["replay", fifo], fifo), (["evaluate", fifo], fifo), (["replay", stem.path], scans),
            (["replay", "--profile", fifoProfile, demo], fifoProfile), (["replay", "--calibration", fifo, demo], fifo),
        ]
        for (args, named) in cases {
            let r = try forcestageBounded(args, seconds: 20)
            expectCleanRefusal(r, mentions: [named, "not a regular file"], code: 2)
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        // `profile check` names each file that does not validate on a line of its own, then sums up.
        let check = try forcestageBounded(["profile", "check", fifoProfile], seconds: 20)
        #expect(!check.timedOut && check.signal == 0 && check.status == 2, "exit \(check.status): \(check.stderr)")
        #expect(check.stderr.hasPrefix("\(fifoProfile): the profile is not a regular file"), "\(check.stderr)")
    }

    @Test("--uri xml: naming a FIFO, a directory, no file, or a file that is not a libiio context is a usage error of one line, never a wait or libxml2's noise")
    func xmlContextFiles() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let fifo = dir.appendingPathComponent("context.xml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let missing = dir.appendingPathComponent("missing.xml").path
        let broken = dir.appendingPathComponent("broken.xml").path, html = dir.appendingPathComponent("page.xml").path
        try #"<context name="x"><device id="iio:device0" name="a"></context"#.write(toFile: broken, atomically: true, encoding: .utf8)
        try "<html><body/></html>\n".write(toFile: html, atomically: true, encoding: .utf8)
        for (file, problem) in [(fifo, "not a regular file"), (dir.path, "not a regular file"), (missing, "No such file or directory"),
                                (broken, "not a libiio context"), (html, "not a libiio context")] {
            for args in [["run", "--uri", "xml:\(file)", "--calibration", demo],
                         ["record", "--uri", "xml:\(file)", "--rate", "80", "-o", dir.appendingPathComponent("r.json").path],
                         ["profile", "which", "--uri", "xml:\(file)"]] {
                let r = try forcestageBounded(args, seconds: 20)
                expectCleanRefusal(r, mentions: ["xml:\(file)", problem], code: 64)
                #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r.json").path))
    }

    @Test("plot --from/--to past a recording's end is a usage error naming its length, and writes nothing")
    func plotRangePastTheEnd() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let svg = dir.appendingPathComponent("p.svg").path
        for range in [["--from", "100"], ["--from", "29.99", "--to", "31"]] {
            let r = try forcestageBounded(["plot", demo, "-o", svg] + range)
            expectCleanRefusal(r, mentions: ["--from/--to", "demo-hx711.json", "scans at 80/s"], code: 64)
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: svg))
        }
    }

    @Test("A negative number after an option is that option's value, refused by its range, not 'Missing value'", arguments: [
        (["plot", "DEMO", "--from", "-1", "-o", "OUT.svg"], "--from must be a number from 0"),
        (["synth", "--panel", "hx711-80", "--seed", "-1", "--duration", "5", "-o", "OUT.json"], "'-1' is invalid for '--seed"),
        (["synth", "--panel", "hx711-80", "--seed", "1", "--duration", "-5", "-o", "OUT.json"], "--duration must be above zero seconds, got -5"),
        (["calibrate", "--from-recording", "DEMO", "--mass", "-500", "-o", "OUT.toml"], "--mass must be above zero grams, got -500"),
        (["replay", "--trace", "-5:10", "DEMO"], "--trace takes FROM:TO scan indices, 0 <= FROM <= TO"),
        (["run", "--budget-ms", "-5"], "--budget-ms must be above 0"),
        (["run", "--rate", "-1e3"], "--rate must be a number from 0.01"),
        (["status", "--socket", "/nonexistent/s", "--timeout", "-5"], "--timeout must be 0.1 to 600"),
        (["status", "--socket", "/nonexistent/s", "--timeout", "-inf"], "The value '-inf' is invalid for '--timeout'"),
    ])
    func negativeValues(args: [String], message: String) throws {
        let r = try expectUsageRefusal(args, mentioning: message)
        #expect(!r.stderr.contains("Missing value"), "\(r.stderr)")
    }

    /// Runs forcestage with DEMO (the demo recording) and OUT (a path in a fresh folder) put in, expects a
    /// usage refusal (exit 64) naming `message`, and that nothing was written; returns the run.
    func expectUsageRefusal(_ args: [String], mentioning message: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws -> BoundedRun {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let out = dir.appendingPathComponent("out").path
        let argv = args.map { $0.replacingOccurrences(of: "DEMO", with: demo).replacingOccurrences(of: "OUT", with: out) }
        let r = try forcestageBounded(argv)
        expectCleanRefusal(r, mentions: [message], code: 64, sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, sourceLocation: sourceLocation)
        return r
    }

    @Test("Hexadecimal and other non-decimal numbers Swift's Double reads are refused in one line, exit 64, naming the value", arguments: [
        (["synth", "--panel", "hx711-80", "--duration", "0x10", "-o", "OUT.json"], "'0x10' is invalid for '--duration"),
        (["plot", "DEMO", "--from", "0x1p2", "-o", "OUT.svg"], "'0x1p2' is invalid for '--from"),
        (["calibrate", "--from-recording", "DEMO", "--mass", "0x1F4", "-o", "OUT.toml"], "'0x1F4' is invalid for '--mass"),
        (["run", "--rate", "0x10"], "'0x10' is invalid for '--rate <HZ>': not a decimal number"),
        (["run", "--budget-ms", "0X19"], "'0X19' is invalid for '--budget-ms"),
        (["status", "--socket", "/nonexistent/s", "--timeout", "0x2"], "'0x2' is invalid for '--timeout"),
        (["synth", "--panel", "hx711-80", "--script", "session", "--masses", "500,0x1F4", "-o", "OUT.json"], "--masses"),
    ])
    func hexadecimalValues(args: [String], message: String) throws {
        let r = try expectUsageRefusal(args, mentioning: message)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }

    @Test("A recording written over a directory is refused before either half is written; an older STEM.iio is kept")
    func recordingOverDirectory() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("take.json")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let old = dir.appendingPathComponent("take.iio")
        try Data("older scans".utf8).write(to: old)
        let r = try forcestageBounded(["synth", "--panel", "hx711-80", "--seed", "1", "--duration", "5", "-o", target.path])
        expectCleanRefusal(r, mentions: [target.path, "directory"], code: 1)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try Data(contentsOf: old) == Data("older scans".utf8), "the older raw scans were replaced")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["take.iio", "take.json"], "left behind: \(left)")
    }

    @Test("A recording whose metadata fails to write (the file size limit stops it, the scans fit) leaves the older pair as it was: never new scans beside old metadata")
    func recordingMetadataFails() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("take.json"), data = dir.appendingPathComponent("take.iio")
        // hx711-10 for 5 s: fewer bytes of scans than of metadata, so a size limit between them stops only the metadata.
        let synth = ["synth", "--panel", "hx711-10", "--duration", "5", "-o", target.path]
        let first = try forcestageBounded(synth + ["--seed", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        let oldMetadata = try Data(contentsOf: target), oldScans = try Data(contentsOf: data)
        let limit = (oldScans.count + oldMetadata.count) / 2
        try #require(oldScans.count < limit && limit < oldMetadata.count - 50, "scans \(oldScans.count) bytes, metadata \(oldMetadata.count)")
        // RLIMIT_FSIZE through util-linux's prlimit, SIGXFSZ ignored so the write fails with EFBIG instead of killing.
        let script = "trap '' XFSZ; exec /usr/bin/prlimit --fsize=\(limit) \"$@\""
        let second = try runProcess(["/bin/sh", "-c", script, "sh", forcestageBinary.path] + synth + ["--seed", "2"], timeout: 60)
        #expect(second.status != 0, "the metadata was written under a \(limit)-byte limit: \(second.stderr)")
        #expect(second.stderr.contains("take.json"), "\(second.stderr)")
        #expect(try Data(contentsOf: data) == oldScans, "the older scans were replaced while the older metadata stayed")
        #expect(try Data(contentsOf: target) == oldMetadata)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["take.iio", "take.json"], "left behind: \(left)")
    }

    @Test("An event's force is always printed as a finite number, never null")
    func finiteForce() {
        for f in [Float.infinity, -Float.infinity, Float.nan, Float.greatestFiniteMagnitude, 1e30] {
            let text = eventJSON(ForceEvent(kind: .peek, sample: 1, timestampNs: 0, forceNewtons: f), sampleRateHz: 80).rendered()
            #expect(!text.contains("null"), "\(text)")
            let line = eventText(ForceEvent(kind: .peek, sample: 1, timestampNs: 0, forceNewtons: f), sampleRateHz: 80)
            #expect(line.contains("force"), "\(line)")
        }
        #expect(fixed(1e30, 3) == "1e+30")
        #expect(fixed(-2.5, 3) == "-2.500")
    }

    @Test("A plot of forces near Float's limit ends: at most a bounded number of ticks")
    func plotTicksEnd() {
        var plot = ForcePlot(title: "t")
        plot.width = 600
        let force: [Double] = [0, 3e38, -3e38, 1e300, 1e38]
        let svg = plot.svg(force: force, sampleRateHz: 80, settings: ClassifierSettings(sensitivity: .medium), events: [], labels: [])
        #expect(svg.hasSuffix("</svg>\n") || svg.hasSuffix("</svg>"))
    }
}

@Suite("Hostile profiles")
struct HostileProfileTests {
    static func profile(_ extra: String, channel: String = "[[channel]]\nid = \"voltage0\"\nzero_raw = 8990445\nnewtons_per_count = 2.36913e-06\n") -> String {
        "schema = 1\n[levels]\npeek_newtons = 1.0\npop_newtons = 2.5\n\(extra)\n\(channel)"
    }

    @Test("Extreme profile values are refused by file, line and key", arguments: [
        ("[health]\nsaturation_scans = 1e20", "health.saturation_scans"),
        ("[health]\nsaturation_scans = 2.5", "health.saturation_scans"),
        ("[latency]\nbudget_ms = 1e13", "latency.budget_ms"),
        ("[debounce]\npress_ms = 1e30", "debounce.press_ms"),
        ("[baseline]\nwarmup_ms = 3e38", "baseline.warmup_ms"),
    ])
    func extremeValues(extra: String, key: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p.toml")
        try Self.profile(extra).write(to: url, atomically: false, encoding: .utf8)
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let r = try forcestageBounded(["replay", "--profile", url.path, demo])
        expectCleanRefusal(r, mentions: ["p.toml:6", key])
    }

    @Test("Extreme channel calibrations in a profile are refused", arguments: ["zero_raw = 1e30", "newtons_per_count = 1e30"])
    func extremeChannel(line: String) throws {
        let key = String(line.split(separator: " ")[0])
        let channel = "[[channel]]\nid = \"voltage0\"\n" + (key == "zero_raw" ? "\(line)\nnewtons_per_count = 2e-6\n" : "zero_raw = 0\n\(line)\n")
        #expect(throws: InputError.self) { try Profile.parse(Self.profile("", channel: channel), file: "p.toml") }
    }

    @Test("An array nested 100 000 deep is refused, not a stack overflow")
    func deepNesting() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p.toml")
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        try Self.profile("", channel: "[[channel]]\nid = \"voltage0\"\ncurve = \(deep)\n").write(to: url, atomically: false, encoding: .utf8)
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        expectCleanRefusal(try forcestageBounded(["replay", "--profile", url.path, demo]), mentions: ["p.toml", "nested"])
    }

    @Test("More [[channel]] tables than the limit are refused at the first one over")
    func tooManyChannels() {
        let channels = (0...Limits.maximumChannels).map { "[[channel]]\nid = \"c\($0)\"\nzero_raw = 0\nnewtons_per_count = 1e-6\n" }.joined()
        #expect {
            try Profile.parse(Self.profile("", channel: channels), file: "p.toml")
        } throws: { error in
            (error as? InputError)?.description.contains("more than \(Limits.maximumChannels) [[channel]] tables") == true
        }
    }

    @Test("A profile saved with a byte-order mark is refused saying so, not as a missing key")
    func byteOrderMark() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p.toml")
        try Data([0xEF, 0xBB, 0xBF] + Array(Self.profile("").utf8)).write(to: url)
        let r = try forcestageBounded(["profile", "check", url.path])
        #expect(!r.timedOut && r.signal == 0 && r.status == 2, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.hasPrefix("\(url.path):1: starts with a byte-order mark"), "\(r.stderr)")
        try Data(Self.profile("").utf8).write(to: url)
        #expect(try forcestageBounded(["profile", "check", url.path]).status == 0, "the same profile without the mark validates")
    }

    @Test("A profile over the size limit is refused before parsing")
    func hugeProfile() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p.toml")
        try (Self.profile("") + String(repeating: "# padding\n", count: Limits.maximumProfileBytes / 10 + 1)).write(to: url, atomically: false, encoding: .utf8)
        #expect(throws: InputError.self) { try Profile.load(url) }
    }
}

@Suite("Error style and exit statuses")
struct ErrorStyleTests {
    @Test("Control bytes a file carries into an error line are shown escaped: one line, nothing for the terminal to obey")
    func controlBytesEscaped() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // ESC [2J clears the screen, ESC ] 0; sets the window title, LF would start a forged line.
        let json = try demoCopy(in: dir) {
            $0.replacingOccurrences(of: "\"le:u24/32>>0\"", with: "\"le:u24/32>>0\\u001b[2J\\nforcestage replay: all is well\\u001b]0;title\\u0007\"")
        }
        let r = try forcestageBounded(["replay", json.path])
        expectCleanRefusal(r, mentions: ["channels[0].format", "\\u{1B}[2J"], code: 2)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!r.stderr.utf8.contains(0x1B) && !r.stderr.utf8.contains(0x07), "\(r.stderr)")
        let toml = dir.appendingPathComponent("p.toml")
        try "schema = 1\n[levels]\npeek_newtons = 1\npop_newtons = 2\n\"\\u001b[31mkey\\u000a\" = 3\n".write(to: toml, atomically: false, encoding: .utf8)
        let check = try forcestageBounded(["profile", "check", toml.path])
        #expect(check.status == 2 && check.stderr.contains("\\u{1B}[31mkey\\u{0A}"), "\(check.stderr)")
        #expect(!check.stderr.utf8.contains(0x1B) && check.stderr.split(separator: "\n").count == 2, "\(check.stderr)")
    }

    @Test("Usage, bad input and help: one prefixed line and the documented status")
    func statuses() throws {
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let cases: [([String], Int32, String)] = [
            (["replay", "--bogus"], 64, "forcestage replay: Unknown option '--bogus'"),
            (["nosuch"], 64, "forcestage: "),
            (["plot", demo, "--from", "nan", "-o", "/tmp/x.svg"], 64, "forcestage plot: The value 'nan' is invalid for '--from <from>': not a decimal number"),
            (["plot", demo, "--from", "-1", "-o", "/tmp/x.svg"], 64, "forcestage plot: --from must be a number"),
            (["replay", "/nonexistent/rec.json"], 2, "forcestage replay: /nonexistent/rec.json: cannot read the recording metadata: No such file or directory"),
            (["replay", "/tmp"], 2, "forcestage replay: /tmp: the recording metadata is not a regular file"),
            (["evaluate", "--min-f1", "2", demo], 64, "forcestage evaluate: --min-f1"),
        ]
        for (args, status, prefix) in cases {
            let r = try forcestageBounded(args)
            #expect(r.signal == 0 && r.status == status, "\(args): exit \(r.status): \(r.stderr)")
            #expect(r.stderr.hasPrefix(prefix), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): one line, got \(r.stderr)")
            #expect(!r.stderr.contains("NSCocoaErrorDomain") && !r.stderr.contains("Error Domain"), "\(r.stderr)")
        }
        for args in [["--help"], ["replay", "--help"], ["help", "plot"]] {
            let r = try forcestageBounded(args)
            #expect(r.status == 0 && r.stdout.contains("USAGE"), "\(args): \(r.status) \(r.stderr)")
        }
    }
}
