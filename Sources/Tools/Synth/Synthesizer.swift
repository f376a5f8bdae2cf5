// Over 300 lines: the physical model rendering a script into scans, each artefact's physics applied in its order.
import Foundation
import ForceStageCore
import ForceStageFormats
import ForceStageFormatsURL

/// What to synthesize.
public struct SynthOptions: Sendable, Equatable {
    public var panel: PanelKind
    public var seed: UInt64
    /// Seconds of recording.
    public var duration: Double
    /// Presses wanted; nil fills the duration.
    public var presses: Int?
    public var artefacts: ArtefactSet
    /// The seed of the manufactured unit (zero offsets, gains, levels); nil uses `seed`.
    /// Two recordings with the same unit seed and different seeds are the same panel pressed differently.
    public var unitSeed: UInt64?
    /// What the presses are: the standard mix, or a calibration session.
    public var script: SynthScript
    /// Label at these levels, on the noise-free force as this calibration reads it,
    /// instead of at the model's own levels: what a classifier using that
    /// calibration and those levels must emit. Nil labels at the model's levels.
    public var labelCalibration: RecordingCalibration?
    /// Real-sensor physics and press shapes on top of the artefacts (none by default).
    public var scenarios: ScenarioSet

    public init(panel: PanelKind, seed: UInt64, duration: Double, presses: Int? = nil, artefacts: ArtefactSet = .all,
                unitSeed: UInt64? = nil, script: SynthScript = .standard, labelCalibration: RecordingCalibration? = nil,
                scenarios: ScenarioSet = []) {
        self.scenarios = scenarios
        self.panel = panel
        self.seed = seed
        self.duration = duration
        self.presses = presses
        self.artefacts = artefacts
        self.unitSeed = unitSeed
        self.script = script
        self.labelCalibration = labelCalibration
    }

    /// The `forcestage synth` arguments that reproduce these options.
    public var commandLine: String {
        var text = "forcestage synth --panel \(panel.rawValue) --seed \(seed) --duration \(JSON.format(duration))"
        if let presses { text += " --presses \(presses)" }
        if let unitSeed { text += " --unit-seed \(unitSeed)" }
        if case .calibrationSession(let masses) = script {
            text += " --script session --masses \(masses.map { JSON.format($0) }.joined(separator: ","))"
        }
        if !scenarios.isEmpty { text += " --scenario \(scenarios.text)" }
        return text + " --artefacts \(artefacts.text)"
    }
}

/// A synthesized recording with what went into it, for tests and inspection.
public struct SynthResult: Sendable {
    /// The recording: metadata with labels, and the raw scans.
    public var recording: Recording
    /// The unit of the panel that was modelled.
    public var model: PanelModel
    /// The presses.
    public var script: PressScript
    /// The noise-free total force (newtons) at each scan in the file: what the labels come from.
    public var truth: [Double]
    /// For each scan in the file, its position in the undropped stream.
    public var sourceScan: [Int]
    /// Scans (indices in the file) that carry a spike.
    public var spikeScans: [Int]
    /// Scans left out of the file.
    public var droppedScans: Int
    /// Per press of ``script``, the creep the fsr-creep scenario gave it: the
    /// amount (a fraction) and time constant (s) of `1 + a (1 - exp(-t / tau))`,
    /// `t` from the press's start (empty without that scenario).
    public var creep: [(amount: Double, tauSeconds: Double)] = []
}

/// Makes labelled `forcestage-recording/1` recordings from physical models of
/// the supported panels. Deterministic: the same options give the same bytes.
public enum Synthesizer {
    // Independent random streams, so that e.g. switching noise off does not
    // move the presses.
    private enum Stream: UInt64 { case panel = 1, script, drops, spikes, noise, drift, clock, scenario, slide }

