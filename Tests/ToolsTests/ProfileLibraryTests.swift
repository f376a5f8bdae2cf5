import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
import ForceStageTools

@Suite("Profiles: more validation, matching precedence, writing and atomic saves")
struct ProfileLibraryTests {
    static let minimal = """
    schema = 1
    [levels]
    peek_newtons = 1.0
    pop_newtons = 2.5
    [[channel]]
    id = "voltage0"
    zero_raw = 100
    newtons_per_count = 0.001
    """

    /// Every other error the reader can give: the text, the line and key it must name.
    static let broken: [(String, Int?, String?)] = [
        (minimal.replacingOccurrences(of: "pop_newtons = 2.5\n", with: ""), 2, "levels"),
        (minimal.replacingOccurrences(of: "peek_newtons = 1.0", with: "peek_newtons = 0"), 3, "levels.peek_newtons"),
        (minimal.replacingOccurrences(of: "peek_newtons = 1.0", with: "peek_newtons = \"1\""), 3, "levels.peek_newtons"),
        (minimal + "\n[latency]\nbudget_ms = 0", 10, "latency.budget_ms"),
        (minimal.replacingOccurrences(of: "pop_newtons = 2.5", with: "pop_newtons = 2.5\nrelease_fraction = 1.2"), 5, "levels.release_fraction"),
        (minimal.replacingOccurrences(of: "pop_newtons = 2.5", with: "pop_newtons = 2.5\nhold_ms = -1"), 5, "levels.hold_ms"),
        (minimal + "\n[baseline]\ntouch_fraction = 0", 10, "baseline.touch_fraction"),
        (minimal + "\n[baseline]\nenabled = 1", 10, "baseline.enabled"),
        (minimal + "\n[health]\nsaturation_scans = 0", 10, "health.saturation_scans"),
        (minimal + "\n[[cell]]\nid = \"x\"", 9, "[[cell]]"),
        (minimal.replacingOccurrences(of: "[[channel]]\nid = \"voltage0\"\nzero_raw = 100\nnewtons_per_count = 0.001", with: ""), nil, "channel"),
        (minimal.replacingOccurrences(of: "id = \"voltage0\"\n", with: ""), 5, "channel[0].id"),
        (minimal + "\n[[channel]]\nid = \"voltage0\"\nzero_raw = 1\nnewtons_per_count = 1", 10, "channel[1].id"),
        (minimal.replacingOccurrences(of: "zero_raw = 100\n", with: ""), 5, "channel[0].zero_raw"),
        (minimal.replacingOccurrences(of: "newtons_per_count = 0.001", with: ""), 5, "channel[0].newtons_per_count"),
        (minimal.replacingOccurrences(of: "newtons_per_count = 0.001", with: "newtons_per_count = 0"), 8, "channel[0].newtons_per_count"),
        (minimal.replacingOccurrences(of: "zero_raw = 100\nnewtons_per_count = 0.001", with: "curve = 3"), 7, "channel[0].curve"),
        (minimal.replacingOccurrences(of: "zero_raw = 100\nnewtons_per_count = 0.001", with: "curve = [\n  [0, 0.0],\n  [10, 1.0, 3],\n]"), 9, "channel[0].curve[1]"),
        (minimal.replacingOccurrences(of: "zero_raw = 100\nnewtons_per_count = 0.001", with: "curve = [\n  [0, 0.0],\n  [10, 1.0],\n  [5, 2.0],\n]"), 10, "channel[0].curve[2]"),
        (minimal.replacingOccurrences(of: "zero_raw = 100\nnewtons_per_count = 0.001", with: "curve = [[0, 0.0]]"), 7, "channel[0].curve"),
        (minimal.replacingOccurrences(of: "[levels]", with: "[levels]\n[levels]"), 3, nil),
        (minimal.replacingOccurrences(of: "pop_newtons = 2.5", with: "pop_newtons = 2.5\npop_newtons = 3"), 5, nil),
        (minimal.replacingOccurrences(of: "schema = 1", with: "schema = 1\nnme = \"x\""), 2, "nme"),
    ]

    @Test("Each further validation error names the file, the line and the key", arguments: broken.indices)
    func errors(_ i: Int) {
        let (text, line, key) = Self.broken[i]
        do {
            _ = try Profile.parse(text, file: "q.toml")
            Issue.record("case \(i) was accepted")
        } catch {
            #expect(error.file == "q.toml")
            #expect(error.line == line, "case \(i): \(error.description)")
            #expect(error.key == key, "case \(i): \(error.description)")
            #expect(error.description.hasPrefix("q.toml"), "case \(i): \(error.description)")
        }
    }

