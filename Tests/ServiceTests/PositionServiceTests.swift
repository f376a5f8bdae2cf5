import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// `run` on a four-cell panel in the emulator: its JSON lines carry the same
/// x/y as `replay` of the same recording.
@Suite("Positions in the service", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary (swift build --product forcestage)"))
struct PositionServiceTests {
    let fs = forcestage ?? ""

    @Test("run prints peek, pop, hold and release with the x/y replay computes", .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func runCarriesPositions() throws {
        let rec = sharedRecordings.appendingPathComponent("panel4-500hz-offcentre-sample.json")
        let dir = try temporaryDirectory()
        let run = try runProcess([fs, "emulate", "--end-after-recording", "--as-fast-as-possible", "--sensor", "ad7124-4", rec.path, "--",
                                  fs, "run", "--calibration", rec.path], in: dir, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        struct Positioned { var kind: String; var sample: Int; var x: Double?; var y: Double? }
        func positioned(_ lines: [String]) -> [Positioned] {
            lines.compactMap { line -> Positioned? in
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let kind = o["event"] as? String, ["peek", "pop", "hold", "release"].contains(kind) else { return nil }
                return Positioned(kind: kind, sample: (o["sample"] as? NSNumber)?.intValue ?? -1,
                                  x: (o["x"] as? NSNumber)?.doubleValue, y: (o["y"] as? NSNumber)?.doubleValue)
            }
        }
        let live = positioned(lines(run.stdout))
        let replayed = positioned(directReplay(try Recording.load(rec)))
        #expect(!live.isEmpty && live.allSatisfy { $0.x != nil && $0.y != nil })
        // A live run on a loaded machine may lose a scan (counted, and the sample
        // numbers shift by it): the same events, within 2 scans and 0.01 plate units.
        #expect(live.map(\.kind) == replayed.map(\.kind))
        for (a, b) in zip(live, replayed) {
            #expect(abs(a.sample - b.sample) <= 2 && abs((a.x ?? 9) - (b.x ?? 0)) <= 0.01 && abs((a.y ?? 9) - (b.y ?? 0)) <= 0.01,
                    "\(a) vs \(b)")
        }
    }
}
