// Over 300 lines: one suite of session scenarios sharing its stream and held-back helpers.
import Foundation
import TestSupport
import Testing
import ForceStageCore
@testable import ForceStageFormats
@testable import ForceStageTools

/// Expects each saved channel's gain within 1 % of the model's (both straight lines).
func expectGainsWithinOnePercent(_ saved: [ForceChannelCalibration], model: [ForceChannelCalibration], _ label: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
    for (c, truth) in zip(saved, model) {
        guard case .linear(_, let gain) = c.mapping, case .linear(_, let line) = truth.mapping else {
            Issue.record("\(label) \(c.channel): not linear", sourceLocation: sourceLocation)
            continue
        }
        #expect(abs(gain / line - 1) < 0.01, "\(label) \(c.channel): \(gain) N/count vs the model's \(line)", sourceLocation: sourceLocation)
    }
}

/// Runs a calibration session over a recording's scans, as `calibrate --from-recording` does.
func runSession(_ recording: Recording, masses: [Double], curve: Bool = false) throws -> (CalibrationSession, [SessionNote]) {
    let meta = recording.metadata
    let force = meta.forceChannels
    var plan = CalibrationPlan(channels: force.map(\.id), channelMaximumRaw: force.map { $0.format.maximumRaw }, sampleRateHz: meta.sampleRateHz)
    plan.channelMinimumRaw = force.map { $0.format.minimumRaw }
    plan.massCount = masses.count
    plan.curve = curve
    var session = CalibrationSession(plan: plan)
    for (i, g) in masses.enumerated() { try session.setMass(i, grams: g) }
    var notes = session.start()
    let layout = recording.layout
    let slots = force.map { layout.slot(forIndex: $0.index)! }
    let ts = layout.slot(forIndex: meta.timestampChannel!.index)!
    recording.scans.withUnsafeBytes { raw in
        for i in 0..<recording.scanCount where session.step != .done {
            let base = raw.baseAddress! + i * layout.scanSize
            let values = slots.map { layout[$0].format.decode(base + layout[$0].offset) }
            notes += session.handle(.scan(values, sample: i, timestampNs: layout[ts].format.decode(base + layout[ts].offset)))
        }
    }
    if session.step == .verify { notes += session.finishVerification(atScan: recording.scanCount) }
    return (session, notes)
}

/// Synthesizes a calibration session of `panel` (`seed`, `unit`) with `masses`
/// set down and runs it, as `calibrate --from-recording` does; `recording`
/// transforms the recording first (e.g. cells wired with negative gain).
func runSynthesizedSession(_ panel: PanelKind, seed: UInt64 = 1, unit: UInt64, masses: [Double] = [500], curve: Bool = false,
                           scenarios: ScenarioSet = [], recording transform: (Recording) throws -> Recording = { $0 })
    throws -> (synth: SynthResult, session: CalibrationSession, notes: [SessionNote]) {
    let synth = try Synthesizer.synthesize(SynthOptions(panel: panel, seed: seed, duration: 1, unitSeed: unit,
                                                        script: .calibrationSession(massesGrams: masses), scenarios: scenarios))
    let (s, notes) = try runSession(try transform(synth.recording), masses: masses, curve: curve)
    return (synth, s, notes)
}

/// The noise-free force of a press script between two times, sampled finely.
private func forceRange(_ press: Press, from: Double, to: Double) -> ClosedRange<Double> {
    var low = Double.infinity, high = -Double.infinity
    var t = from
    while t <= to {
        let f = press.force(at: t)
        low = min(low, f)
        high = max(high, f)
        t += 0.002
    }
    return low...high
}

