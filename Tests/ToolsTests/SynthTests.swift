import Foundation
import TestSupport
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools
import Testing

/// Decodes the calibrated force and timestamps of a recording through the core, as a reader would.
private struct Decoded {
    var force: [Double]
    var raw: [[Int64]]  // per force channel
    var timestamps: [Int64]

    init(_ recording: Recording) throws {
        let layout = recording.layout
        let meta = recording.metadata
        let forceChannels = meta.forceChannels
        let calibrations = try forceChannels.map { channel in
            try meta.calibration!.force.first { $0.channel == channel.id }!.mapping.core()
        }
        let slots = forceChannels.map { layout.slot(forIndex: $0.index)! }
        let tsSlot = layout.slot(forIndex: meta.timestampChannel!.index)!
        force = []
        raw = Array(repeating: [], count: forceChannels.count)
        timestamps = []
        recording.scans.withUnsafeBytes { bytes in
            for scan in 0..<recording.scanCount {
                let base = bytes.baseAddress! + scan * layout.scanSize
                var total = 0.0
                for (c, slot) in slots.enumerated() {
                    let value = layout[slot].format.decode(base + layout[slot].offset)
                    raw[c].append(value)
                    total += Double(calibrations[c].newtons(forRaw: value))
                }
                force.append(total)
                timestamps.append(layout[tsSlot].format.decode(base + layout[tsSlot].offset))
            }
        }
    }
}

/// Short enough to keep the suite quick, long enough for every kind of press.
private func options(_ panel: PanelKind, seed: UInt64 = 11, artefacts: ArtefactSet = .all) -> SynthOptions {
    SynthOptions(panel: panel, seed: seed, duration: panel == .hx711at10 ? 90 : 30, artefacts: artefacts)
}

@Suite("Synthesizer")
struct SynthTests {
    // MARK: - Determinism

