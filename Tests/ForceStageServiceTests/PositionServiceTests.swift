import Foundation
import Testing
import ForceStageCore
import ForceStageHost

/// `run` on a four-cell panel in the emulator: its JSON lines carry the same
/// x/y as `replay` of the same recording.
@Suite("Positions in the service", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary (swift build --product forcestage)"))
struct PositionServiceTests {
    let fs = forcestage ?? ""

    @Test("run prints peek, pop, hold and release with the x/y replay computes")
    func runCarriesPositions() throws {
        let rec = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/recordings/panel4-500hz-offcentre-sample.json")
        try #require(FileManager.default.fileExists(atPath: rec.path), "../shared/recordings is absent; this test needs the shared panel4 recording")
        let dir = try temporaryDirectory()
        let run = try runProcess([fs, "emulate", "--end-after-recording", "--as-fast-as-possible", "--sensor", "ad7124-4", rec.path, "--",
                                  fs, "run", "--calibration", rec.path], in: dir, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        func positioned(_ lines: [String]) -> [String] {
            lines.compactMap { line -> String? in
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let kind = o["event"] as? String, ["peek", "pop", "hold", "release"].contains(kind) else { return nil }
                return "\(kind)@\(o["sample"] ?? "-") x=\(o["x"] ?? "none") y=\(o["y"] ?? "none")"
            }
        }
        let live = positioned(lines(run.stdout))
        let replayed = positioned(directReplay(try Recording.load(rec)))
        #expect(!live.isEmpty && !live.contains { $0.contains("none") }, "\(live)")
        #expect(live == replayed)
    }
}
