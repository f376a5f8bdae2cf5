import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageGestures
@testable import ForceStageFormats
@testable import ForceStageTools

/// The gesture layer on a four-cell plate: regions, quick actions, moves,
/// spring loading and progress, from bytes through the real pipeline.
@Suite("Gestures")
struct GestureTests {
    /// One scan of the script: where the finger is and how hard it presses.
    struct Touch { var x: Float; var y: Float; var force: Float }

    /// Writes a 500 scans/s four-cell recording of `touches` (corner cells,
    /// 1000 counts per newton, a count of dither) and loads it.
    static func recording(_ touches: [Touch]) throws -> (Recording, PanelSetup) {
        let dir = try temporaryDirectory()
        let channels = (0..<4).map { "{\"id\": \"v\($0)\", \"index\": \($0), \"format\": \"le:s32/32>>0\", \"role\": \"force\"}" }
        let force = (0..<4).map { "{\"channel\": \"v\($0)\", \"zeroRaw\": 0, \"newtonsPerCount\": 0.001}" }
        let json = "{\"format\": \"forcestage-recording/1\", \"device\": {\"name\": \"ad7124-4\"}, \"sampleRateHz\": 500, " +
            "\"channels\": [\(channels.joined(separator: ", "))], \"calibration\": {\"force\": [\(force.joined(separator: ", "))], " +
            "\"peekNewtons\": 1.3, \"popNewtons\": 2.9}}"
        let url = dir.appendingPathComponent("drag.json")
        try Data(json.utf8).write(to: url)
        var bytes: [UInt8] = []
        for (i, t) in touches.enumerated() {
            let share: [Float] = [(1 - t.x) * (1 - t.y), t.x * (1 - t.y), (1 - t.x) * t.y, t.x * t.y]
            for c in 0..<4 {
                let raw = Int32((t.force * share[c] * 1000).rounded()) + Int32(i % 3)
                withUnsafeBytes(of: raw.littleEndian) { bytes += $0 }
            }
        }
        try Data(bytes).write(to: dir.appendingPathComponent("drag.iio"))
        let rec = try Recording.load(url)
        return (rec, try PanelSetup(metadata: rec.metadata, file: url.path))
    }

    static func idle(_ n: Int) -> [Touch] { Array(repeating: Touch(x: 0.5, y: 0.5, force: 0), count: n) }
    static func ramp(_ from: Touch, _ to: Touch, _ n: Int) -> [Touch] {
        (0..<n).map { k in
            let t = Float(k + 1) / Float(n)
            return Touch(x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t, force: from.force + (to.force - from.force) * t)
        }
    }

    static let left = Region(name: "left", minX: 0, minY: 0, maxX: 0.5, maxY: 1)
    static let right = Region(name: "right", minX: 0.5, minY: 0, maxX: 1, maxY: 1)

    static func kinds(_ out: [GestureEvent]) -> [String] {
        out.compactMap { g in
            switch g {
            case .press(let e, let r): return "\(e.kind.name)(\(r ?? "-"))"
            case .actions(let r, _, _): return "actions(\(r))"
            case .open(let r, let a, _): return "open(\(r),\(a))"
            case .dismiss(let r, _): return "dismiss(\(r))"
            case .spring(let r, _, _, _): return "spring(\(r))"
            case .move, .progress: return nil
            }
        }
    }

