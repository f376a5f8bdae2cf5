import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import ForceStageIIO

/// End-to-end through real processes: the built forcestage, iio_info, iio_readdev and iiod,
/// against the kernel ABI the emulator provides in a private mount namespace.
@Suite("IIO emulator end to end", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary (swift build)"))
struct EmulatorTests {
    /// The test's own recording plus the shared ones that exist here.
    static func recordings(_ dir: URL) throws -> [URL] {
        let shared = sharedRecordingPaths()
        if shared.isEmpty { print("note: /work/shared/recordings is absent; using only the test's own recording") }
        return [try writeTestRecording(in: dir)] + shared
    }

    @Test("iio_info lists the emulated device with the recording's name, label and formats")
    func iioInfoListsDevice() throws {
        let dir = try temporaryDirectory()
        for url in try Self.recordings(dir) {
            let recording = try Recording.load(url)
            let r = try runProcess([forcestage!, "emulate", url.path, "--", "iio_info"], timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("iio:device0: \(recording.metadata.deviceName)"))
            if let label = recording.metadata.deviceLabel { #expect(r.stdout.contains("label: \(label)")) }
            for c in recording.metadata.channels {
                // libiio prints the sign in capitals when realbits equals storagebits.
                let text = c.format.text
                let capital = c.format.realBits == c.format.storageBits ? text.replacingOccurrences(of: ":s", with: ":S").replacingOccurrences(of: ":u", with: ":U") : text
                #expect(r.stdout.contains("\(c.id):  (input, index: \(c.index), format: \(capital))"), "\(url.lastPathComponent) \(c.id)")
            }
        }
    }

    @Test("iio_readdev reads the recording back byte for byte")
    func readdevByteForByte() throws {
        let dir = try temporaryDirectory()
        for url in try Self.recordings(dir) {
            let recording = try Recording.load(url)
            let n = recording.scanCount
            // A buffer size that divides the scan count, so no refill waits past the end.
            let b = (1...256).last { n % $0 == 0 }!
            let out = dir.appendingPathComponent("readdev.iio")
            let ids = recording.metadata.channels.map { $0.id }.joined(separator: " ")
            let r = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", url.path, "--", "/bin/sh", "-c",
                                    "iio_readdev -b \(b) -s \(n) iio:device0 \(ids) > \(out.path)"], timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            let got = try Data(contentsOf: out)
            #expect(got == Data(recording.scans), "\(url.lastPathComponent): \(got.count) bytes vs \(recording.scans.count)")
        }
    }

    @Test("--start-after FILE: no scan before FILE exists (a reader's refill times out empty), then the recording from its first scan, byte for byte")
    func startAfter() throws {
        let dir = try temporaryDirectory()
        let url = try writeTestRecording(in: dir)
        let recording = try Recording.load(url)
        let n = recording.scanCount, b = (1...256).last { n % $0 == 0 }!
        let go = dir.appendingPathComponent("go").path, before = dir.appendingPathComponent("before.iio").path
        let after = dir.appendingPathComponent("after.iio").path
        let ids = recording.metadata.channels.map { $0.id }.joined(separator: " ")
        let script = "iio_readdev -T 500 -b 4 -s 4 iio:device0 \(ids) > \(before) 2> \(before).err; touch \(go); "
            + "iio_readdev -b \(b) -s \(n) iio:device0 \(ids) > \(after)"
        let r = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", "--start-after", go, url.path, "--", "/bin/sh", "-c", script], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let held = try Data(contentsOf: URL(fileURLWithPath: before))
        #expect(held.isEmpty, "\(held.count) bytes before \(go) existed")
        let err = (try? String(contentsOfFile: before + ".err", encoding: .utf8)) ?? ""
        #expect(err.contains("Unable to refill buffer: Connection timed out"), "the held read timed out: \(err)")
        let got = try Data(contentsOf: URL(fileURLWithPath: after))
        #expect(got == Data(recording.scans), "\(got.count) bytes vs \(recording.scans.count)")
        let empty = try runProcess([forcestage!, "emulate", "--start-after", "", url.path, "--", "true"], timeout: 30)
        #expect(empty.status != 0 && empty.stderr.contains("--start-after needs a file path"), "\(empty.stderr)")
    }

    @Test("forcestage run over local: and over ip: (real iiod) emits what replaying the file through ForcePipeline emits")
    func runMatchesReplay() throws {
        let dir = try temporaryDirectory()
        for url in try Self.recordings(dir) {
            let recording = try Recording.load(url)
            let expected = directReplay(recording)
            #expect(!expected.isEmpty, "the replay of \(url.lastPathComponent) has events to compare")
            let local = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", url.path, "--",
                                        forcestage!, "run", "--calibration", url.path, "--exit-on-timeout", "--timeout-ms", "500"], timeout: 180)
            #expect(local.status == 0, "\(local.stderr)")
            #expect(lines(local.stdout) == expected, "local: \(url.lastPathComponent)")
            let port = iiodPort()
            let remote = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", "--iiod-port", String(port), url.path, "--",
                                         forcestage!, "run", "--calibration", url.path, "--uri", "ip:127.0.0.1:\(port)", "--exit-on-timeout", "--timeout-ms", "1000"], timeout: 180)
            #expect(remote.status == 0, "\(remote.stderr)")
            #expect(lines(remote.stdout) == expected, "ip: \(url.lastPathComponent)")
        }
    }

    @Test("the device vanishing mid-press gives lost and release, then recovered and later presses")
    func vanishMidPress() throws {
        let dir = try temporaryDirectory()
        let url = try writeTestRecording(in: dir)
        // The test recording presses from scan 250 to 540 at 250 scans/s: vanish at 1.6 s (scan 400).
        let r = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", "--vanish-at", "1.6", "--return-at", "2.4", url.path, "--",
                                forcestage!, "run", "--calibration", url.path, "--exit-on-timeout", "--timeout-ms", "300", "--timeouts-before-lost", "1"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let events = lines(r.stdout).compactMap { line -> String? in
            guard let range = line.range(of: "\"event\":\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        let lost = try #require(events.firstIndex(of: "lost"), "no lost in \(events)")
        #expect(Array(events[..<lost]).contains("peek"))
        #expect(events[lost + 1] == "release", "release follows lost for the press in progress: \(events)")
        let recovered = try #require(events.firstIndex(of: "recovered"))
        #expect(recovered > lost)
        #expect(events[(recovered + 1)...].contains("peek"), "the light press after the device returned is classified: \(events)")
    }

    @Test("forcestage record inside the emulator reproduces the recording it was fed")
    func recordReproduces() throws {
        let dir = try temporaryDirectory()
        for url in try Self.recordings(dir) {
            let recording = try Recording.load(url)
            let out = dir.appendingPathComponent("recorded-\(url.lastPathComponent)")
            var args = [forcestage!, "emulate", "--as-fast-as-possible", "--end-after-recording", url.path, "--",
                        forcestage!, "record", "-o", out.path, "--rate", JSON.format(recording.metadata.sampleRateHz)]
            for c in recording.metadata.channels where c.role != .timestamp { args += ["--channel", c.id] }
            let r = try runProcess(args, timeout: 120)
            #expect(r.status == 0, "\(r.stderr)")
            let got = try Recording.load(out)
            #expect(got.scans == recording.scans, "\(url.lastPathComponent): \(got.scans.count) bytes vs \(recording.scans.count)")
            #expect(got.metadata.deviceName == recording.metadata.deviceName)
            #expect(got.metadata.deviceLabel == recording.metadata.deviceLabel)
            #expect(got.metadata.sampleRateHz == recording.metadata.sampleRateHz)
            #expect(got.metadata.channels.map { [$0.id, String($0.index), $0.format.text, $0.role.rawValue] } ==
                    recording.metadata.channels.map { [$0.id, String($0.index), $0.format.text, $0.role.rawValue] })
        }
    }

    @Test("a missing device and a bad URI get one clear line and a non-zero exit")
    func clearErrors() throws {
        let dir = try temporaryDirectory()
        let url = try writeTestRecording(in: dir)
        let missing = try runProcess([forcestage!, "emulate", url.path, "--", forcestage!, "run", "--device", "nosuch"], timeout: 60)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no IIO device \"nosuch\""))
        #expect(missing.stderr.contains("pass --device"))
        let bad = try runProcess([forcestage!, "run", "--uri", "ip:127.0.0.1:1", "--calibration", url.path], timeout: 60)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("cannot open libiio context ip:127.0.0.1:1"))
        let notURI = try runProcess([forcestage!, "run", "--uri", "bogus"], timeout: 30)
        #expect(notURI.status != 0)
        #expect(notURI.stderr.contains("is not a libiio URI"))
    }
}