@Suite("Calibration session")
struct CalibrationSessionTests {
    /// Checks a calibrated profile on a held-back recording of the same unit:
    /// its levels separate the held-back presses, and it scores F1 1.0 against
    /// labels at its own levels.
    func checkHeldBack(_ panel: PanelKind, unit: UInt64, result: CalibrationResult, duration: Double) throws -> Double {
        let calibration = RecordingCalibration(force: result.calibration, peekNewtons: Double(result.settings.peekNewtons),
                                               popNewtons: Double(result.settings.popNewtons))
        let held = try Synthesizer.synthesize(SynthOptions(panel: panel, seed: 99, duration: duration, artefacts: .all,
                                                           unitSeed: unit, labelCalibration: calibration))
        let peek = Double(result.settings.peekNewtons), pop = Double(result.settings.popNewtons)
        // The levels separate the held-back presses (noise-free force, which the calibration reads to within a few per cent).
        for p in held.script.presses {
            let whole = forceRange(p, from: p.start, to: p.end)
            switch p.kind {
            case .tap:
                #expect(whole.upperBound < 0.9 * peek, "a tap of \(whole.upperBound) N must stay under peek \(peek)")
            case .peek, .tremor:
                let hold = forceRange(p, from: p.keyframes[1].time, to: p.keyframes[2].time)
                #expect(hold.lowerBound > 1.05 * peek && hold.upperBound < 0.99 * pop, "a \(p.kind) held \(hold) N; levels \(peek)/\(pop)")
            case .pop, .slam, .hardSlam:
                #expect(whole.upperBound > 1.02 * pop, "a \(p.kind) reached \(whole.upperBound) N; pop \(pop)")
            default:
                break
            }
        }
        // The creep (an FSR's, 0 where its masses held flat) is the session's own measurement.
        let profile = result.profile(name: "t", matchName: nil, matchLabel: nil, file: "t.toml")
        let setup = try profile.setup(for: held.recording.metadata, file: "held")
        let s = score(events: replay(held.recording, setup: setup).events, labels: held.recording.metadata.labels, sampleRateHz: setup.sampleRateHz)
        #expect(s.f1 == 1.0, "F1 \(s.f1): false \(s.falseEvents.map { "\($0.kind.name)@\($0.sample)" }) missed \(s.misses.map { "\($0.event.name)@\($0.sample)" })")
        return s.f1
    }