    static func profile(_ name: String, matchName: String?, label: String?) -> Profile {
        var p = try! Profile.parse(minimal, file: "\(name).toml")
        p.name = name
        p.matchName = matchName
        p.matchLabel = label
        return p
    }

    @Test("Matching precedence: exact label > wildcard label > exact name > wildcard name > any; ties go to the first file")
    func precedence() {
        let library = ProfileLibrary(profiles: [
            Self.profile("a-any", matchName: nil, label: nil),
            Self.profile("b-wildname", matchName: "hx7*", label: nil),
            Self.profile("c-name", matchName: "hx711", label: nil),
            Self.profile("d-wildlabel", matchName: "hx711", label: "kiosk-*"),
            Self.profile("e-label", matchName: "hx711", label: "kiosk-left"),
            Self.profile("f-label-anyname", matchName: nil, label: "kiosk-left"),
            Self.profile("g-other", matchName: "ads1015", label: nil),
        ])
        func best(_ name: String, _ label: String?) -> String? { library.best(deviceName: name, label: label)?.profile.name }
        #expect(best("hx711", "kiosk-left") == "e-label")
        #expect(best("hx711", "kiosk-right") == "d-wildlabel")
        #expect(best("hx711", "bench") == "c-name")
        #expect(best("hx711", nil) == "c-name")
        #expect(best("hx712", nil) == "b-wildname")
        #expect(best("ads1015", nil) == "g-other")
        #expect(best("ad7124-4", "kiosk-left") == "f-label-anyname")
        #expect(best("ad7124-4", nil) == "a-any")
        let ranked = library.rank(deviceName: "hx711", label: "kiosk-left")
        #expect(ranked.map(\.score) == ranked.map(\.score).sorted(by: >))
        let e = ranked[0]
        #expect(e.reasons == ["name \"hx711\" matches \"hx711\" exactly (+4)", "label \"kiosk-left\" matches \"kiosk-left\" exactly (+16)"])
        let g = ranked.first { $0.profile.name == "g-other" }!
        #expect(!g.matches && g.reasons[0] == "name \"ads1015\" does not match \"hx711\"")
        // A tie: the first by file order wins.
        let tie = ProfileLibrary(profiles: [Self.profile("x1", matchName: "hx711", label: nil), Self.profile("x2", matchName: "hx711", label: nil)])
        #expect(tie.best(deviceName: "hx711", label: nil)?.profile.name == "x1")
    }

