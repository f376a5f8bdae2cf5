import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools

/// Sliding presses: the synthesizer moves presses across the plate
/// while they are held, labels them where the finger is at each label's scan,
/// and the centre of pressure follows.
@Suite("Sliding presses")
struct SlidingTests {
    /// The sliding corpus of the acceptance test: a four-cell plate with its
    /// own per-cell gains and zeros per seed, every artefact.
    static let seeds: [UInt64] = [21, 22, 23, 24]
    static func options(_ seed: UInt64, scenarios: ScenarioSet = .sliding) -> SynthOptions {
        SynthOptions(panel: .panel4, seed: seed, duration: 60, artefacts: .all, scenarios: scenarios)
    }

    @Test("Sliding moves positions only: the same presses, forces and label samples as without it")
    func slidingChangesPositionsOnly() throws {
        let plain = try Synthesizer.synthesize(Self.options(21, scenarios: []))
        let slid = try Synthesizer.synthesize(Self.options(21))
        #expect(plain.truth == slid.truth)
        #expect(plain.script.presses.map(\.keyframes) == slid.script.presses.map(\.keyframes))
        #expect(plain.script.presses.allSatisfy { $0.path == nil })
        let a = plain.recording.metadata.labels, b = slid.recording.metadata.labels
        #expect(a.map(\.event) == b.map(\.event) && a.map(\.sample) == b.map(\.sample) && a.map(\.windowStart) == b.map(\.windowStart))
        #expect(plain.recording.scans != slid.recording.scans, "the cells must see the press move")
        let sliding = slid.script.presses.filter { $0.path != nil }
        #expect(sliding.count >= slid.script.presses.count / 3, "\(sliding.count) of \(slid.script.presses.count) slide")
        #expect(slid.script.presses.filter { $0.kind == .hardSlam }.allSatisfy { $0.path == nil })
    }