    @Test("An HX711 session: scale within 0.3 %, levels between the model's light and firm presses, F1 1.0 held back", arguments: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 21, 22, 23] as [UInt64])
    func hx711Session(unit: UInt64) throws {
        let (session, s, notes) = try runSynthesizedSession(.hx711at80, unit: unit)
        let result = try #require(s.result, "notes: \(notes)")
        guard case .linear(_, let scale) = result.calibration[0].mapping,
              case .linear(_, let truth) = session.model.calibration.force[0].mapping else { Issue.record("not linear"); return }
        #expect(abs(scale / truth - 1) < 0.003, "scale \(scale) vs the model's \(truth)")
        // The verification presses (light, firm, tap, light, firm) classify as they should.
        let kinds = notes.compactMap { n -> String? in if case .event(let e) = n, e.kind.isTransition { return e.kind.name }; return nil }
        #expect(kinds == ["peek", "release", "peek", "pop", "release", "peek", "release", "peek", "pop", "release"], "\(kinds)")
        // Every recommended value has its one line, naming the measured numbers.
        #expect(result.reasons.count >= 6 && result.reasons.allSatisfy { !$0.contains("\n") })
        #expect(result.reasons[0].hasPrefix("peek \(fixed(Double(result.settings.peekNewtons), 2)) N: ") && result.reasons[0].contains("noise"))
        _ = try checkHeldBack(.hx711at80, unit: unit, result: result, duration: 90)
    }

    @Test("An FSR session with four masses makes a monotone curve through them and scores F1 1.0 held back")
    func fsrSession() throws {
        let masses = [50.0, 100, 200, 500]
        let (session, s, notes) = try runSynthesizedSession(.fsrADS1115, unit: 5, masses: masses, curve: true)
        let result = try #require(s.result, "notes: \(notes)")
        guard case .curve(let points) = result.calibration[0].mapping else { Issue.record("not a curve"); return }
        #expect(points.count == masses.count + 2, "zero, each mass, and the rail")
        guard case .fsr(let divider) = session.model.transducers[0] else { return }
        // Each mass point reads its own force back to within 2 %.
        for (g, p) in zip(masses, points.dropFirst()) {
            let truth = divider.newtons(atCounts: p.raw)
            #expect(abs(truth / (g / 1000 * standardGravity) - 1) < 0.02, "\(g) g at raw \(p.raw): the FSR says \(truth) N")
        }
        // The unit creeps only under the fsr-creep scenario: its masses held
        // flat, and the session says the FSR does not creep.
        #expect(result.settings.creepAmount == 0, "creep \(String(describing: result.settings.creepAmount)): \(result.reasons.last ?? "")")
        _ = try checkHeldBack(.fsrADS1115, unit: 5, result: result, duration: 40)
    }

    @Test("An FSR whose masses creep: the session fits the creep's amount and time constant near those synthesized, and the profile states them",
          arguments: [1, 2, 3, 4] as [UInt64])
    func fsrCreepSession(seed: UInt64) throws {
        let masses = [50.0, 100, 200, 500]
        let (synth, s, notes) = try runSynthesizedSession(.fsrADS1115, seed: seed, unit: 5, masses: masses, curve: true, scenarios: .fsrCreep)
        let result = try #require(s.result, "notes: \(notes)")
        // The masses are the script's first presses; each drew its own creep (5-14 %, 1-3 s).
        #expect(synth.script.presses.prefix(masses.count).allSatisfy { $0.kind == .mass })
        let drawn = Array(synth.creep.prefix(masses.count))
        try #require(drawn.count == masses.count)
        func median(_ x: [Double]) -> Double { let v = x.sorted(); return (v[1] + v[2]) / 2 }
        let amount = Double(try #require(result.settings.creepAmount, "no creep measured: \(result.reasons)"))
        let tau = Double(result.settings.creepMilliseconds) / 1000
        let trueAmount = median(drawn.map(\.amount)), trueTau = median(drawn.map(\.tauSeconds))
        // Within 2 points of amount and 20 % of the time constant (seeds 1-10 came
        // within 1.7 points and 4 %): the session reads each hold in newtons along
        // a law through the weighed points (the FSR's true law is not known to it;
        // it under-reads the rise a little), from the scan its activity detector saw
        // the load come (a few scans after the press started), over 3-4 s of hold
        // with the ADC's noise, and the median of four holds is not the median of
        // the four draws.
        #expect(abs(amount - trueAmount) < 0.02, "amount \(amount) vs synthesized \(trueAmount) (\(drawn)); \(result.reasons.last ?? "")")
        #expect(abs(tau / trueTau - 1) < 0.2, "time constant \(tau) s vs synthesized \(trueTau) s (\(drawn)); \(result.reasons.last ?? "")")
        // The profile writes them, and reads them back.
        let text = result.profile(name: "t", matchName: nil, matchLabel: nil, file: "t.toml").tomlText(header: [])
        #expect(text.contains("creep_amount = \(Float(amount))") && text.contains("creep_ms = \(result.settings.creepMilliseconds)"), "\(text)")
        #expect(result.reasons.last?.hasPrefix("creep ") == true)
    }

    @Test("A four-cell panel is calibrated cell by cell: each gain within 1 % of the model's, positions at the corners, F1 1.0 held back",
          arguments: [9, 3, 17] as [UInt64])
    func panel4Session(unit: UInt64) throws {
        let (session, s, notes) = try runSynthesizedSession(.panel4, unit: unit)
        let result = try #require(s.result, "notes: \(notes)")
        #expect(result.calibration.count == 4)
        expectGainsWithinOnePercent(result.calibration, model: session.model.calibration.force, "panel4 unit \(unit)")
        #expect(result.calibration.map(\.position) == [PlatePoint(x: 0, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0, y: 1), PlatePoint(x: 1, y: 1)])
        // The check on the middle, which no placement used, read the mass back.
        let check = notes.compactMap { n -> String? in if case .measured(.check, let text) = n { return text }; return nil }
        #expect(check.count == 1 && check[0].contains("on the check spot read"), "\(notes)")
        _ = try checkHeldBack(.panel4, unit: unit, result: result, duration: 40)
    }

    /// Sessions of a bar (two cells) and a triangle (three): seed 1 for the bar,
    /// seed 2 for the triangle (seed 1's, drifting about 2800 counts/s, are in
    /// `DriftingCalibrationTests`).
    static let smallPanelSessions: [(PanelKind, UInt64, UInt64)] = [
        (.panel2, 1, 3), (.panel2, 1, 9), (.panel2, 1, 17), (.panel3, 2, 3), (.panel3, 2, 9), (.panel3, 2, 17),
    ]

    @Test("Two- and three-cell panels are calibrated cell by cell: each gain within 1 % of the model's, standard positions, the check passes, F1 1.0 held back",
          arguments: 0..<6)
    func smallPanelSession(index: Int) throws {
        let (panel, seed, unit) = Self.smallPanelSessions[index]
        let (session, s, notes) = try runSynthesizedSession(panel, seed: seed, unit: unit)
        let result = try #require(s.result, "\(panel.rawValue) unit \(unit): \(notes)")
        #expect(result.calibration.count == panel.cellCount)
        expectGainsWithinOnePercent(result.calibration, model: session.model.calibration.force, "\(panel.rawValue) unit \(unit)")
        let standard = try #require(CellPositions.standard(forCells: panel.cellCount))
        #expect(result.calibration.map(\.position) == (0..<standard.count).map { standard[$0] })
        #expect(notes.contains(.started(.cell(panel.cellCount - 1))) && !notes.contains(.started(.cell(panel.cellCount))))
        let check = notes.compactMap { n -> String? in if case .measured(.check, let text) = n { return text }; return nil }
        #expect(check.count == 1 && check[0].contains("on the check spot read"), "\(notes)")
        #expect(!notes.contains { if case .problem = $0 { return true }; return false }, "\(notes)")
        _ = try checkHeldBack(panel, unit: unit, result: result, duration: 40)
    }

    /// `recording` with the raw words of the force channels `cells` inverted
    /// within their bits (the rails swap exactly): those cells wired with
    /// negative gain, so a load lowers their counts. Its calibration is dropped.
    static func negativeGain(_ recording: Recording, cells: Set<Int>) throws -> Recording {
        var scans = recording.scans
        let layout = recording.layout
        let force = recording.metadata.forceChannels
        scans.withUnsafeMutableBytes { raw in
            for i in 0..<recording.scanCount {
                for c in cells {
                    let ch = layout[layout.slot(forIndex: force[c].index)!]
                    let p = raw.baseAddress! + i * layout.scanSize + ch.offset
                    let v = ch.format.decode(UnsafeRawPointer(p))
                    ch.format.encode(ch.format.signed ? ~v : ch.format.maximumRaw - v, to: p)
                }
            }
        }
        var metadata = recording.metadata
        metadata.calibration = nil
        return try Recording(metadata: metadata, scans: scans)
    }

    /// The verification presses' transitions, in order.
    static func verified(_ notes: [SessionNote]) -> [String] {
        notes.compactMap { n -> String? in if case .event(let e) = n, e.kind.isTransition { return e.kind.name }; return nil }
    }

    @Test("A load cell wired with negative gain calibrates like its twin: the scale negative, the levels and the verified presses the same",
          arguments: [1, 22] as [UInt64])
    func negativeGainSession(unit: UInt64) throws {
        let (_, twin, twinNotes) = try runSynthesizedSession(.hx711at80, unit: unit)
        let (_, s, notes) = try runSynthesizedSession(.hx711at80, unit: unit) { try Self.negativeGain($0, cells: [0]) }
        let result = try #require(s.result, "notes: \(notes)")
        let positive = try #require(twin.result, "notes: \(twinNotes)")
        guard case .linear(let zero, let scale) = result.calibration[0].mapping,
              case .linear(let twinZero, let twinScale) = positive.calibration[0].mapping else { Issue.record("not linear"); return }
        #expect(scale < 0 && abs(scale / -twinScale - 1) < 0.001, "scale \(scale) vs the twin's \(twinScale)")
        // The zero mirrors the twin's to within a thousandth of a newton (the unloaded step's fit rounds either way).
        #expect(abs((zero - (16_777_215 - twinZero)) * scale) < 0.001, "zero \(zero) vs the twin's \(twinZero) inverted")
        #expect(abs(result.settings.peekNewtons / positive.settings.peekNewtons - 1) < 0.01)
        #expect(abs(result.settings.popNewtons / positive.settings.popNewtons - 1) < 0.01)
        #expect(Self.verified(notes) == ["peek", "release", "peek", "pop", "release", "peek", "release", "peek", "pop", "release"],
                "\(Self.verified(notes))")
    }

    @Test("A four-cell panel with cells wired with negative gain: each gain within 2 % of the model's, with its sign; the check passes",
          arguments: [[1], [0, 1, 2, 3]] as [[Int]])
    func negativeGainCells(cells: [Int]) throws {
        let (session, s, notes) = try runSynthesizedSession(.panel4, unit: 9) { try Self.negativeGain($0, cells: Set(cells)) }
        let result = try #require(s.result, "notes: \(notes)")
        for (c, (cal, truth)) in zip(result.calibration, session.model.calibration.force).enumerated() {
            guard case .linear(_, let gain) = cal.mapping, case .linear(_, let model) = truth.mapping else { Issue.record("not linear"); continue }
            let expected = cells.contains(c) ? -model : model
            // 2 %, the check's own tolerance: before the wiring is known, the drift
            // around each placement is shared equally, which a reversed cell takes
            // with the wrong sign (1.7 % on the reversed cell of this unit, which drifts about 1000 counts/s).
            #expect(abs(gain / expected - 1) < 0.02, "\(cal.channel): \(gain) N/count vs \(expected)")
        }
        let check = notes.compactMap { n -> String? in if case .measured(.check, let text) = n { return text }; return nil }
        #expect(check.count == 1 && check[0].contains("on the check spot read"), "\(notes)")
        #expect(Self.verified(notes).filter { $0 == "peek" }.count >= 4, "\(Self.verified(notes))")
    }

    @Test("An FSR read so that force lowers the counts: the curve runs down to the lower rail, ascending in raw, through each mass")
    func negativeGainCurve() throws {
        let masses = [50.0, 100, 200, 500]
        let (session, s, notes) = try runSynthesizedSession(.fsrADS1115, unit: 5, masses: masses, curve: true) {
            try Self.negativeGain($0, cells: [0])
        }
        let result = try #require(s.result, "notes: \(notes)")
        guard case .curve(let points) = result.calibration[0].mapping, case .fsr(let divider) = session.model.transducers[0] else {
            Issue.record("not a curve"); return
        }
        #expect(points.count == masses.count + 2, "the rail, each mass, and zero")
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.raw < $1.raw && $0.newtons > $1.newtons }, "\(points)")
        // The ADS1115's s16 word inverted: ~raw.
        for (g, p) in zip(masses.reversed(), points.dropFirst().dropLast()) {
            let truth = divider.newtons(atCounts: Double(~Int64(p.raw)))
            #expect(abs(truth / (g / 1000 * standardGravity) - 1) < 0.02, "\(g) g at raw \(p.raw): the FSR says \(truth) N")
        }
        #expect(Self.verified(notes).filter { $0 == "peek" }.count >= 4, "\(Self.verified(notes))")
    }

    @Test("A mass of zero or less is refused with a message that says what to do")
    func badMass() throws {
        var s = CalibrationSession(plan: CalibrationPlan(channels: ["voltage0"], channelMaximumRaw: [16_777_215], sampleRateHz: 80))
        for g in [0.0, -5, .nan, .infinity] {
            #expect(throws: CalibrationInputError.self) { try s.setMass(0, grams: g) }
        }
        #expect(throws: CalibrationInputError.badMass(-5)) { try s.setMass(0, grams: -5) }
        do { try s.setMass(0, grams: -5) } catch { #expect(error.description.contains("above zero grams")) }
        #expect(throws: CalibrationInputError.noSuchMass(3)) { try s.setMass(3, grams: 100) }
    }

    /// A hand-made stream: `seconds` of `newtons(t)` on a linear cell, with deterministic noise.
    static func feed(_ s: inout CalibrationSession, from start: Int, seconds: Double, rate: Double = 80,
                     _ newtons: (Double) -> Double) -> (notes: [SessionNote], next: Int) {
        var notes: [SessionNote] = []
        let n = Int(seconds * rate)
        for i in 0..<n {
            let t = Double(i) / rate
            let noise = Double((start + i) * 7919 % 13) - 6  // ±6 counts
            let raw = 8_000_000 + Int64((newtons(t) * 400_000 + noise * 300).rounded())
            notes += s.feed([raw], sample: start + i, timestampNs: Int64(start + i) * 12_500_000)
        }
        return (notes, start + n)
    }

    /// Presses of `level` newtons held a second, every 2.5 s.
    static func presses(_ level: Double, count: Int) -> (Double) -> Double {
        { t in
            let k = Int(t / 2.5), u = t - Double(k) * 2.5
            guard k < count else { return 0 }
            return u < 0.2 ? 0 : (u < 0.4 ? level * (u - 0.2) / 0.2 : (u < 1.4 ? level * (1 + 0.03 * sin(40 * u)) : (u < 1.6 ? level * (1.6 - u) / 0.2 : 0)))
        }
    }

    /// A session through the unloaded step and a 500 g mass.
    static func calibrated() -> (CalibrationSession, Int) {
        var s = CalibrationSession(plan: CalibrationPlan(channels: ["voltage0"], channelMaximumRaw: [16_777_215], sampleRateHz: 80))
        try! s.setMass(0, grams: 500)
        _ = s.start()
        var at = feed(&s, from: 0, seconds: 4) { _ in 0 }.next
        at = feed(&s, from: at, seconds: 6) { t in t < 0.5 ? 9.80665 * 0.5 * t / 0.5 : (t < 4 ? 4.903325 : (t < 4.5 ? 4.903325 * (4.5 - t) / 0.5 : 0)) }.next
        #expect(s.step == .light)
        return (s, at)
    }

    @Test("Presses that never rise above the noise: the step says so and starts again")
    func pressesInNoise() {
        var (s, at) = Self.calibrated()
        let r = Self.feed(&s, from: at, seconds: 35, Self.presses(0.02, count: 14))
        at = r.next
        let problems = r.notes.compactMap { n -> String? in if case .problem(.light, let text, .light) = n { return text }; return nil }
        #expect(problems.count == 1 && problems[0].contains("no press above the noise"), "\(r.notes)")
        #expect(s.step == .light)
    }

    @Test("Light and firm presses that overlap: no level separates them, the light step is offered again")
    func overlapping() {
        var (s, at) = Self.calibrated()
        at = Self.feed(&s, from: at, seconds: 13, Self.presses(1.5, count: 5)).next
        #expect(s.step == .firm)
        let r = Self.feed(&s, from: at, seconds: 13, Self.presses(1.6, count: 5))
        let problem = r.notes.compactMap { n -> String? in if case .problem(_, let text, .light) = n { return text }; return nil }
        #expect(problem.count == 1 && problem[0].contains("overlap"), "\(r.notes)")
        #expect(s.step == .light && s.result == nil)
        // Offered again, clearly different presses give a result.
        at = Self.feed(&s, from: r.next, seconds: 13, Self.presses(1.5, count: 5)).next
        at = Self.feed(&s, from: at, seconds: 13, Self.presses(4.0, count: 5)).next
        #expect(s.result != nil)
        let peek = Double(s.result?.settings.peekNewtons ?? 0), pop = Double(s.result?.settings.popNewtons ?? 0)
        #expect(peek > 0.9 && peek < 1.5 && pop > 1.6 && pop < 4.0, "peek \(peek) pop \(pop)")
    }

    @Test("A tap during the light step is not counted, and says to hold")
    func tapIsNotAPress() {
        var (s, at) = Self.calibrated()
        let r = Self.feed(&s, from: at, seconds: 2) { t in t > 0.2 && t < 0.3 ? 1.5 : 0 }
        at = r.next
        #expect(r.notes.contains { if case .problem(.light, let text, _) = $0 { return text.contains("tap") }; return false }, "\(r.notes)")
    }

    @Test("Someone touching the panel during the unloaded step: measured again")
    func touchedWhileUnloaded() {
        var s = CalibrationSession(plan: CalibrationPlan(channels: ["voltage0"], channelMaximumRaw: [16_777_215], sampleRateHz: 80))
        _ = s.start()
        let r = Self.feed(&s, from: 0, seconds: 3.2) { t in t > 1 && t < 1.8 ? 2 : 0 }
        #expect(r.notes.contains { if case .problem(.unloaded, let text, .unloaded) = $0 { return text.contains("touched") }; return false })
        #expect(s.step == .unloaded)
        _ = Self.feed(&s, from: r.next, seconds: 3.2) { _ in 0 }
        #expect(s.step == .mass(0))
    }

    @Test("Recommendations: the reasons quote the measured ranges, and overlapping presses are refused")
    func recommendation() throws {
        func press(_ level: Double, tremor: Double) -> PressStatistics {
            PressStatistics(maximum: level * (1 + tremor), holdMedian: level, holdMinimum: level * (1 - tremor),
                            holdMaximum: level * (1 + tremor), holdSeconds: 1, firstScan: 0, lastScan: 80)
        }
        let r = try Recommendation(light: [press(1.4, tremor: 0.05), press(1.9, tremor: 0.02)], firm: [press(3.5, tremor: 0.04), press(4.2, tremor: 0.02)],
                                   noiseNewtons: 0.01, driftNewtonsPerSecond: 0.001, spikes: 2, idleSeconds: 30, sampleRateHz: 80)
        #expect(r.settings.peekNewtons == 1.0)  // 0.75 x 1.33
        #expect(abs(r.settings.popNewtons - 2.69) < 0.001)  // 0.8 x 3.36
        #expect(r.settings.releaseFraction == 0.7)
        #expect(r.reasons[0] == "peek 1.00 N: 75 % of the lowest light hold; your light presses held 1.40-1.90 N (dipping to 1.33 N), noise 0.010 N")
        #expect(r.reasons.contains { $0.hasPrefix("spike rejection on") && $0.contains("2 single-scan spikes in 30 s") })
        #expect(throws: RecommendationProblem.self) {
            try Recommendation(light: [press(1.4, tremor: 0.05)], firm: [press(1.5, tremor: 0.05)], noiseNewtons: 0.01,
                               driftNewtonsPerSecond: 0, spikes: 0, idleSeconds: 30, sampleRateHz: 80)
        }
        #expect(throws: RecommendationProblem.self) {
            try Recommendation(light: [press(0.1, tremor: 0.05)], firm: [press(3, tremor: 0.05)], noiseNewtons: 0.01,
                               driftNewtonsPerSecond: 0, spikes: 0, idleSeconds: 30, sampleRateHz: 80)
        }
    }

    @Test("forcestage plot writes an SVG with the events, keeps a window's times, and refuses bad options with one line")
    func plotCommand() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let out = dir.appendingPathComponent("demo.svg").path
        let r = try forcestage(["plot", demo, "--events", "--from", "2", "--to", "12", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.contains(">peek</text>") && svg.contains(">pop</text>") && svg.contains(">release</text>"))
        let ticks = svg.components(separatedBy: "text-anchor=\"middle\">").dropFirst().compactMap { Int($0.prefix { $0 != "<" }) }
        #expect(ticks == Array(2...11), "the time axis keeps the recording's times: \(ticks)")
        let plain = try forcestage(["plot", demo, "-o", out])
        let plainSVG = try String(contentsOfFile: out, encoding: .utf8)
        #expect(plain.status == 0 && !plainSVG.contains("<circle"), "no events without --events")
        let bad = try forcestage(["plot", demo, "-o", dir.appendingPathComponent("x.png").path])
        #expect(bad.status != 0 && bad.stderr.contains("-o must name an .svg file"))
    }

    @Test("The plot draws the levels, a marker per event and the labels' ticks")
    func plot() throws {
        let rec = try Recording.load(repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json"))
        let setup = try PanelSetup(metadata: rec.metadata, file: "demo")
        let svg = ForcePlot(title: "demo").svg(rec, setup: setup)
        let events = replay(rec, setup: setup).events
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<circle").count - 1 == events.count)
        #expect(svg.contains(">peek 1.09 N</text>") && svg.contains(">pop 2.23 N</text>") && svg.contains(">release 0.55 N</text>"))  // half the peek level, the spec's rule
        #expect(svg.components(separatedBy: "stroke-width=\"1.5\"/>").count - 1 == rec.metadata.labels.count)
        // Well-formed enough for a browser: every element opened is closed.
        #expect(svg.components(separatedBy: "<text").count == svg.components(separatedBy: "</text>").count)
    }
}