    @Test("A drag from one region to another with a force click over the second: one spring, moves between, nothing from the first region's levels")
    func dragAndSpring() throws {
        let start = Touch(x: 0.25, y: 0.5, force: 1.8)
        let over = Touch(x: 0.75, y: 0.5, force: 1.8)
        var script = Self.idle(500)
        script += Self.ramp(Touch(x: 0.25, y: 0.5, force: 0), start, 40)            // peek on the left
        script += Array(repeating: start, count: 100)
        script += Self.ramp(start, over, 250)                                        // drag to the right
        script += Self.ramp(over, Touch(x: 0.75, y: 0.5, force: 3.6), 30)            // force click over the right
        script += Array(repeating: Touch(x: 0.75, y: 0.5, force: 3.6), count: 50)
        // Hover on the border with the force still high: no second spring.
        for k in 0..<100 { script.append(Touch(x: 0.5 + (k % 2 == 0 ? 0.01 : -0.005) + 0.005, y: 0.5, force: 3.6)) }
        script += Self.ramp(Touch(x: 0.51, y: 0.5, force: 3.6), Touch(x: 0.51, y: 0.5, force: 0), 40)
        script += Self.idle(300)
        let (rec, setup) = try Self.recording(script)
        let out = replayGestures(rec, setup: setup, regions: [Self.left, Self.right])
        let named = Self.kinds(out)
        #expect(named.filter { $0.hasPrefix("spring") } == ["spring(right)"], "\(named)")
        #expect(named.first == "peek(left)")
        #expect(named.last == "release(left)", "the press ends where it began: \(named)")
        #expect(!named.contains("pop(left)"), "the left region's pop level must not fire after the press left it: \(named)")
        #expect(!named.contains("hold(left)") || named.firstIndex(of: "hold(left)")! < named.firstIndex(of: "spring(right)")!,
                "no hold from the left region after leaving it: \(named)")
        // Moves between the peek and the spring, rate-limited (30 per second at most).
        let peekAt = out.firstIndex { if case .press(let e, _) = $0 { return e.kind == .peek } else { return false } }!
        let springAt = out.firstIndex { if case .spring = $0 { return true } else { return false } }!
        let moves = out[peekAt..<springAt].compactMap { g -> (Int64, Float)? in
            if case .move(let s, let x, _, _) = g { return (s, x) } else { return nil }
        }
        #expect(moves.count >= 10, "\(moves.count) moves")
        #expect(zip(moves, moves.dropFirst()).allSatisfy { $1.0 - $0.0 >= 16 }, "at most one move per 1/30 s")
        #expect(moves.first!.1 < 0.3 && moves.last!.1 > 0.7, "the moves follow the drag")
    }

    @Test("Quick actions: a peek lists them once, a pop opens the one under the press, a release without pop dismisses")
    func quickActions() throws {
        let menu = Region(name: "icon", minX: 0, minY: 0, maxX: 0.5, maxY: 1, actions: ["new", "share", "delete"])
        var script = Self.idle(500)
        let at = Touch(x: 0.25, y: 0.5, force: 1.8)
        script += Self.ramp(Touch(x: 0.25, y: 0.5, force: 0), at, 40)
        script += Array(repeating: at, count: 300)                                    // held 0.6 s: hold, the no-force route
        script += Self.ramp(at, Touch(x: 0.25, y: 0.5, force: 0), 40)               // released without pop: dismiss
        script += Self.idle(300)
        script += Self.ramp(Touch(x: 0.25, y: 0.9, force: 0), Touch(x: 0.25, y: 0.9, force: 3.6), 60)  // pop low on the icon
        script += Array(repeating: Touch(x: 0.25, y: 0.9, force: 3.6), count: 50)
        script += Self.ramp(Touch(x: 0.25, y: 0.9, force: 3.6), Touch(x: 0.25, y: 0.9, force: 0), 40)
        script += Self.idle(300)
        script += Self.ramp(Touch(x: 0.75, y: 0.5, force: 0), Touch(x: 0.75, y: 0.5, force: 1.8), 40)  // outside: nothing
        script += Array(repeating: Touch(x: 0.75, y: 0.5, force: 1.8), count: 50)
        script += Self.ramp(Touch(x: 0.75, y: 0.5, force: 1.8), Touch(x: 0.75, y: 0.5, force: 0), 40)
        script += Self.idle(300)
        let (rec, setup) = try Self.recording(script)
        let named = Self.kinds(replayGestures(rec, setup: setup, regions: [menu]))
        #expect(named == ["peek(icon)", "actions(icon)", "hold(icon)", "release(icon)", "dismiss(icon)",
                          "peek(icon)", "actions(icon)", "pop(icon)", "open(icon,delete)", "release(icon)"], "\(named)")
    }

    @Test("Progress only when asked, rate-limited, 0...1 between release and pop")
    func progress() throws {
        var script = Self.idle(500)
        script += Self.ramp(Touch(x: 0.25, y: 0.5, force: 0), Touch(x: 0.25, y: 0.5, force: 3.6), 200)
        script += Self.ramp(Touch(x: 0.25, y: 0.5, force: 3.6), Touch(x: 0.25, y: 0.5, force: 0), 100)
        script += Self.idle(300)
        let (rec, setup) = try Self.recording(script)
        let quiet = replayGestures(rec, setup: setup, regions: [Self.left])
        #expect(!quiet.contains { if case .progress = $0 { return true } else { return false } })
        let loud = replayGestures(rec, setup: setup, regions: [Self.left], progressHz: 60)
        let values = loud.compactMap { g -> (Int64, Float)? in if case .progress(_, let s, let v) = g { return (s, v) } else { return nil } }
        #expect(values.count >= 10)
        #expect(values.allSatisfy { $0.1 >= 0 && $0.1 <= 1 })
        #expect(values.contains { $0.1 == 1 }, "reaches 1 at the pop level")
        #expect(zip(values, values.dropFirst()).allSatisfy { $1.0 - $0.0 >= 8 }, "at most 60 per second at 500 scans/s")
    }
}

@Suite("Profile regions")
struct ProfileRegionTests {
    static func profile(channels: Int = 4, positions: Bool = false, _ regions: String) -> String {
        var text = "schema = 1\nname = \"p\"\n[levels]\npeek_newtons = 1.2\npop_newtons = 3.0\n"
        for i in 0..<channels {
            text += "[[channel]]\nid = \"v\(i)\"\nzero_raw = 0\nnewtons_per_count = 0.001\n"
            if positions { text += "position = [\(i % 2), \(i / 2)]\n" }
        }
        return text + regions
    }

