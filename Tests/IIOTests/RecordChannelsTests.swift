import Foundation
import TestSupport
import Testing
import ForceStageFormats
import ForceStageTools

/// What `record` takes without --channel, against the emulated ADS1115 (which, like the
/// real driver, offers eight voltage inputs: four single-ended, four differential).
@Suite("record's default channels in the emulator", .serialized,
       .enabled(if: emulatorAvailable && forcestage != nil, "needs root, `unshare -m`, and the built forcestage binary (swift build)"))
struct RecordChannelsTests {
    @Test("no --channel: only the force channel (voltage0) and the timestamp, saying where that came from; --channel still chooses")
    func forceAndTimestampOnly() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fed = try writeTestRecording(in: dir)
        let out = dir.appendingPathComponent("out.json")
        let r = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", "--end-after-recording", fed.path, "--",
                                forcestage!, "record", "-o", out.path, "--exit-on-timeout"], timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let got = try Recording.load(out)
        #expect(got.metadata.channels.map(\.id) == ["voltage0", "timestamp"], "\(got.metadata.channels.map(\.id))")
        #expect(got.metadata.channels.map(\.role) == [.force, .timestamp])
        #expect(r.stderr.contains("forcestage record: recording voltage0 and the timestamp (the force channels of "), "\(r.stderr)")
        #expect(forceValues(got) == forceValues(try Recording.load(fed)), "the fed scans come back")

        let both = dir.appendingPathComponent("both.json")
        let e = try runProcess([forcestage!, "emulate", "--as-fast-as-possible", "--end-after-recording", fed.path, "--",
                                forcestage!, "record", "-o", both.path, "--exit-on-timeout", "--channel", "voltage0", "--channel", "voltage1"], timeout: 120)
        #expect(e.status == 0, "\(e.stderr)")
        #expect(try Recording.load(both).metadata.channels.map(\.id) == ["voltage0", "voltage1", "timestamp"])
        #expect(!e.stderr.contains("forcestage record: recording"), "no note when the channels were chosen")
    }
}