    @Test("save refuses a text that does not validate and leaves the good file as it was")
    func saveValidates() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p.toml")
        try Profile.save(Self.minimal, to: url)
        #expect(throws: InputError.self) { try Profile.save(Self.minimal.replacingOccurrences(of: "2.5", with: "0.5"), to: url) }
        #expect(try String(contentsOf: url, encoding: .utf8) == Self.minimal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["p.toml"])
    }

    /// A temporary folder with a one-second calibration session recording and
    /// the kiosk example profile saved as panel.toml: the old profile a save must keep whole.
    static func savedProfileBesideSession() throws -> (dir: URL, session: URL, profile: URL, text: String) {
        let dir = try temporaryDirectory()
        let session = dir.appendingPathComponent("session.json")
        try Synthesizer.synthesize(SynthOptions(panel: .hx711at80, seed: 1, duration: 1, unitSeed: 21,
                                                script: .calibrationSession(massesGrams: [500]))).recording.write(to: session)
        let url = dir.appendingPathComponent("panel.toml")
        let good = try String(contentsOf: repositoryRoot.appendingPathComponent("calibration/hx711-kiosk.toml"), encoding: .utf8)
        try Profile.save(good, to: url)
        return (dir, session, url, good)
    }

    @Test("A save killed halfway (the kernel's SIGXFSZ at a 200-byte file-size limit) leaves the old profile whole; the next save cleans up")
    func killedMidSave() throws {
        let (dir, session, url, good) = try Self.savedProfileBesideSession()
        defer { try? FileManager.default.removeItem(at: dir) }

        // The real forcestage under RLIMIT_FSIZE = 200 bytes: the kernel kills it with SIGXFSZ
        // when the profile's temporary file reaches 200 bytes, i.e. halfway through the save.
        let killed = try spawnBounded(["/usr/bin/prlimit", "--fsize=200", forcestageBinary.path, "calibrate", "--from-recording", session.path,
                                       "--mass", "500", "-o", url.path, "-y"], discardOutput: true)
        #expect(killed.signal == SIGXFSZ, "exit \(killed.status) signal \(killed.signal): \(killed.stderr)")
        let prefix = AtomicFile.temporaryPrefix(for: url)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(prefix) }
        #expect(left.count == 1, "the killed writer leaves exactly its temporary: \(left) in \((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []); \(killed.stderr)")
        let temporary = dir.appendingPathComponent(left.first ?? "none")
        let half = try String(contentsOf: temporary, encoding: .utf8)
        #expect(half.utf8.count == 200 && half.hasPrefix("# ForceStage panel profile") && !half.contains("[[channel]]"), "the temporary holds the first 200 bytes")
        #expect(try String(contentsOf: url, encoding: .utf8) == good, "the old profile is untouched")
        _ = try Profile.load(url)

        // The next save (same command, no limit) replaces it and removes the dead writer's temporary.
        let r = try forcestage(["calibrate", "--from-recording", session.path, "--mass", "500", "-o", url.path, "-y"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
        let saved = try Profile.load(url)
        #expect(saved.matchName == "hx711" && saved.matchLabel == "synth-hx711-80-unit21")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["panel.toml", "session.iio", "session.json"])
    }

    @Test("A save that fails part-way (EFBIG with SIGXFSZ ignored) reports one line, leaves no temporary and the old profile whole")
    func failedSaveCleansUp() throws {
        let (dir, session, url, good) = try Self.savedProfileBesideSession()
        defer { try? FileManager.default.removeItem(at: dir) }
        // An ignored signal stays ignored across exec: the write fails with EFBIG instead.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "trap '' XFSZ; exec /usr/bin/prlimit --fsize=200 \"$0\" calibrate --from-recording \"$1\" --mass 500 -o \"$2\" -y",
                       forcestageBinary.path, session.path, url.path]
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus != 0, "\(p.terminationStatus)")
        #expect(stderr.hasPrefix("forcestage calibrate: ") && stderr.contains("File too large"), "\(stderr)")
        #expect(try String(contentsOf: url, encoding: .utf8) == good)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["panel.toml", "session.iio", "session.json"])
    }

    @Test("A symlink planted at every name the old writer would use cannot redirect a save")
    func plantedSymlink() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: false, encoding: .utf8)
        let url = dir.appendingPathComponent("out.svg")
        // The old writer's temporary was .NAME.tmp-PID: plant it for this process and pids around it.
        for pid in [getpid()] + (1...64).map({ getpid() + $0 }) {
            try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent(".out.svg.tmp-\(pid)").path, withDestinationPath: victim.path)
        }
        try AtomicFile.write(Data("new\n".utf8), to: url)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(try String(contentsOf: url, encoding: .utf8) == "new\n")
        // The real CLI too (plot -o): its temporaries go through the same writer.
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let r = try forcestage(["plot", demo, "-o", url.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        // Planted links are left alone: only this user's dead writers' regular files are removed.
        let links = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".out.svg.tmp-") }
        #expect(links.count == 65)
    }

    @Test("A symlink planted at a random-looking temporary name is not followed (O_NOFOLLOW|O_EXCL)")
    func exclusiveCreate() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: false, encoding: .utf8)
        let url = dir.appendingPathComponent("out.toml")
        // Writes many times; every attempt must leave the victim alone and no temporary behind.
        for _ in 0..<50 { try AtomicFile.write(Data("x\n".utf8), to: url) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out.toml", "victim.txt"])
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
    }

    @Test("Every shipped example profile reads, and one exists for each sensor in hardware/sensors")
    func examplesForEachSensor() throws {
        let sensors = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("hardware/sensors").path)
            .filter { $0.hasSuffix(".json") }
        let library = try ProfileLibrary(directory: repositoryRoot.appendingPathComponent("calibration"))
        #expect(library.problems.isEmpty, "\(library.problems)")
        for file in sensors {
            let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("hardware/sensors/\(file)"))
            let name = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["name"] as? String)
            #expect(library.best(deviceName: name, label: nil) != nil || library.best(deviceName: name, label: "kiosk-left") != nil,
                    "no example profile matches \(name) (\(file))")
        }
    }
}