    @Test("[[region]] reads with levels, a sensitivity preset, actions and a default")
    func reads() throws {
        let p = try Profile.parse(Self.profile("""
            [[region]]
            name = "ok"
            rect = [0.0, 0.0, 0.5, 1.0]
            actions = ["a", "b"]
            default = true
            [[region]]
            name = "cancel"
            rect = [0.5, 0.0, 1.0, 1.0]
            sensitivity = "firm"
            """), file: "p.toml")
        #expect(p.regions.map(\.name) == ["ok", "cancel"])
        #expect(p.regions[0].actions == ["a", "b"] && p.regions[0].isDefault && p.regions[0].peekNewtons == nil)
        #expect(p.regions[1].peekNewtons == Double(Sensitivity.firm.levels.peek))
    }

    @Test("Bad regions are refused with file, line and key",
          arguments: [
            (4, false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.6, 1.0]\n[[region]]\nname = \"b\"\nrect = [0.5, 0.0, 1.0, 1.0]\n", "region[1].rect", "overlaps"),
            (4, false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 1.5, 1.0]\n", "region[0].rect", "outside the plate"),
            (1, false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 1.0]\n", "region[0]", "need press positions"),
            (5, false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 1.0]\n", "region[0]", "need press positions"),
            (4, false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 1.0]\nactions = [\"1\", \"2\", \"3\", \"4\", \"5\"]\n", "region[0].actions", "at most 4"),
            (4, false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 1.0]\npeek_newtons = 3.5\n", "region[0].pop_newtons", "above its peek"),
          ])
    func refused(_ channels: Int, _ positions: Bool, _ regions: String, key: String, problem: String) {
        do {
            _ = try Profile.parse(Self.profile(channels: channels, positions: positions, regions), file: "bad.toml")
            Issue.record("accepted \(regions)")
        } catch {
            #expect(error.description.contains("bad.toml") && error.description.contains(key) && error.description.contains(problem),
                    "\(error.description)")
        }
    }

    @Test("Two and three cells without positions take the standard ones (a bar, a triangle) and may have regions",
          arguments: [2, 3])
    func standardPositions(_ channels: Int) throws {
        let p = try Profile.parse(Self.profile(channels: channels, positions: false, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 1.0]\n"),
                                  file: "p.toml")
        #expect(p.regions.count == 1)
        #expect(CellPositions.standard(forCells: channels) != nil)
    }

    @Test("Three cells with positions may have regions")
    func threeCellsWithPositions() throws {
        let p = try Profile.parse(Self.profile(channels: 3, positions: true, "[[region]]\nname = \"a\"\nrect = [0.0, 0.0, 0.5, 1.0]\n"),
                                  file: "p.toml")
        #expect(p.regions.count == 1)
    }
}

@Suite("Negative cells")
struct NegativeCellTests {
    @Test("A cell wired backwards reads negative under a press: found, named, with the scan; a sound panel gives nothing")
    func reversedCell() throws {
        var script = GestureTests.idle(500)
        script += GestureTests.ramp(GestureTests.Touch(x: 0.5, y: 0.5, force: 0), GestureTests.Touch(x: 0.5, y: 0.5, force: 3), 50)
        script += Array(repeating: GestureTests.Touch(x: 0.5, y: 0.5, force: 3), count: 100)
        script += GestureTests.ramp(GestureTests.Touch(x: 0.5, y: 0.5, force: 3), GestureTests.Touch(x: 0.5, y: 0.5, force: 0), 50)
        script += GestureTests.idle(200)
        let (rec, setup) = try GestureTests.recording(script)
        let ids = rec.metadata.forceChannels.map(\.id)
        #expect(negativeCells(rec, setup: setup, channels: ids).isEmpty)
        // The same scans with cell 2's gain negated, as a reversed bridge reads.
        var metadata = rec.metadata
        metadata.calibration!.force[2].mapping = .linear(zeroRaw: 0, newtonsPerCount: -0.001)
        let flipped = try PanelSetup(metadata: metadata, file: "flipped.json")
        let found = negativeCells(rec, setup: flipped, channels: ids)
        #expect(found.map(\.cell) == [2] && found[0].channel == "v2", "\(found)")
        #expect(found.first.map { $0.message(file: "flipped.json").contains("calibration.force[2] (v2)") } == true)
    }

    @Test("Sound synthesized plates give no warning: a far cell's noise dipping below zero for a scan or two is not a reversed cell")
    func soundPlates() throws {
        for entry in Synthesizer.standardCorpus where entry.stem.hasPrefix("panel4") {
            let rec = try Synthesizer.synthesize(entry.options).recording
            let setup = try PanelSetup(metadata: rec.metadata, file: entry.stem)
            let found = negativeCells(rec, setup: setup, channels: rec.metadata.forceChannels.map(\.id))
            #expect(found.isEmpty, "\(entry.stem): \(found)")
        }
    }
}
