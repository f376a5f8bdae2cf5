import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
import ForceStageTools

@Suite("Recordings")
struct RecordingTests {
    static let goodJSON = """
    {
      "format": "forcestage-recording/1",
      "device": { "name": "hx711", "label": "kiosk-left" },
      "sampleRateHz": 80,
      "timestampClock": "monotonic",
      "channels": [
        { "id": "voltage0", "index": 0, "format": "le:u24/32>>0", "scale": 0.000001536, "offset": 0, "role": "force" },
        { "id": "timestamp", "index": 2, "format": "le:s64/64>>0", "role": "timestamp" }
      ],
      "calibration": {
        "force": [ { "channel": "voltage0", "zeroRaw": 8423117, "newtonsPerCount": 2.28e-5 } ],
        "peekNewtons": 1.0,
        "popNewtons": 2.5
      },
      "labels": [
        { "event": "peek", "sample": 2 },
        { "event": "release", "sample": 5, "windowStart": 4 }
      ],
      "futureKey": { "ignored": true }
    }
    """

    /// Writes `json` and `scans` scans of zeros as a recording; returns the .json URL.
    static func write(_ json: String, scans: Int = 10, extraBytes: Int = 0) throws -> URL {
        let dir = try makeTemporaryDirectory()
        let url = dir.appendingPathComponent("rec.json")
        try Data(json.utf8).write(to: url)
        try Data(count: scans * 16 + extraBytes).write(to: dir.appendingPathComponent("rec.iio"))
        return url
    }

    @Test("The spec's example reads, unknown keys ignored, and round-trips through write")
    func readsSpecExample() throws {
        let rec = try Recording.load(try Self.write(Self.goodJSON))
        #expect(rec.scanCount == 10 && rec.layout.scanSize == 16)
        #expect(rec.metadata.deviceName == "hx711" && rec.metadata.deviceLabel == "kiosk-left")
        #expect(rec.metadata.labels == [Label(event: .peek, sample: 2), Label(event: .release, sample: 5, windowStart: 4)])
        #expect(rec.metadata.calibration?.force == [ForceChannelCalibration(channel: "voltage0", mapping: .linear(zeroRaw: 8423117, newtonsPerCount: 2.28e-5))])
        let out = try makeTemporaryDirectory().appendingPathComponent("copy.json")
        try rec.write(to: out)
        let back = try Recording.load(out)
        #expect(back.metadata == rec.metadata)
        #expect(back.scans == rec.scans)
    }

