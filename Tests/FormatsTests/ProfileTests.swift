import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
import ForceStageTools

@Suite("Profiles")
struct ProfileTests {
    static let good = """
    # a comment
    schema = 1
    name = "kiosk"

    [match]
    name = "hx711"
    label = "kiosk-*"

    [levels]
    sensitivity = "firm"
    pop_newtons = 4.0   # overrides the preset's pop

    [debounce]
    release = "eager"
    release_ms = 20

    [[channel]]
    id = "voltage0"
    curve = [
      [0, 0.0],
      [1000, 0.5],   # points may span lines
      [3000, 2.0],
    ]
    """

    @Test("A profile reads with presets, overrides and a multi-line curve")
    func reads() throws {
        let p = try Profile.parse(Self.good, file: "kiosk.toml")
        #expect(p.name == "kiosk" && p.matchName == "hx711" && p.matchLabel == "kiosk-*")
        #expect(p.settings.peekNewtons == Sensitivity.firm.levels.peek && p.settings.popNewtons == 4.0)
        #expect(p.settings.releaseDebounce == Debounce(.eager, milliseconds: 20))
        #expect(p.channels == [ForceChannelCalibration(channel: "voltage0", mapping: .curve([
            CurvePoint(raw: 0, newtons: 0), CurvePoint(raw: 1000, newtons: 0.5), CurvePoint(raw: 3000, newtons: 2)]))])
    }

    /// Each broken profile, the line and key its error must name.
    static let broken: [(String, Int?, String?)] = [
        (good.replacingOccurrences(of: "schema = 1", with: "schema = 2"), 2, "schema"),
        (good.replacingOccurrences(of: "schema = 1\n", with: ""), nil, "schema"),
        (good.replacingOccurrences(of: "sensitivity = \"firm\"", with: "sensitivity = \"soft\""), 10, "levels.sensitivity"),
        (good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 1.0"), 11, "levels.pop_newtons"),
        (good.replacingOccurrences(of: "release = \"eager\"", with: "release = \"lazy\""), 14, "debounce.release"),
        (good.replacingOccurrences(of: "release_ms = 20", with: "release_ms = -5"), 15, "debounce.release_ms"),
        (good.replacingOccurrences(of: "[1000, 0.5]", with: "[1000, 2.5]"), 22, "channel[0].curve[2]"),  // the line of the point where the curve turns
        (good.replacingOccurrences(of: "[debounce]", with: "[debounse]"), 13, "[debounse]"),
        (good.replacingOccurrences(of: "release_ms = 20", with: "relase_ms = 20"), 15, "debounce.relase_ms"),
        (good.replacingOccurrences(of: "name = \"kiosk\"", with: "name = \"kiosk"), 3, nil),
        (good.replacingOccurrences(of: "release_ms = 20", with: "release_ms = 20 20"), 15, nil),
        (good.replacingOccurrences(of: "[debounce]", with: "[health]\nstuck_step_fraction = 1\n\n[debounce]"), 14, "health.stuck_step_fraction"),
        (good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 4.0\ncreep_amount = 0.6"), 12, "levels.creep_amount"),
        (good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 4.0\ncreep_amount = -0.05"), 12, "levels.creep_amount"),
        (good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 4.0\ncreep_amount = \"12 %\""), 12, "levels.creep_amount"),
        (good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 4.0\ncreep_ms = 0"), 12, "levels.creep_ms"),
        (good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 4.0\ncreep_ms = 120000"), 12, "levels.creep_ms"),
        (good.replacingOccurrences(of: "[debounce]", with: "[health]\nstuck_step_fraction = -0.01\n\n[debounce]"), 14, "health.stuck_step_fraction"),
    ]

    @Test("Every validation error names the file, line and key", arguments: broken.indices)
    func errors(_ i: Int) {
        let (text, line, key) = Self.broken[i]
        do {
            _ = try Profile.parse(text, file: "p.toml")
            Issue.record("case \(i) was accepted")
        } catch {
            #expect(error.file == "p.toml")
            #expect(error.line == line, "case \(i): \(error.description)")
            #expect(error.key == key, "case \(i): \(error.description)")
        }
    }

    @Test("Wildcards match, and an exact label is more specific than a wildcard name")
    func matching() throws {
        #expect(wildcardMatch("kiosk-*", "kiosk-left") && wildcardMatch("hx7??", "hx711") && !wildcardMatch("hx7?", "hx711"))
        let byName = try Profile.parse(Self.good.replacingOccurrences(of: "label = \"kiosk-*\"\n", with: ""), file: "a")
        let byLabel = try Profile.parse(Self.good.replacingOccurrences(of: "label = \"kiosk-*\"", with: "label = \"kiosk-left\""), file: "b")
        #expect(byName.specificity(deviceName: "hx711", label: "kiosk-left") < byLabel.specificity(deviceName: "hx711", label: "kiosk-left"))
        #expect(byLabel.specificity(deviceName: "hx711", label: "kiosk-right") == 0)
        #expect(byName.specificity(deviceName: "ads1015", label: nil) == 0)
    }

    @Test("The shipped profiles read, and the HX711 one classifies the demo perfectly")
    func shippedProfiles() throws {
        let dir = packageRoot.appendingPathComponent("calibration")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".toml") }
        #expect(!files.isEmpty)
        for f in files { _ = try Profile.load(dir.appendingPathComponent(f)) }
        let demo = packageRoot.appendingPathComponent("hardware/recordings/demo-hx711.json")
        let rec = try Recording.load(demo)
        let setup = try Profile.load(dir.appendingPathComponent("hx711-kiosk.toml")).setup(for: rec.metadata, file: demo.path)
        let s = score(events: replay(rec, setup: setup).events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
        #expect(s.f1 == 1.0)
    }

    @Test("A written profile reads back to the same values, curve and comments included")
    func roundTrip() throws {
        var p = try Profile.parse(Self.good, file: "k.toml")
        p.budgetMilliseconds = 30
        p.settings.baseline.enabled = false
        p.settings.stuckStepFraction = 0.02
        p.settings.creepAmount = 0.08
        p.settings.creepMilliseconds = 2500
        let text = p.tomlText(header: ["made by a test", "peek 1.1 N: because"])
        #expect(text.contains("# peek 1.1 N: because"))
        let back = try Profile.parse(text, file: "k.toml")
        #expect(back.settings == p.settings && back.channels == p.channels && back.name == p.name)
        #expect(back.matchName == p.matchName && back.matchLabel == p.matchLabel && back.budgetMilliseconds == 30)
        #expect(back.settings.creepAmount == 0.08 && back.settings.creepMilliseconds == 2500)
    }

    @Test("A bad creep key is one line naming the file, the line, the key and the range")
    func creepErrorLine() {
        do {
            _ = try Profile.parse(Self.good.replacingOccurrences(of: "pop_newtons = 4.0", with: "pop_newtons = 4.0\ncreep_amount = 0.6"), file: "p.toml")
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.contains("p.toml") && error.description.contains("levels.creep_amount")
                    && error.description.contains("from 0 to 0.5"), "\(error.description)")
        }
    }

    /// A three-cell panel in table syntax, and the same TOML value in inline syntax.
    static let tableSyntax = """
    schema = 1
    name = "bar"
    [match]
    name = "ad7124-4"
    label = "kiosk-*"
    [levels]
    peek_newtons = 1.0
    pop_newtons = 2.5
    [baseline]
    rise_ms = 500
    [[channel]]
    id = "voltage0"
    zero_raw = 100
    newtons_per_count = 0.0005
    position = [0.0, 0.0]
    [[channel]]
    id = "voltage1"
    curve = [[0, 0.0], [1000, 0.5], [3000, 2.0]]
    position = [1.0, 0.0]
    [[channel]]
    id = "voltage2"
    zero_raw = -40
    newtons_per_count = 0.0004
    position = [0.5, 1.0]
    [[region]]
    name = "ok"
    rect = [0.0, 0.0, 0.5, 0.5]
    actions = ["open"]
    """

    static let inlineSyntax = """
    schema = 1
    name = "bar"
    match = { name = "ad7124-4", label = "kiosk-*" }
    levels = { peek_newtons = 1.0, pop_newtons = 2.5 }
    baseline.rise_ms = 500
    channel = [
      { id = "voltage0", zero_raw = 100, newtons_per_count = 0.0005, position = [0.0, 0.0] },
      { id = "voltage1", curve = [[0, 0.0], [1000, 0.5], [3000, 2.0]], position = [1.0, 0.0] },
      { id = "voltage2", zero_raw = -40, newtons_per_count = 0.0004, position = [0.5, 1.0] },
    ]
    region = [{ name = "ok", rect = [0.0, 0.0, 0.5, 0.5], actions = ["open"] }]
    """

    @Test("The schema reads the TOML value, not its syntax: inline tables and arrays of inline tables give the profile [tables] and [[arrays]] give")
    func inlineSyntaxIsTheSameProfile() throws {
        let a = try Profile.parse(Self.tableSyntax, file: "a.toml"), b = try Profile.parse(Self.inlineSyntax, file: "b.toml")
        #expect(a.channels.count == 3 && a.regions.count == 1)
        #expect(a.name == b.name && a.matchName == b.matchName && a.matchLabel == b.matchLabel)
        #expect(a.channels == b.channels)
        #expect(a.settings == b.settings)
        #expect(a.regions == b.regions)
        // The documents hold the same value, as the TOML reader sees them.
        #expect(try TOMLDocument(parsing: Self.tableSyntax).value == TOMLDocument(parsing: Self.inlineSyntax).value)
    }

    /// Each profile in inline syntax, the line and key its error must name, and a phrase.
    static let inlineBroken: [(String, Int?, String, String)] = [
        (inlineSyntax.replacingOccurrences(of: "zero_raw = -40, newtons_per_count = 0.0004", with: "zero_raw = -40, newtons_per_count = 0"),
         9, "channel[2].newtons_per_count", "zero"),
        (inlineSyntax.replacingOccurrences(of: "{ id = \"voltage1\",", with: "{ id = \"voltage1\", colour = \"red\","), 8, "channel[1].colour", "not a profile key"),
        (inlineSyntax.replacingOccurrences(of: "{ id = \"voltage0\", zero_raw = 100, newtons_per_count = 0.0005, position = [0.0, 0.0] }",
                                           with: "{ id = \"voltage0\", curve = [\n    [0, 0.0],\n    [1000, 2.5],\n    [3000, 2.0]], position = [0.0, 0.0] }"),
         10, "channel[0].curve[2]", "monotone"),
        (inlineSyntax.replacingOccurrences(of: "label = \"kiosk-*\" }", with: "label = 7 }"), 3, "match.label", "must be a string"),
        (inlineSyntax.replacingOccurrences(of: "rect = [0.0, 0.0, 0.5, 0.5]", with: "rect = [0.0, 0.0, 1.5, 0.5]"), 11, "region[0].rect", "outside the plate"),
        ("schema = 1\nlevels = { sensitivity = \"medium\" }\nchannel = []\n", nil, "channel", "no [[channel]]"),
        ("schema = 1\nlevels = { sensitivity = \"medium\" }\nchannel = [1, 2]\n", 3, "channel", "array of tables"),
        ("schema = 1\nlevels = { sensitivity = \"medium\" }\nchannel = [{ id = \"voltage0\", zero_raw = 0, newtons_per_count = 1e-3 }, 2]\n", 3, "channel", "array of tables"),
    ]

    @Test("A profile in inline syntax gets the errors of one in table syntax, naming file, line and key", arguments: inlineBroken.indices)
    func inlineErrors(_ i: Int) {
        let (text, line, key, phrase) = Self.inlineBroken[i]
        do {
            _ = try Profile.parse(text, file: "p.toml")
            Issue.record("case \(i) was accepted")
        } catch {
            #expect(error.file == "p.toml" && error.line == line && error.key == key, "case \(i): \(error.description)")
            #expect(error.description.contains(phrase), "case \(i): \(error.description)")
        }
    }

    /// A four-cell panel's recording metadata (ids voltage0...voltage3 at scan indices 0...3).
    static let fourCells = RecordingMetadata(
        deviceName: "ad7124-4", deviceLabel: "kiosk-left", sampleRateHz: 500,
        channels: (0..<4).map { RecordingChannel(id: "voltage\($0)", index: $0, format: try! ChannelFormat(parsing: "be:s24/32>>8"), role: .force) })

    static let fourCellProfile = (0..<4).reduce("schema = 1\n[levels]\npeek_newtons = 1.0\npop_newtons = 2.5\n") { text, i in
        text + "[[channel]]\nid = \"voltage\(i)\"\nzero_raw = \(100 * i)\nnewtons_per_count = 0.0005\nposition = [\(i % 2).0, \(i / 2).0]\n"
    }

    /// Profiles that validate while `replay`, `run` and reload refuse them, unless the profile reader refuses them
    /// first: the line and key of that refusal.
    static let approvedThenRefused: [(String, String, Int, String)] = [
        ("empty id", fourCellProfile.replacingOccurrences(of: "id = \"voltage0\"", with: "id = \"\""), 6, "channel[0].id"),
        ("id with a space", fourCellProfile.replacingOccurrences(of: "id = \"voltage0\"", with: "id = \"voltage 0\""), 6, "channel[0].id"),
        ("cells in one line", fourCellProfile.replacingOccurrences(of: "position = [0.0, 1.0]", with: "position = [0.5, 0.5]")
            .replacingOccurrences(of: "position = [1.0, 0.0]", with: "position = [0.25, 0.25]"), 9, "channel[].position"),
        ("curves over the panel's pool", (0..<4).reduce(fourCellProfile) { text, i in
            text.replacingOccurrences(of: "zero_raw = \(100 * i)\nnewtons_per_count = 0.0005",
                                      with: "curve = [" + (0..<20).map { "[\($0 * 100), \(Double($0) * 0.1)]" }.joined(separator: ", ") + "]")
        }, 19, "channel[3].curve"),
    ]

    @Test("profile check and the loaders agree: a profile the reader approves sets up the panel it names, else the reader refuses it with line and key",
          arguments: approvedThenRefused.indices)
    func checkAgreesWithLoaders(_ i: Int) throws {
        let base = try Profile.parse(Self.fourCellProfile, file: "p.toml")
        _ = try base.setup(for: Self.fourCells, file: "rec.json")
        let (name, text, line, key) = Self.approvedThenRefused[i]
        do {
            let profile = try Profile.parse(text, file: "p.toml")
            do { _ = try profile.setup(for: Self.fourCells, file: "rec.json") } catch {
                Issue.record("\(name): approved by the profile reader, refused by the loader: \(error.description)")
            }
        } catch {
            #expect(error.line == line && error.key == key, "\(name): \(error.description)")
        }
    }
}