    @Test("Labels carry the position at their own scan; many sliding peeks and pops have left the landing spot")
    func labelsFollowThePath() throws {
        var moved = 0
        var moving = 0
        var labelled = 0
        for seed in Self.seeds {
            let r = try Synthesizer.synthesize(Self.options(seed))
            let period = 1 / (r.model.sampleRateHz * (1 + r.model.clockError))
            for label in r.recording.metadata.labels where label.event != .release {
                let t = Double(r.sourceScan[label.sample]) * period
                let press = r.script.presses[try #require(r.script.pressIndex(at: t))]
                let at = press.position(at: t)
                let x = try #require(label.x), y = try #require(label.y)
                #expect(abs(x - at.x) <= 0.00005 && abs(y - at.y) <= 0.00005, "seed \(seed) \(label.event) at \(label.sample)")
                labelled += 1
                if hypot(x - press.x, y - press.y) > 0.02 { moved += 1 }
                if let path = press.path, t > path.startTime, t < path.endTime { moving += 1 }
            }
        }
        // Without this the acceptance test below would be the off-centre test
        // again. Seeds 21-24: 42 of 137 labelled peeks and pops lie over 0.02
        // from the landing spot and 70 of 137 are taken while the finger moves
        // (it eases into a slide, so a peek early in one has not gone far yet).
        #expect(moved * 4 >= labelled, "\(moved) of \(labelled) labelled peeks and pops lie over 0.02 from where the press landed")
        #expect(moving * 2 >= labelled, "\(moving) of \(labelled) labelled peeks and pops are taken while the finger moves")
    }

    @Test("Paths stay on the plate, start where the finger landed and keep to the speed bound")
    func pathsArePlausible() throws {
        for seed in Self.seeds {
            let r = try Synthesizer.synthesize(Self.options(seed))
            for press in r.script.presses {
                guard let path = press.path else { continue }
                #expect(path.startTime >= press.start && path.startTime < path.endTime && path.endTime <= press.end)
                let first = press.position(at: path.startTime), last = press.position(at: press.end + 1)
                #expect(first.x == press.x && first.y == press.y)
                #expect(last.x == path.endX && last.y == path.endY)
                for i in 0...50 {
                    let p = press.position(at: press.start + (press.end - press.start) * Double(i) / 50)
                    #expect((0.1...0.9).contains(p.x) && (0.1...0.9).contains(p.y), "seed \(seed): \(p) off the inner plate")
                }
                let speed = path.length(from: press.x, press.y) / (path.endTime - path.startTime)
                #expect(speed <= 1.15 * PressScript.slideMeanSpeed, "seed \(seed): mean speed \(speed) plate units/s")
            }
        }
    }

    @Test("The cells see the press where the path says: centre of pressure of the noise-free counts")
    func cellsFollowThePath() throws {
        var options = Self.options(22)
        options.artefacts = []
        let r = try Synthesizer.synthesize(options)
        let press = try #require(r.script.presses.first { $0.path != nil && $0.peak > 2 * r.model.peekNewtons })
        let path = try #require(press.path)
        let rec = r.recording
        let layout = rec.layout
        let calibrations = try rec.metadata.forceChannels.map { channel in
            try rec.metadata.calibration!.force.first { $0.channel == channel.id }!.mapping.core()
        }
        let period = 1 / (r.model.sampleRateHz * (1 + r.model.clockError))
        var checked = 0
        try rec.scans.withUnsafeBytes { bytes in
            for row in 0..<rec.scanCount {
                let t = Double(r.sourceScan[row]) * period
                guard t > path.startTime, t < path.endTime, press.force(at: t) > r.model.peekNewtons else { continue }
                var cell = [Double]()
                for (c, channel) in rec.metadata.forceChannels.enumerated() {
                    let slot = try #require(layout.slot(forIndex: channel.index))
                    let raw = layout[slot].format.decode(bytes.baseAddress! + row * layout.scanSize + layout[slot].offset)
                    cell.append(Double(calibrations[c].newtons(forRaw: raw)))
                }
                let total = cell.reduce(0, +)
                let x = (cell[1] + cell[3]) / total, y = (cell[2] + cell[3]) / total
                let truth = press.position(at: t)
                #expect(hypot(x - truth.x, y - truth.y) < 0.002, "scan \(row): (\(x), \(y)) vs \(truth)")
                checked += 1
            }
        }
        #expect(checked > 50)
    }

    @Test("Sliding corpus (4 seeds, four cells, per-cell gains, every artefact): every peek and pop matched, position error p90 <= 0.02, on both paths")
    func slidingAcceptance() throws {
        var all: [Double] = []
        for seed in Self.seeds {
            let rec = try Synthesizer.synthesize(Self.options(seed)).recording
            let setup = try PanelSetup(metadata: rec.metadata, file: "slide-s\(seed).json")
            let pressLabels = rec.metadata.labels.filter { $0.event != .release }
            #expect(pressLabels.allSatisfy { $0.x != nil && $0.y != nil })
            for (path, events) in [("batched", replay(rec, setup: setup).events),
                                   ("per-scan", CorpusPositionTests.perScanEvents(rec, setup: setup))] {
                let s = score(events: events, labels: rec.metadata.labels, sampleRateHz: setup.sampleRateHz)
                #expect(s.misses.filter { $0.event != .release }.isEmpty, "seed \(seed) \(path): missed \(s.misses)")
                #expect(s.unpositioned == 0, "seed \(seed) \(path)")
                #expect(s.positionErrors.count == pressLabels.count, "seed \(seed) \(path)")
                let p90 = try #require(percentile(s.positionErrors, 0.9))
                #expect(p90 <= 0.02, "seed \(seed) \(path): p90 \(p90), errors \(s.positionErrors)")
                if path == "batched" { all += s.positionErrors }
            }
        }
        let p90 = try #require(percentile(all.sorted(), 0.9))
        #expect(p90 <= 0.02, "corpus p90 \(p90)")
    }

    @Test("--scenario sliding: by name, not in all, refused on a single cell and in a session with one line")
    func options() throws {
        #expect(!ScenarioSet.all.contains(.sliding))
        #expect(try ScenarioSet.parse("sliding").get() == .sliding)
        #expect(try ScenarioSet.parse("all,sliding").get() == ScenarioSet.all.union(.sliding))
        #expect(ScenarioSet.all.union(.sliding).text == "all,sliding")
        #expect(ScenarioSet.parse(ScenarioSet.all.union(.sliding).text).map { $0 } == .success(ScenarioSet.all.union(.sliding)))
        #expect(throws: SynthError.needsCells("sliding", panel: "hx711-80")) {
            try Synthesizer.synthesize(SynthOptions(panel: .hx711at80, seed: 1, duration: 20, scenarios: .sliding))
        }
        // A scenario corpus of slides alone is four-cell only.
        #expect(Synthesizer.scenarioCorpus(.sliding).allSatisfy { $0.options.panel == .panel4 })

        let dir = try temporaryDirectory()
        let out = dir.appendingPathComponent("s.json").path
        for (args, says) in [(["--panel", "hx711-80"], "use --panel panel4"),
                             (["--panel", "panel4", "--script", "session"], "drop one of --scenario sliding and --script session")] {
            let r = try forcestage(["synth"] + args + ["--seed", "1", "--duration", "30", "--scenario", "sliding", "-o", out])
            #expect(r.status != 0 && r.stderr.contains(says), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("forcestage synth --scenario sliding then evaluate: the position error line is there and within the bound")
    func synthThenEvaluate() throws {
        let dir = try temporaryDirectory()
        let out = dir.appendingPathComponent("slide.json")
        let w = try forcestage(["synth", "--panel", "panel4", "--seed", "23", "--duration", "60", "--scenario", "sliding", "-o", out.path])
        #expect(w.status == 0, "\(w.stderr)")
        let written = try Recording.load(out)
        #expect(written.scans == (try Synthesizer.synthesize(Self.options(23)).recording.scans))
        let e = try forcestage(["evaluate", out.path, "--json"])
        #expect(e.status == 0, "\(e.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any])
        let overall = try #require(json["overall"] as? [String: Any], "\(e.stdout)")
        let position = try #require(overall["positionError"] as? [String: Any], "\(e.stdout)")
        #expect((position["unpositioned"] as? Int) == 0)
        let p90 = try #require((position["p90"] as? Double) ?? (position["p90"] as? NSNumber)?.doubleValue, "\(position)")
        #expect(p90 <= 0.02)
    }
}