@Suite("Calibration verification timeout")
struct VerificationTimeoutTests {
    /// A session through the unloaded step, a 500 g mass, light and firm presses, into verification.
    static func atVerification(timeout: Double) -> (CalibrationSession, Int) {
        var plan = CalibrationPlan(channels: ["voltage0"], channelMaximumRaw: [16_777_215], sampleRateHz: 80)
        plan.verificationTimeoutSeconds = timeout
        var s = CalibrationSession(plan: plan)
        try! s.setMass(0, grams: 500)
        _ = s.start()
        var at = CalibrationSessionTests.feed(&s, from: 0, seconds: 4) { _ in 0 }.next
        at = CalibrationSessionTests.feed(&s, from: at, seconds: 6) { t in t < 0.5 ? 9.80665 * 0.5 * t / 0.5 : (t < 4 ? 4.903325 : (t < 4.5 ? 4.903325 * (4.5 - t) / 0.5 : 0)) }.next
        at = CalibrationSessionTests.feed(&s, from: at, seconds: 13, CalibrationSessionTests.presses(1.5, count: 5)).next
        at = CalibrationSessionTests.feed(&s, from: at, seconds: 13, CalibrationSessionTests.presses(4.0, count: 5)).next
        return (s, at)
    }

    @Test("Verification with nobody pressing ends after the timeout, saying how many presses were verified and how to wait longer")
    func endsAfterTimeout() {
        var (s, at) = Self.atVerification(timeout: 10)
        #expect(s.step == .verify)
        // One press is verified, then nothing for 9 s: still waiting.
        let first = CalibrationSessionTests.feed(&s, from: at, seconds: 2.5, CalibrationSessionTests.presses(1.5, count: 1))
        at = first.next
        #expect(first.notes.contains { if case .event(let e) = $0 { return e.kind == .release }; return false })
        at = CalibrationSessionTests.feed(&s, from: at, seconds: 7) { _ in 0 }.next
        #expect(s.step == .verify, "9 s idle is within the 10 s timeout")
        let r = CalibrationSessionTests.feed(&s, from: at, seconds: 4) { _ in 0 }
        #expect(s.step == .done)
        let text = r.notes.compactMap { n -> String? in if case .measured(.verify, let t) = n { return t }; return nil }
        #expect(text.count == 1 && text[0].contains("1 of 5 presses verified") && text[0].contains("--verify-timeout"), "\(r.notes)")
        #expect(s.result != nil, "the recommendation stands")
    }