    /// Synthesizes one recording.
    /// - Parameter progress: called now and then with the fraction of scans made (0..<1); it
    ///   does not change what is made.
    public static func synthesize(_ options: SynthOptions, progress: ((Double) -> Void)? = nil) throws(SynthError) -> SynthResult {
        guard options.duration > 0, options.duration.isFinite else { throw .nonPositiveDuration(options.duration) }
        if let n = options.presses, n < 1 { throw .nonPositivePresses(n) }
        let artefacts = options.artefacts
        let panelNumber = UInt64(PanelKind.allCases.firstIndex(of: options.panel)!)
        func stream(_ s: Stream) -> SeededRandom { SeededRandom(seed: options.seed, stream: panelNumber << 8 | s.rawValue) }

        var panelRandom = SeededRandom(seed: options.unitSeed ?? options.seed, stream: panelNumber << 8 | Stream.panel.rawValue)
        let model = PanelModel.make(options.panel, random: &panelRandom)
        let truePeriod = 1 / (model.sampleRateHz * (1 + model.clockError))
        var total = Int((options.duration * model.sampleRateHz).rounded())
        if !options.scenarios.isDisjoint(with: .multiCell) && model.cellCount < 2 {
            throw .needsCells(options.scenarios.intersection(.multiCell).text, panel: options.panel.rawValue)
        }
        var scriptRandom = stream(.script)
        var script: PressScript
        if case .calibrationSession(let masses) = options.script {
            // The session sets its own length: every step, then a quiet tail.
            script = try PressScript.calibrationSession(for: model, massesGrams: masses, random: &scriptRandom)
            total = Int(((script.presses.last!.end + 2) / truePeriod).rounded())
        } else {
            do {
                script = try PressScript.make(for: model, seconds: Double(total - 1) * truePeriod, count: options.presses,
                                              hardSlam: artefacts.contains(.saturation), scenarios: options.scenarios,
                                              random: &scriptRandom)
            } catch {
                // Report the duration that was asked for, not the converter's idea of it.
                switch error {
                case .tooShort(_, let minimum): throw .tooShort(options.duration, minimum: minimum)
                case .pressesDoNotFit(let n, let need, _): throw .pressesDoNotFit(n, needSeconds: need, haveSeconds: options.duration)
                default: throw error
                }
            }
        }
        if options.scenarios.contains(.sliding) && options.script == .standard {  // a session's masses stay put
            var random = stream(.slide)
            script.addSlides(on: model, random: &random)
        }
        // A session's length comes from its steps, not from --duration.
        let duration = options.script == .standard ? options.duration : Double(total) / model.sampleRateHz

        // Dropped scans: a reader that fell behind loses a block of scans now and then.
        var present = [Bool](repeating: true, count: total)
        if artefacts.contains(.drops) {
            var random = stream(.drops)
            let blocks = max(1, Int(duration / 15))
            let longest = max(1, min(12, Int(model.sampleRateHz * 0.02)))
            let margin = Int(model.sampleRateHz)
            for _ in 0..<blocks {
                let length = random.integer(1...longest)
                let at = random.integer(margin...max(margin, total - margin - length))
                for i in at..<min(total, at + length) { present[i] = false }
            }
        }
        let sourceScan = present.indices.filter { present[$0] }
        let times = sourceScan.map { Double($0) * truePeriod }
        let truth = times.map { script.force(at: $0) }
        var labels: [Label]
        if let at = options.labelCalibration {
            labels = GroundTruth.labels(force: calibratedTruth(times: times, script: script, model: model, calibration: at),
                                        peek: at.peekNewtons, pop: at.popNewtons)
        } else {
            labels = GroundTruth.labels(force: truth, peek: model.peekNewtons, pop: model.popNewtons)
        }
        if model.cellCount > 1 {
            // Where the finger pressed at the label's scan (the spec's labels x/y,
            // on a multi-cell panel: the bar's too, whose y is its middle line), 4
            // decimals; a sliding press has moved on by then.
            for i in labels.indices {
                let t = times[labels[i].sample]
                guard let p = script.pressIndex(at: t) else { continue }
                let at = script.presses[p].position(at: t)
                labels[i].x = (at.x * 10_000).rounded() / 10_000
                labels[i].y = (at.y * 10_000).rounded() / 10_000
            }
        }

        // Spikes: single scans, kept clear of the labelled crossings so that
        // a detection's latency is never decided by a spike.
        var spikes: [(scan: Int, cell: Int, counts: Double)] = []
        if artefacts.contains(.spikes) {
            var random = stream(.spikes)
            let wanted = max(1, Int(duration / 8))
            let clearance = max(4, Int(model.sampleRateHz * 0.05))
            var attempts = 0
            while spikes.count < wanted && attempts < 1000 {
                attempts += 1
                let scan = random.integer(2...(sourceScan.count - 3))
                let cell = random.integer(0...(model.cellCount - 1))
                let range = model.spikeCounts[cell]
                let sign: Double = model.kind == .fsrADS1115 || random.chance(0.6) ? 1 : -1
                let height = sign * random.uniform(range.lowerBound, range.upperBound)
                let nearLabel = labels.contains { abs($0.sample - scan) <= clearance || abs(($0.windowStart ?? $0.sample) - scan) <= clearance }
                let nearSpike = spikes.contains { abs($0.scan - scan) <= 3 }
                if nearLabel || nearSpike { continue }
                spikes.append((scan, cell, height))
            }
            spikes.sort { $0.scan < $1.scan }
        }

        // Thermal drift: a slow swing plus a slope, per cell.
        var driftRandom = stream(.drift)
        let drifts = (0..<model.cellCount).map { cell -> (amplitude: Double, period: Double, phase: Double, slope: Double) in
            let amplitude = model.driftCounts[cell] * driftRandom.uniform(0.5, 1)
            let period = driftRandom.uniform(40, 200)
            let phase = driftRandom.uniform(0, 2 * .pi)
            let slope = model.driftCounts[cell] * driftRandom.uniform(-0.5, 0.5) / max(duration, 60)
            return (amplitude, period, phase, slope)
        }
        let humPhase = driftRandom.uniform(0, 2 * .pi)

        let physics = ScenarioPhysics(options.scenarios, model: model, script: script, duration: duration,
                                      random: stream(.scenario))

        var clock = stream(.clock)
        let bootNs = (clock.uniform(20, 3000) * 1e9).rounded()

        var noise = stream(.noise)
        let layout = try! ScanLayout(model.channels.map { (index: $0.index, format: $0.format) })
        var bytes = [UInt8](repeating: 0, count: layout.scanSize * sourceScan.count)
        var cellForce = [Double](repeating: 0, count: model.cellCount)
        var spikeCursor = 0
        var relaxFrom = 0  // first press whose relaxation may still matter
        bytes.withUnsafeMutableBytes { raw in
            for (row, t) in times.enumerated() {
                if let progress, row & 4095 == 0 { progress(Double(row) / Double(times.count)) }
                // Mechanical: the finger's force, plus the panel relaxing after earlier presses.
                for c in 0..<cellForce.count { cellForce[c] = 0 }
                if let p = script.pressIndex(at: t) {
                    let press = script.presses[p]
                    let shares = model.shares(at: press.position(at: t))
                    let f = truth[row]
                    for c in 0..<shares.count { cellForce[c] += f * shares[c] }
                }
                if artefacts.contains(.relaxation) {
                    while relaxFrom < script.presses.count && script.presses[relaxFrom].end + 12 < t { relaxFrom += 1 }
                    var p = relaxFrom
                    while p < script.presses.count && script.presses[p].start < t {
                        let press = script.presses[p]
                        let r = press.relaxation(at: t)
                        if r > 0 {
                            let shares = model.shares(at: press.position(at: t))  // where it lifted off
                            for c in 0..<shares.count { cellForce[c] += r * shares[c] }
                        }
                        p += 1
                    }
                }
                // Real-sensor physics (scenarios): what the sensor makes of the force.
                let state = physics.apply(t: t, pressIndex: script.pressIndex(at: t), cellForce: &cellForce)
                let scanBase = raw.baseAddress! + row * layout.scanSize
                for c in 0..<model.cellCount {
                    // Electrical: the converter sees counts plus its own disturbances.
                    var counts = model.transducers[c].counts(cellForce[c])
                    // At its floor or against a stop the sensor reads one exact word.
                    let flat = state != .live
                    if flat { counts = counts.rounded() }
                    if artefacts.contains(.noise) && !flat { counts += noise.gaussian() * model.noiseCounts[c] }
                    if physics.extraNoiseCounts[c] > 0 && !flat { counts += physics.extraNoiseCounts[c] * noise.gaussian() }
                    if artefacts.contains(.hum) && !flat { counts += model.humCounts[c] * sin(2 * .pi * model.mainsHz * t + humPhase) }
                    if artefacts.contains(.drift) && !flat {
                        let d = drifts[c]
                        counts += d.amplitude * (sin(2 * .pi * t / d.period + d.phase) - sin(d.phase)) + d.slope * t
                    }
                    while spikeCursor < spikes.count && spikes[spikeCursor].scan < row { spikeCursor += 1 }
                    var s = spikeCursor
                    while s < spikes.count && spikes[s].scan == row {
                        if spikes[s].cell == c && !flat { counts += spikes[s].counts }
                        s += 1
                    }
                    // A floor or a stop bounds every reading, noise included.
                    counts = physics.bound(counts, cell: c)
                    let format = model.channels[c].format
                    let value = Int64(max(Double(format.minimumRaw), min(Double(format.maximumRaw), counts.rounded())))
                    let slot = layout.slot(forIndex: model.channels[c].index)!
                    format.encode(value, to: scanBase + layout[slot].offset)
                }
                let jitter = max(-3, min(3, clock.gaussian())) * model.timestampJitterNs
                let ns = Int64(bootNs + (t * 1e9).rounded() + model.timestampLatencyNs.rounded() + jitter.rounded())
                let ts = model.channels[model.channels.count - 1]
                ts.format.encode(ns, to: scanBase + layout[layout.slot(forIndex: ts.index)!].offset)
            }
        }

        // The FSR drawn here creeps only under the fsr-creep scenario: without
        // it, its calibration says the sensor does not creep (the default for
        // a curve is an FSR's creep, which the classifier compensates).
        var calibration = model.calibration
        let curve = calibration.force.contains { if case .curve = $0.mapping { return true } else { return false } }
        if curve && !options.scenarios.contains(.fsrCreep) { calibration.creepAmount = 0 }
        let metadata = RecordingMetadata(
            deviceName: model.deviceName, deviceLabel: options.unitSeed.map { "synth-\(options.panel.rawValue)-unit\($0)" } ?? "synth-\(options.panel.rawValue)-seed\(options.seed)",
            sampleRateHz: model.sampleRateHz, timestampClock: "monotonic", channels: model.channels,
            calibration: calibration, labels: labels)
        let recording = try! Recording(metadata: metadata, scans: bytes)
        return SynthResult(recording: recording, model: model, script: script, truth: truth, sourceScan: sourceScan,
                           spikeScans: spikes.map(\.scan), droppedScans: total - sourceScan.count,
                           creep: options.scenarios.contains(.fsrCreep) ? physics.creep.map { ($0.amount, $0.tau) } : [])
    }

