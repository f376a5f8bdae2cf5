import Foundation
import TestSupport
import Testing

/// The event streams `forcestage replay` prints for the bundled demo, the
/// synthesized corpus and every shared recording, diffed against the streams
/// committed in `Tests/EventStreams/`. A change that should not change
/// behaviour (a refactor, a speed-up) must leave them identical; a change that
/// should, rewrites them in the same commit, and the diff shows what moved:
///
///     FORCESTAGE_UPDATE_EVENT_STREAMS=1 swift test --filter EventStreamTests
@Suite("Event streams")
struct EventStreamTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/EventStreams")
    static let updating = ProcessInfo.processInfo.environment["FORCESTAGE_UPDATE_EVENT_STREAMS"] == "1"

    /// `replay --format jsonl` of `recording`, compared with (or written to) `Tests/EventStreams/NAME.jsonl`.
    func check(_ recording: URL, name: String) throws {
        let result = try forcestage(["replay", recording.path, "--format", "jsonl"])
        #expect(result.status == 0, "replay \(name) failed: \(result.stderr)")
        let golden = Self.directory.appendingPathComponent("\(name).jsonl")
        if Self.updating {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(result.stdout.utf8).write(to: golden)
            return
        }
        guard let expected = try? String(contentsOf: golden, encoding: .utf8) else {
            Issue.record("no committed stream \(golden.lastPathComponent); write it with FORCESTAGE_UPDATE_EVENT_STREAMS=1")
            return
        }
        let now = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let before = expected.split(separator: "\n", omittingEmptySubsequences: false)
        if let first = zip(before, now).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("""
                \(name): event stream differs from Tests/EventStreams/\(name).jsonl at line \(first + 1) \
                (\(before.count) lines committed, \(now.count) now)
                  committed: \(before[first])
                  now:       \(now[first])
                """)
        } else {
            #expect(before.count == now.count, "\(name): \(before.count) lines committed, \(now.count) now")
        }
    }

    @Test("The bundled demo's event stream is the committed one")
    func demo() throws {
        try check(repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json"), name: "demo-hx711")
    }

    @Test("The synthesized corpus's event streams are the committed ones")
    func corpus() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let synth = try forcestage(["synth", "--corpus", dir.path])
        #expect(synth.status == 0, "synth --corpus failed: \(synth.stderr)")
        let recordings = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(recordings.count >= 12)
        for file in recordings {
            try check(dir.appendingPathComponent(file), name: "corpus-" + file.replacingOccurrences(of: ".json", with: ""))
        }
    }

    @Test("The shared recordings' event streams are the committed ones",
          .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func shared() throws {
        var found = 0
        for folder in [sharedRecordings, sharedRecordings.appendingPathComponent("real")] {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for file in files.filter({ $0.hasSuffix(".json") }).sorted() {
                found += 1
                try check(folder.appendingPathComponent(file), name: "shared-" + file.replacingOccurrences(of: ".json", with: ""))
            }
        }
        #expect(found >= 3)
    }
}
