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
}