    /// The noise-free press force as `calibration` reads it: each cell's share
    /// of the force through its transducer to counts, then back to newtons by
    /// the calibration, summed.
    static func calibratedTruth(times: [Double], script: PressScript, model: PanelModel,
                                calibration: RecordingCalibration) -> [Double] {
        let mappings = model.channels.prefix(model.cellCount).map { channel in
            calibration.force.first { $0.channel == channel.id }?.mapping
        }
        return times.map { t in
            var shares = [Double](repeating: 0, count: model.cellCount)
            var f = 0.0
            if let p = script.pressIndex(at: t) {
                let press = script.presses[p]
                shares = model.shares(at: press.position(at: t))
                f = press.force(at: t)
            }
            var total = 0.0
            for c in 0..<model.cellCount {
                guard let mapping = mappings[c] else { continue }
                let counts = model.transducers[c].counts(f * shares[c]).rounded()
                total += mapping.newtons(forRaw: counts)
            }
            return total
        }
    }

    /// The metadata text exactly as ``Recording/write(to:)`` writes it.
    public static func metadataText(_ recording: Recording) -> String {
        recording.metadata.json().rendered(indent: 2) + "\n"
    }

    /// The fixed corpus used by tests and benchmarks: every panel of
    /// ``PanelKind/corpusKinds``, two seeds with every artefact and one clean,
    /// named `PANEL-sSEED[-clean]`.
    public static let standardCorpus: [(stem: String, options: SynthOptions)] = {
        var list: [(String, SynthOptions)] = []
        let seconds: [PanelKind: Double] = [.hx711at10: 180, .hx711at80: 60, .fsrADS1115: 30, .panel4: 30]
        for panel in PanelKind.corpusKinds {
            for seed: UInt64 in [1, 2, 3] {
                let clean = seed == 3
                list.append(("\(panel.rawValue)-s\(seed)\(clean ? "-clean" : "")",
                             SynthOptions(panel: panel, seed: seed, duration: seconds[panel]!, artefacts: clean ? [] : .all)))
            }
        }
        return list
    }()