    @Test("the same seed and options give byte-identical files", arguments: PanelKind.allCases)
    func sameSeedSameBytes(panel: PanelKind) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.json")
        let b = directory.appendingPathComponent("b.json")
        try Synthesizer.synthesize(options(panel)).recording.write(to: a)
        try Synthesizer.synthesize(options(panel)).recording.write(to: b)
        #expect(try Data(contentsOf: a) == Data(contentsOf: b))
        #expect(try Data(contentsOf: Recording.dataURL(forMetadata: a)) == Data(contentsOf: Recording.dataURL(forMetadata: b)))
    }

    @Test("a different seed gives a different recording", arguments: PanelKind.allCases)
    func differentSeedDifferentBytes(panel: PanelKind) throws {
        let one = try Synthesizer.synthesize(options(panel, seed: 1)).recording
        let two = try Synthesizer.synthesize(options(panel, seed: 2)).recording
        #expect(one.scans != two.scans)
        #expect(one.metadata.labels != two.metadata.labels)
    }

    @Test("the generator is fixed: a known seed gives known numbers")
    func generatorIsPinned() {
        var random = SeededRandom(seed: 42)
        let first = (0..<3).map { _ in random.next() }
        var again = SeededRandom(seed: 42)
        #expect((0..<3).map { _ in again.next() } == first)
        var other = SeededRandom(seed: 42, stream: 1)
        #expect(other.next() != first[0])
        var unit = SeededRandom(seed: 5)
        for _ in 0..<1000 {
            let u = unit.unit()
            #expect(u >= 0 && u < 1)
        }
    }

    // MARK: - Labels

    @Test("labels follow the spec on the noise-free force", arguments: PanelKind.allCases)
    func labelsFollowSpec(panel: PanelKind) throws {
        let result = try Synthesizer.synthesize(options(panel))
        let truth = result.truth
        let peek = result.model.peekNewtons
        let pop = result.model.popNewtons
        let labels = result.recording.metadata.labels
        #expect(labels.count >= 9)

        // Grammar: peek [pop] release, over and over, in scan order.
        var i = 0
        var previous = -1
        while i < labels.count {
            let p = labels[i]
            try #require(p.event == .peek, "label \(i) should be a peek")
            // Presses are far enough apart that a release's scoring window
            // (late up to 100 ms) never reaches the next peek's (early 30 ms).
            if previous >= 0 {
                let rate = result.model.sampleRateHz
                #expect(p.sample - previous > max(3, Int(0.1 * rate)) + max(2, Int(0.03 * rate)))
            }
            #expect(truth[p.sample] >= peek && truth[p.sample - 1] < peek)
            i += 1
            if i < labels.count, labels[i].event == .pop {
                let s = labels[i].sample
                #expect(s >= p.sample)
                #expect(truth[s] >= pop && (s == p.sample || truth[s - 1] < pop))
                #expect(truth[p.sample..<s].allSatisfy { $0 < pop })
                i += 1
            }
            try #require(i < labels.count && labels[i].event == .release, "press at \(p.sample) has no release")
            let r = labels[i]
            let start = try #require(r.windowStart)
            #expect(start <= r.sample && start > p.sample)
            #expect(truth[r.sample] < peek / 2 && truth[r.sample - 1] >= peek / 2)
            #expect(truth[start] < peek && truth[start - 1] >= peek)
            #expect(truth[start...r.sample].allSatisfy { $0 < peek })
            // Nothing between peek and release falls below half the peek level.
            #expect(truth[p.sample..<r.sample].allSatisfy { $0 >= peek / 2 })
            previous = r.sample
            i += 1
        }
        // The labeller and an independent scan agree on where presses are.
        // (The synthesizer adds x/y on a panel of several cells, as the spec asks; the crossings are the labeller's.)
        let crossings = labels.map { Label(event: $0.event, sample: $0.sample, windowStart: $0.windowStart) }
        #expect(crossings == GroundTruth.labels(force: truth, peek: peek, pop: pop))
        #expect(labels.allSatisfy { ($0.x != nil) == (panel.cellCount > 1) })
    }

    @Test("taps give no labels; every other press gives at least a peek", arguments: PanelKind.allCases)
    func tapsAreSilent(panel: PanelKind) throws {
        let result = try Synthesizer.synthesize(options(panel))
        let labels = result.recording.metadata.labels
        let period = 1 / (result.model.sampleRateHz * (1 + result.model.clockError))
        #expect(result.script.presses.contains { $0.kind == .tap })
        for press in result.script.presses {
            let span = result.sourceScan.indices.filter {
                let t = Double(result.sourceScan[$0]) * period
                return t >= press.start && t <= press.end
            }
            guard let first = span.first, let last = span.last else { continue }
            let inside = labels.filter { $0.sample >= first && $0.sample <= last + 1 }
            if press.kind == .tap {
                #expect(inside.isEmpty, "a tap at \(press.start) s was labelled")
                #expect(press.peak < result.model.peekNewtons)
            } else {
                #expect(inside.contains { $0.event == .peek }, "a \(press.kind) at \(press.start) s has no peek")
            }
        }
    }

    @Test("held peeks stay between the levels despite tremor; tremor stays within 15 %")
    func tremorIsBounded() throws {
        for seed: UInt64 in 1...4 {
            let result = try Synthesizer.synthesize(SynthOptions(panel: .panel4, seed: seed, duration: 40))
            let peek = result.model.peekNewtons
            let pop = result.model.popNewtons
            for press in result.script.presses {
                for (a, b) in zip(press.keyframes, press.keyframes.dropFirst()) where a.level == b.level && a.level > 0 {
                    #expect(a.tremor <= 0.15)
                    for step in 0...200 {
                        let t = a.time + (b.time - a.time) * Double(step) / 200
                        let f = press.force(at: t)
                        #expect(f >= a.level * (1 - a.tremor) - 1e-9 && f <= a.level * (1 + a.tremor) + 1e-9)
                        if a.level > peek && a.level < pop { #expect(f > peek && f < pop) }
                    }
                }
            }
            #expect(result.script.presses.contains { $0.kind == .tremor })
        }
    }

    // MARK: - Format

    @Test("the recording reads back through Recording.load with each panel's layout",
          arguments: [(PanelKind.hx711at10, "hx711", 16, "le:u24/32>>0", 0, 2),
                      (.hx711at80, "hx711", 16, "le:u24/32>>0", 0, 2),
                      (.fsrADS1115, "ads1015", 16, "le:s16/16>>0", 4, 8),
                      (.panel4, "ad7124-4", 24, "be:s24/32>>8", 0, 4)])
    func readsBack(panel: PanelKind, device: String, scanSize: Int, format: String, firstIndex: Int, timestampIndex: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("r.json")
        let made = try Synthesizer.synthesize(options(panel)).recording
        try made.write(to: url)
        let loaded = try Recording.load(url)
        #expect(loaded.metadata == made.metadata)
        #expect(loaded.scans == made.scans)
        #expect(loaded.metadata.deviceName == device)
        #expect(loaded.layout.scanSize == scanSize)
        let force = loaded.metadata.forceChannels
        #expect(force.count == (panel == .panel4 ? 4 : 1))
        #expect(force.allSatisfy { $0.format.text == format })
        #expect(force.first?.index == firstIndex)
        #expect(loaded.metadata.timestampChannel?.index == timestampIndex)
        #expect(loaded.metadata.timestampChannel?.format.text == "le:s64/64>>0")
        let expected = Int((loaded.metadata.sampleRateHz * (panel == .hx711at10 ? 90 : 30)).rounded())
        #expect(loaded.scanCount <= expected && loaded.scanCount > expected * 99 / 100)
        if panel == .fsrADS1115 {
            guard case .curve(let points) = loaded.metadata.calibration!.force[0].mapping else {
                Issue.record("the FSR needs a curve calibration")
                return
            }
            #expect(points.count >= 14 && points.count <= 20)
        }
    }

    @Test("timestamps rise monotonically, at the nominal rate, with jitter", arguments: PanelKind.allCases)
    func timestampsMonotonic(panel: PanelKind) throws {
        let result = try Synthesizer.synthesize(options(panel, artefacts: []))
        let ts = try Decoded(result.recording).timestamps
        let period = 1e9 / result.model.sampleRateHz
        let steps = zip(ts, ts.dropFirst()).map { Double($1 - $0) }
        #expect(steps.allSatisfy { $0 > 0.9 * period && $0 < 1.1 * period })
        #expect(Set(steps).count > 10, "timestamps should jitter")
    }

    // MARK: - Artefacts

    @Test("with every artefact: gaps, spikes, clipping, drift and relaxation are in the data", arguments: PanelKind.allCases)
    func artefactsPresent(panel: PanelKind) throws {
        let result = try Synthesizer.synthesize(options(panel))
        let decoded = try Decoded(result.recording)
        let period = 1e9 / result.model.sampleRateHz

        // Dropped scans show as timestamp jumps, and only there.
        #expect(result.droppedScans > 0)
        let gaps = zip(decoded.timestamps, decoded.timestamps.dropFirst()).map { Double($1 - $0) / period }
        let jumped = gaps.map { ($0 - 1).rounded() }.reduce(0, +)
        #expect(Int(jumped) == result.droppedScans)

        // Spikes: single scans that stand out from both neighbours.
        #expect(!result.spikeScans.isEmpty)
        let f = decoded.force
        for s in result.spikeScans {
            let jump = abs(f[s] - (f[s - 1] + f[s + 1]) / 2)
            #expect(jump > 0.5 * result.model.peekNewtons, "spike at \(s) is \(jump) N")
            #expect(abs(f[s - 1] - f[s + 1]) < jump / 2)
        }

        // Saturation: the hard slam sits on the upper rail for a few scans, not long.
        let channels = result.recording.metadata.forceChannels
        let railed = zip(channels, decoded.raw).map { c, raw in raw.filter { $0 == c.format.maximumRaw }.count }.reduce(0, +)
        #expect(railed >= 1)
        #expect(Double(railed) <= 0.3 * result.model.sampleRateHz)
        #expect(result.script.presses.contains { $0.kind == .hardSlam })
    }

    @Test("with --artefacts none the data is the calibrated noise-free force", arguments: PanelKind.allCases)
    func artefactsAbsent(panel: PanelKind) throws {
        let result = try Synthesizer.synthesize(options(panel, artefacts: []))
        let decoded = try Decoded(result.recording)
        #expect(result.droppedScans == 0 && result.spikeScans.isEmpty)
        #expect(!result.script.presses.contains { $0.kind == .hardSlam })
        let channels = result.recording.metadata.forceChannels
        for (c, raw) in zip(channels, decoded.raw) {
            #expect(!raw.contains(c.format.maximumRaw) && !raw.contains(c.format.minimumRaw))
        }
        // Only quantisation (and an FSR curve's interpolation) separate the data from the truth.
        let tolerance = panel == .fsrADS1115 ? 0.04 : 0.001
        for (measured, truth) in zip(decoded.force, result.truth) {
            #expect(abs(measured - truth) <= tolerance + 0.02 * truth)
        }
        // The presses are the same as with every artefact, bar the hard slam's force.
        let noisy = try Synthesizer.synthesize(options(panel, artefacts: [.noise, .hum, .spikes, .drift, .relaxation, .drops]))
        #expect(noisy.script.presses.map(\.keyframes) == result.script.presses.map(\.keyframes))
    }

    @Test("relaxation leaves a positive residual after release, below a quarter of the peek level")
    func relaxationBounded() throws {
        for panel in PanelKind.allCases {
            let result = try Synthesizer.synthesize(options(panel, artefacts: [.relaxation]))
            let decoded = try Decoded(result.recording)
            let peek = result.model.peekNewtons
            var largest = 0.0
            for (measured, truth) in zip(decoded.force, result.truth) where truth == 0 {
                largest = max(largest, measured)
                #expect(measured > -0.002)
            }
            #expect(largest > 0.02 * peek && largest < 0.25 * peek, "\(panel): residual \(largest) N, peek \(peek) N")
        }
    }

    @Test("drift and hum move the unloaded panel only a little", arguments: PanelKind.allCases)
    func driftAndHumAreSmall(panel: PanelKind) throws {
        let result = try Synthesizer.synthesize(options(panel, artefacts: [.drift, .hum]))
        let decoded = try Decoded(result.recording)
        let idle = zip(decoded.force, result.truth).filter { $0.1 == 0 }.map(\.0)
        let spread = idle.max()! - idle.min()!
        #expect(spread > 0.0005)
        #expect(spread < 0.4 * result.model.peekNewtons)
    }

    // MARK: - Options

    @Test("bad options fail with a message that says what to do")
    func badOptions() throws {
        #expect(throws: SynthError.nonPositiveDuration(0)) { try Synthesizer.synthesize(SynthOptions(panel: .panel4, seed: 1, duration: 0)) }
        #expect(throws: SynthError.nonPositivePresses(0)) {
            try Synthesizer.synthesize(SynthOptions(panel: .panel4, seed: 1, duration: 10, presses: 0))
        }
        do {
            _ = try Synthesizer.synthesize(SynthOptions(panel: .hx711at80, seed: 1, duration: 10, presses: 50))
            Issue.record("50 presses in 10 s should not fit")
        } catch {
            #expect(error.description.contains("fewer --presses"))
        }
        #expect(PanelKind(rawValue: "hx711") == nil)
        if case .failure(let bad) = ArtefactSet.parse("noise,fizz") { #expect(bad.word == "fizz") } else {
            Issue.record("an unknown artefact name should be refused")
        }
        #expect(try ArtefactSet.parse("spikes,drops").get() == [.spikes, .drops])
        #expect(try ArtefactSet.parse("none").get() == [])
    }

    @Test("--presses gives exactly that many presses")
    func pressCount() throws {
        let result = try Synthesizer.synthesize(SynthOptions(panel: .hx711at80, seed: 3, duration: 40, presses: 5))
        #expect(result.script.presses.count == 5)
    }

    // MARK: - Shipped files

    @Test("the standard corpus has every panel and reads back")
    func corpus() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = try Synthesizer.writeCorpus(to: directory)
        #expect(urls.count == 12)
        var devices = Set<String>()
        for url in urls {
            let recording = try Recording.load(url)
            devices.insert(recording.metadata.deviceName)
            #expect(!recording.metadata.labels.isEmpty)
        }
        #expect(devices == ["hx711", "ads1015", "ad7124-4"])
    }

    @Test("the demo recording regenerates byte for byte")
    func demoIsReproducible() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let json = root.appendingPathComponent("hardware/recordings/\(Synthesizer.demo.stem).json")
        let made = try Synthesizer.synthesize(Synthesizer.demo.options).recording
        #expect(try Data(contentsOf: json) == Data(Synthesizer.metadataText(made).utf8))
        #expect(try [UInt8](Data(contentsOf: Recording.dataURL(forMetadata: json))) == made.scans)
        #expect(made.scans.count < 50_000)
    }
}