    /// Each bad input, the key the error must name, and a phrase it must contain.
    static let badInputs: [(String, String, String?, String)] = [
        ("not JSON", "{ \"format\": ", nil, "not valid JSON"),
        ("missing format", goodJSON.replacingOccurrences(of: "\"format\": \"forcestage-recording/1\",", with: ""), "format", "missing"),
        ("missing rate", goodJSON.replacingOccurrences(of: "\"sampleRateHz\": 80,", with: ""), "sampleRateHz", "missing"),
        ("zero rate", goodJSON.replacingOccurrences(of: "\"sampleRateHz\": 80", with: "\"sampleRateHz\": 0"), "sampleRateHz", "above zero"),
        ("unknown format string", goodJSON.replacingOccurrences(of: "le:u24/32>>0", with: "le:u24/24>>0"), "channels[0].format", "not a channel format"),
        ("index that does not fit", goodJSON.replacingOccurrences(of: "\"index\": 2", with: "\"index\": 100000"), "channels[1].index", "does not fit"),
        ("duplicate index", goodJSON.replacingOccurrences(of: "\"index\": 2", with: "\"index\": 0"), "channels", "scan index 0"),
        ("non-monotone curve", goodJSON.replacingOccurrences(of: "\"zeroRaw\": 8423117, \"newtonsPerCount\": 2.28e-5", with: "\"curve\": [[0, 0], [100, 1.0], [200, 0.5]]"), "calibration.force[0].curve", "monotone"),
        ("unsorted curve", goodJSON.replacingOccurrences(of: "\"zeroRaw\": 8423117, \"newtonsPerCount\": 2.28e-5", with: "\"curve\": [[0, 0], [300, 1.0], [200, 2]]"), "calibration.force[0].curve", "strictly increase"),
        ("zero scale", goodJSON.replacingOccurrences(of: "2.28e-5", with: "0"), "calibration.force[0].newtonsPerCount", "must not be zero"),
        ("pop below peek", goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 0.5"), "calibration.popNewtons", "above peekNewtons"),
        ("creep above 0.5", goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 2.5, \"creepAmount\": 0.6"), "calibration.creepAmount", "from 0 to 0.5"),
        ("negative creep", goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 2.5, \"creepAmount\": -0.1"), "calibration.creepAmount", "from 0 to 0.5"),
        ("creep as text", goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 2.5, \"creepAmount\": \"12 %\""), "calibration.creepAmount", "must be a number"),
        ("zero creep time", goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 2.5, \"creepMilliseconds\": 0"), "calibration.creepMilliseconds", "above 0"),
        ("creep time of minutes", goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 2.5, \"creepMilliseconds\": 600000"), "calibration.creepMilliseconds", "at most 60000"),
        ("bad role", goodJSON.replacingOccurrences(of: "\"role\": \"force\"", with: "\"role\": \"weight\""), "channels[0].role", "not a role"),
        ("bad label", goodJSON.replacingOccurrences(of: "\"event\": \"peek\"", with: "\"event\": \"poke\""), "labels[0].event", "not a labelled event"),
        ("label past the end", goodJSON.replacingOccurrences(of: "\"sample\": 5,", with: "\"sample\": 50,"), "labels[1].sample", "beyond"),
    ]

    @Test("Bad metadata gets one error naming the file, the key and what to do", arguments: badInputs.indices)
    func badMetadata(_ i: Int) throws {
        let (name, json, key, phrase) = Self.badInputs[i]
        let url = try Self.write(json)
        do {
            _ = try Recording.load(url)
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.file == url.path, "\(name)")
            #expect(error.key == key, "\(name): key \(String(describing: error.key))")
            #expect(error.description.contains(phrase), "\(name): \(error.description)")
            #expect(!error.hint.isEmpty && !error.description.contains("\n"), "\(name)")
        }
    }

    @Test("A string that is not UTF-8 (in the device name, a channel id, a key) is refused with its line, never read as replaced text")
    func nonUTF8String() throws {
        let text = Array(Self.goodJSON.utf8)
        // A stray byte, a cut sequence, an overlong slash and an encoded surrogate: each invalid UTF-8 (RFC 3629).
        for bad: [UInt8] in [[0xFF], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80]] {
            for (target, line) in [("\"hx711\"", 3), ("\"voltage0\", \"index\"", 7), ("\"futureKey\"", 19)] {
                let at = try #require(Self.goodJSON.range(of: target)).lowerBound.utf16Offset(in: Self.goodJSON) + 2
                var bytes = text
                bytes.insert(contentsOf: bad, at: at)
                let dir = try makeTemporaryDirectory()
                let url = dir.appendingPathComponent("rec.json")
                try Data(bytes).write(to: url)
                try Data(count: 160).write(to: dir.appendingPathComponent("rec.iio"))
                do {
                    let rec = try Recording.load(url)
                    Issue.record("\(bad) in \(target): accepted as device \(rec.metadata.deviceName)")
                } catch {
                    #expect(error.line == line, "\(bad) in \(target): \(error.description)")
                    #expect(error.description.contains("not UTF-8"), "\(error.description)")
                    #expect(error.description.hasPrefix("\(url.path):\(line): "), "\(error.description)")
                }
            }
        }
    }

    @Test("Corners follow the scan order: the four-cell recording with its channels listed in reverse gives the same panel and the same positions",
          .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func cornersFollowScanOrder() throws {
        let original = sharedRecordings.appendingPathComponent("panel4-500hz-offcentre-sample.json")
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: original)) as? [String: Any])
        object["channels"] = Array(try #require(object["channels"] as? [Any]).reversed())
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("reversed.json")
        try JSONSerialization.data(withJSONObject: object).write(to: copy)
        try FileManager.default.copyItem(at: original.deletingPathExtension().appendingPathExtension("iio"),
                                         to: copy.deletingPathExtension().appendingPathExtension("iio"))
        let a = try Recording.load(original), b = try Recording.load(copy)
        #expect(b.metadata.channels.map(\.id) == a.metadata.channels.reversed().map(\.id), "the copy lists the channels in reverse")
        #expect(a.metadata.calibration?.force.allSatisfy { $0.position == nil } == true, "the corners are the standard ones")
        let setupA = try PanelSetup(metadata: a.metadata, file: "a"), setupB = try PanelSetup(metadata: b.metadata, file: "b")
        #expect(setupA.calibration == setupB.calibration && setupA.positions == setupB.positions)
        let eventsA = replay(a, setup: setupA).events, eventsB = replay(b, setup: setupB).events
        #expect(eventsA.filter { $0.position != nil }.count >= 6)
        #expect(eventsA == eventsB)
        // And they are where the labels put the finger: each labelled peek's nearest peek within 0.1 plate units.
        for label in a.metadata.labels where label.event == .peek {
            let lx = try #require(label.x), ly = try #require(label.y)
            let peek = try #require(eventsB.filter { $0.kind == .peek }.min { abs($0.sample - Int64(label.sample)) < abs($1.sample - Int64(label.sample)) })
            let p = try #require(peek.position)
            #expect(abs(Double(p.x) - lx) < 0.1 && abs(Double(p.y) - ly) < 0.1, "label at \(lx), \(ly); event at \(p.x), \(p.y)")
        }
        // A live device lists its channels in its own order: the panel is the same whatever that order.
        let ids = a.metadata.forceChannels.map(\.id)
        let layout = try a.metadata.layout()
        func slot(_ id: String) -> Int? { a.metadata.channels.first { $0.id == id }.flatMap { layout.slot(forIndex: $0.index) } }
        let force = try #require(a.metadata.calibration?.force)
        let live = try PanelSetup(layout: layout, forceChannels: ids.reversed(), slot: slot, forceCalibration: force,
                                  settings: setupA.settings, sampleRateHz: a.metadata.sampleRateHz, timestampSlot: setupA.timestampSlot)
        #expect(live.calibration == setupA.calibration && live.positions == setupA.positions)
    }

    @Test("A calibration's creep reads, reaches the settings and is written back; absent, a curve takes an FSR's and a line none")
    func creepInCalibration() throws {
        let stated = Self.goodJSON.replacingOccurrences(of: "\"popNewtons\": 2.5", with: "\"popNewtons\": 2.5, \"creepAmount\": 0.08, \"creepMilliseconds\": 2500")
        let rec = try Recording.load(try Self.write(stated))
        let cal = try #require(rec.metadata.calibration)
        #expect(cal.creepAmount == 0.08 && cal.creepMilliseconds == 2500)
        #expect(cal.classifierSettings.creepAmount == 0.08 && cal.classifierSettings.creepMilliseconds == 2500)
        let back = try Recording.load(try Self.write(rec.metadata.json().rendered(indent: 2)))
        #expect(back.metadata.calibration == cal)
        // Stated, the setup takes it even on a line; not stated, a line has none.
        let setup = try PanelSetup(metadata: rec.metadata, file: "rec.json")
        #expect(setup.parameters.creepAmount == Float(0.08) && setup.parameters.creepRules)
        let plain = try PanelSetup(metadata: try Recording.load(try Self.write(Self.goodJSON)).metadata, file: "rec.json")
        #expect(plain.parameters.creepAmount == 0 && !plain.parameters.creepRules)
        let curve = Self.goodJSON.replacingOccurrences(of: "\"zeroRaw\": 8423117, \"newtonsPerCount\": 2.28e-5", with: "\"curve\": [[0, 0], [100, 1.0], [200, 3.0]]")
        let fsr = try PanelSetup(metadata: try Recording.load(try Self.write(curve)).metadata, file: "rec.json")
        #expect(fsr.parameters.creepAmount == ClassifierSettings.fsrCreepAmount)
        #expect(fsr.settings.creepMilliseconds == ClassifierSettings.fsrCreepMilliseconds)
    }

    @Test("A panel read through curves has the lowest force of its curves as its baseline's floor; a line has none")
    func floorFromCurves() throws {
        let plain = try PanelSetup(metadata: try Recording.load(try Self.write(Self.goodJSON)).metadata, file: "rec.json")
        #expect(plain.settings.baseline.floorNewtons == nil && plain.parameters.baselineFloor == -Float.infinity)
        // Falling or rising, a curve holds its end values: the floor is the lower end.
        for (curve, floor) in [("[[0, 0.05], [100, 1.0], [200, 3.0]]", Float(0.05)), ("[[0, 3.0], [100, 1.0], [200, -0.02]]", Float(-0.02))] {
            let json = Self.goodJSON.replacingOccurrences(of: "\"zeroRaw\": 8423117, \"newtonsPerCount\": 2.28e-5", with: "\"curve\": \(curve)")
            let fsr = try PanelSetup(metadata: try Recording.load(try Self.write(json)).metadata, file: "rec.json")
            #expect(fsr.settings.baseline.floorNewtons == floor && fsr.parameters.baselineFloor == floor, "curve \(curve)")
        }
    }

    @Test("A truncated .iio is refused with the whole-scan length to cut to")
    func truncated() throws {
        let url = try Self.write(Self.goodJSON, scans: 10, extraBytes: 5)
        #expect {
            try Recording.load(url)
        } throws: { error in
            let e = try #require(error as? InputError)
            return e.file.hasSuffix("rec.iio") && e.description.contains("truncated") && e.description.contains("160 bytes (10 scans)")
        }
    }

    @Test("A missing .iio is named")
    func missingData() throws {
        let url = try Self.write(Self.goodJSON)
        try FileManager.default.removeItem(at: url.deletingPathExtension().appendingPathExtension("iio"))
        #expect(throws: InputError.self) { try Recording.load(url) }
    }

    @Test("The CLI prints one error line and exits non-zero on bad input")
    func cliBadInput() throws {
        let url = try Self.write(Self.goodJSON.replacingOccurrences(of: "le:u24/32>>0", with: "le:x24/32>>0"))
        let r = try runProcess([forcestageBinary.path, "replay", url.path])
        #expect(r.status != 0)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("channels[0].format") && lines[0].contains(url.path), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("The reader agrees with the independent recordings' layout and length",
          .enabled(if: sharedRecordingsPresent, sharedSkipReason))
    func sharedRecordingLayouts() throws {
        let expected: [String: (scanSize: Int, scans: Int, channels: Int)] = [
            "hx711-80hz-sample": (16, 4800, 2), "fsr-ads1115-860hz-sample": (16, 25781, 2), "panel4-500hz-sample": (24, 15000, 5),
        ]
        for (stem, want) in expected {
            let rec = try Recording.load(sharedRecordings.appendingPathComponent("\(stem).json"))
            #expect(rec.layout.scanSize == want.scanSize && rec.scanCount == want.scans && rec.layout.count == want.channels, "\(stem)")
        }
    }
}