    /// The scenario corpus: every panel of ``PanelKind/corpusKinds``, two seeds, every artefact
    /// and the given scenarios, 120 s each (600 s at 10 scans/s), named
    /// `PANEL-scenarios-sSEED`. FSR creep and the zero floor go only to the
    /// FSR panel and vibration only to load cells (an FSR cannot read below zero);
    /// sliding only to the four-cell panel.
    public static func scenarioCorpus(_ scenarios: ScenarioSet = .all) -> [(stem: String, options: SynthOptions)] {
        var list: [(String, SynthOptions)] = []
        for panel in PanelKind.corpusKinds {
            // An FSR reads no force below zero: it takes the floor and creep, and
            // no vibration (which must swing below zero); load cells the reverse.
            var set = scenarios
            if panel == .fsrADS1115 { set.remove(.vibration) } else { set.subtract([.fsrCreep, .zeroFloor]) }
            // Slides need several cells; a single-cell panel that only a slide
            // was asked of is left out rather than written plain.
            if panel != .panel4 {
                set.subtract(.multiCell)
                if set.isEmpty && !scenarios.isDisjoint(with: .multiCell) { continue }
            }
            for seed: UInt64 in [11, 12] {
                list.append(("\(panel.rawValue)-scenarios-s\(seed)",
                             SynthOptions(panel: panel, seed: seed, duration: panel == .hx711at10 ? 600 : 120, artefacts: .all,
                                          scenarios: set)))
            }
        }
        return list
    }

    /// The demo recording shipped in `hardware/recordings/`.
    public static let demo = (stem: "demo-hx711", options: SynthOptions(panel: .hx711at80, seed: 7, duration: 30, presses: 6, artefacts: .all))

    /// Writes the standard corpus into `directory` (created if missing).
    /// - Returns: the `.json` files written.
    public static func writeCorpus(to directory: URL, scenarios: ScenarioSet = []) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        for entry in scenarios.isEmpty ? standardCorpus : scenarioCorpus(scenarios) {
            let url = directory.appendingPathComponent(entry.stem + ".json")
            try synthesize(entry.options).recording.write(to: url)
            written.append(url)
        }
        return written
    }
}