    @Test("Verification with a load left on the panel (a press never released) still ends after the timeout, saying so in one line")
    func endsWithALoadLeftOn() {
        var (s, at) = Self.atVerification(timeout: 10)
        #expect(s.step == .verify)
        // 3 N set down and never lifted: a peek and a pop, then nothing for the rest of the 20 s.
        let r = CalibrationSessionTests.feed(&s, from: at, seconds: 20) { t in t < 0.3 ? 3 * t / 0.3 : 3 }
        at = r.next
        #expect(s.step == .done, "verification still open with a load on the panel")
        let text = r.notes.compactMap { n -> String? in if case .measured(.verify, let t) = n { return t }; return nil }
        #expect(text.count == 1 && text[0].contains("0 of 5 presses verified") && text[0].contains("--verify-timeout")
                && !text[0].contains("\n"), "\(r.notes)")
        #expect(s.result != nil, "the recommendation stands")
    }

    @Test("A device that sends no scans: verification ends once that passes the timeout (host clock); the earlier steps wait for it")
    func endsWithoutScans() {
        var (light, _) = CalibrationSessionTests.calibrated()
        #expect(light.handle(.stalled(seconds: 1000, atScan: 800)).isEmpty && light.step == .light, "nothing to keep yet: wait")
        let verifying = Self.atVerification(timeout: 10)
        var s = verifying.0
        let at = verifying.1
        #expect(s.step == .verify)
        #expect(s.handle(.stalled(seconds: 9.5, atScan: at)).isEmpty && s.step == .verify, "9.5 s is within the 10 s timeout")
        let notes = s.handle(.stalled(seconds: 10.5, atScan: at))
        #expect(notes == [.measured(.verify, "no scans from the device for 10 s: verification ends with 0 of 5 presses verified (--verify-timeout-ms MS waits longer, --verify-presses 0 skips it)"),
                          .started(.done)], "\(notes)")
        #expect(s.step == .done && s.result != nil)
    }

    @Test("--verify-timeout outside (0, 86400] s is a usage error: one line naming it, exit 64, nothing written",
          arguments: ["0", "-5", "nan", "inf", "1e9"])
    func badTimeout(value: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let out = dir.appendingPathComponent("p.toml").path
        let r = try forcestageBounded(["calibrate", "--from-recording", demo, "--mass", "500", "--verify-timeout=\(value)", "-o", out], seconds: 60)
        expectCleanRefusal(r, mentions: ["--verify-timeout"], code: 64)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
