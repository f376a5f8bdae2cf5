import ForceStageCore
import ForceStageFormats

/// How a calibration session runs.
public struct CalibrationPlan: Sendable {
    /// The force channels, in the order raw values are fed.
    public var channels: [String]
    /// Each channel's highest raw value (its format's rail), to carry a curve to the rail.
    public var channelMaximumRaw: [Int64]
    public var sampleRateHz: Double
    /// How many known masses are weighed; each must be given (``CalibrationSession/setMass(_:grams:)``) before it is lifted off.
    public var massCount: Int = 1
    /// A monotone curve through the masses (FSRs) instead of a straight line.
    public var curve = false
    public var lightPresses = 5
    public var firmPresses = 5
    /// Presses to classify live before the session ends.
    public var verificationPresses = 5
    public var unloadedSeconds = 3.0
    /// A press step with no press for this long says so and starts over.
    public var pressTimeoutSeconds = 30.0
    /// Verification with no event for this long ends, saying how many presses
    /// were verified (the recommendation stands); must be above zero.
    public var verificationTimeoutSeconds = 60.0

    public init(channels: [String], channelMaximumRaw: [Int64], sampleRateHz: Double) {
        self.channels = channels
        self.channelMaximumRaw = channelMaximumRaw
        self.sampleRateHz = sampleRateHz
    }
}

/// A step of the session, in order.
public enum CalibrationStep: Equatable, Sendable, CustomStringConvertible {
    case unloaded
    case mass(Int)
    case light
    case firm
    case verify
    case done

    public var description: String {
        switch self {
        case .unloaded: return "unloaded panel"
        case .mass(let i): return "known mass \(i + 1)"
        case .light: return "light presses"
        case .firm: return "firm presses"
        case .verify: return "verification"
        case .done: return "done"
        }
    }
}

/// What the session tells the person doing it.
public enum SessionNote: Equatable, Sendable {
    /// A step begins: show its instructions.
    case started(CalibrationStep)
    /// Progress through a timed step, 0...1.
    case progress(CalibrationStep, Double)
    /// A press was counted (`count` of `of`).
    case pressCounted(CalibrationStep, count: Int, of: Int, PressStatistics)
    /// A step finished, with what it measured in one line.
    case measured(CalibrationStep, String)
    /// Something was wrong; the step starts again (`restart` is the step now running).
    case problem(CalibrationStep, String, restart: CalibrationStep)
    /// The recommendation, once light and firm presses are in.
    case recommended(CalibrationResult)
    /// An event classified live with the recommended profile, during verification.
    case event(ForceEvent)
}

/// The session's outcome: the calibration and the settings, with reasons.
public struct CalibrationResult: Equatable, Sendable {
    public var calibration: [ForceChannelCalibration]
    public var settings: ClassifierSettings
    public var budgetMilliseconds: Double
    /// One line per measured or recommended value.
    public var reasons: [String]
    public var unloaded: UnloadedMeasurement
    public var noiseNewtons: Double
    public var light: [PressStatistics]
    public var firm: [PressStatistics]

    public static func == (a: CalibrationResult, b: CalibrationResult) -> Bool {
        a.calibration == b.calibration && a.settings == b.settings && a.reasons == b.reasons
    }

    /// The profile these numbers make.
    public func profile(name: String, matchName: String?, matchLabel: String?, file: String) -> Profile {
        Profile(name: name, matchName: matchName, matchLabel: matchLabel, channels: calibration, settings: settings,
                budgetMilliseconds: budgetMilliseconds, file: file)
    }
}

/// A calibration session as a state machine over the scans of a live device
/// or a recording: it segments the stream itself (a load appearing, holding
/// still, going away; presses starting and ending), so the person's hands can
/// stay on the panel, and a recording of a session replays to the same result.
///
/// Feed it one scan at a time with ``feed(_:sample:timestampNs:)``; it returns
/// what to tell the person.
public struct CalibrationSession: Sendable {
    public let plan: CalibrationPlan
    public private(set) var step: CalibrationStep = .unloaded
    /// Where each step started (session scan index), for plots.
    public private(set) var stepStarts: [(step: CalibrationStep, scan: Int)] = []
    public private(set) var result: CalibrationResult?
    /// Grams per mass, set before each is lifted off.
    public private(set) var massesGrams: [Double?]

    // Unloaded step.
    private var unloadedRaw: [[Double]]
    private(set) public var unloaded: UnloadedMeasurement?
    // Activity detection over the summed counts.
    private var window: [Double] = []          // the last three summed deltas, for the median
    private var rest = 0.0                      // the resting level (counts), followed while idle
    private var active = false
    private var quietScans = 0
    private var segment: [[Double]] = []        // per channel raw during the current activity
    private var segmentSum: [Double] = []
    private var segmentStart = 0
    private var lastActivityEnd = 0
    private var stepStartScan = 0
    private var idleScans = 0
    private var idleSpikes = 0
    // Masses.
    private var massPoints: [(deltas: [Double], grams: Double)] = []
    private var calibration: [ForceChannelCalibration] = []
    private var mappings: [ForceMapping] = []
    // Presses.
    private var light: [PressStatistics] = []
    private var firm: [PressStatistics] = []
    // Verification.
    private var classifier: Classifier?
    private var coreCalibration: [ChannelCalibration] = []
    private var verified = 0

    public init(plan: CalibrationPlan) {
        precondition(!plan.channels.isEmpty && plan.channels.count == plan.channelMaximumRaw.count, "one maximum per channel")
        self.plan = plan
        massesGrams = Array(repeating: nil, count: max(1, plan.massCount))
        unloadedRaw = Array(repeating: [], count: plan.channels.count)
    }

    private var scansPerSecond: Double { plan.sampleRateHz }
    private var noise: Double { max(unloaded?.noiseCounts ?? 1, 0.5) }
    /// Counts above rest that count as a load: well clear of the noise, and
    /// once the calibration is known at least a tenth of a newton (a panel that
    /// relaxes slowly after a press, like an FSR, stays above its noise for a while).
    private var threshold: Double { max(15 * noise, pressFloorCounts) }
    private var pressFloorCounts = 0.0

    /// The first note: the unloaded step's instructions.
    public mutating func start(atScan scan: Int = 0) -> [SessionNote] {
        stepStartScan = scan
        stepStarts = [(.unloaded, scan)]
        return [.started(.unloaded)]
    }

    /// Sets the known mass of step `.mass(index)`, in grams.
    public mutating func setMass(_ index: Int, grams: Double) throws(CalibrationInputError) {
        guard grams > 0, grams.isFinite else { throw .badMass(grams) }
        guard index >= 0 && index < massesGrams.count else { throw .noSuchMass(index) }
        massesGrams[index] = grams
    }

    /// Starts the current step again from `scan` (after the device came back, or on request).
    public mutating func restartStep(atScan scan: Int) -> [SessionNote] {
        resetActivity()
        stepStartScan = scan
        if step == .unloaded { unloadedRaw = Array(repeating: [], count: plan.channels.count) }
        if step == .verify { classifier = nil }
        return [.started(step)]
    }

    private mutating func resetActivity() {
        window = []
        active = false
        quietScans = 0
        segment = []
        segmentSum = []
    }

    private mutating func begin(_ next: CalibrationStep, at scan: Int) -> [SessionNote] {
        step = next
        stepStartScan = scan
        lastActivityEnd = scan
        stepStarts.append((next, scan))
        return [.started(next)]
    }

    /// Feeds one scan: the raw value of each force channel (in ``CalibrationPlan/channels`` order).
    public mutating func feed(_ raw: [Int64], sample: Int, timestampNs: Int64) -> [SessionNote] {
        switch step {
        case .unloaded: return feedUnloaded(raw, sample: sample)
        case .mass, .light, .firm: return feedActivity(raw, sample: sample)
        case .verify: return feedVerify(raw, sample: sample, timestampNs: timestampNs)
        case .done: return []
        }
    }

    // MARK: - Unloaded

    private mutating func feedUnloaded(_ raw: [Int64], sample: Int) -> [SessionNote] {
        for c in raw.indices { unloadedRaw[c].append(Double(raw[c])) }
        let need = max(8, Int(plan.unloadedSeconds * scansPerSecond))
        let have = unloadedRaw[0].count
        var notes: [SessionNote] = []
        let every = max(1, need / 20)
        if have % every == 0 || have == need { notes.append(.progress(.unloaded, min(1, Double(have) / Double(need)))) }
        guard have >= need else { return notes }
        let zeros = unloadedRaw.map { values -> Double in
            let s = values.sorted()
            return s[s.count / 2]
        }
        let sum = (0..<have).map { i in unloadedRaw.indices.reduce(0.0) { $0 + unloadedRaw[$1][i] - zeros[$1] } }
        // Spikes: single scans far from both neighbours; counted, then left out of the noise.
        let smooth = medianOfThree(sum)
        // The scan-to-scan spread, robustly (median absolute first difference), sets what a spike is.
        let steps = zip(sum.dropFirst(), sum).map { abs($0 - $1) }.sorted()
        let spread = max(1.4826 * steps[steps.count / 2] / 2.0.squareRoot(), 0.5)
        var clean: [Double] = []
        var spikes = 0
        for i in sum.indices {
            if abs(sum[i] - smooth[i]) > 8 * spread { spikes += 1 } else { clean.append(sum[i]) }
        }
        let fit = lineFit(clean)
        let measurement = UnloadedMeasurement(zeroRaw: zeros, noiseCounts: max(fit.residualStd, 0.5),
                                              driftCountsPerSecond: fit.slope * scansPerSecond, spikes: spikes,
                                              seconds: Double(have) / scansPerSecond)
        // A panel that is being touched moves by far more than its noise: ask again.
        let span = (smooth.max() ?? 0) - (smooth.min() ?? 0)
        if span > 40 * spread + abs(fit.slope) * Double(have) {
            unloadedRaw = Array(repeating: [], count: plan.channels.count)
            return notes + [.problem(.unloaded, "the reading moved by \(Int(span)) counts, far more than its scan-to-scan noise (\(n(spread, 1)) counts): something touched the panel; keep it unloaded", restart: .unloaded)]
        }
        unloaded = measurement
        idleScans = have
        idleSpikes = spikes
        rest = 0
        notes.append(.measured(.unloaded, "zero \(zeros.map { n($0, 0) }.joined(separator: ", ")) counts, noise \(n(measurement.noiseCounts, 1)) counts rms, drift \(n(measurement.driftCountsPerSecond, 1)) counts/s, \(spikes) spike\(spikes == 1 ? "" : "s") in \(n(measurement.seconds, 1)) s"))
        return notes + begin(.mass(0), at: sample + 1)
    }

    // MARK: - Activity: masses and presses

    private func delta(_ raw: [Int64]) -> Double {
        raw.indices.reduce(0.0) { $0 + Double(raw[$1]) - unloaded!.zeroRaw[$1] }
    }

    private mutating func feedActivity(_ raw: [Int64], sample: Int) -> [SessionNote] {
        let d = delta(raw)
        window.append(d)
        if window.count > 3 { window.removeFirst() }
        let level = window.count == 3 ? window.sorted()[1] : d
        if !active {
            if level - rest > threshold {
                active = true
                quietScans = 0
                segment = Array(repeating: [], count: raw.count)
                segmentSum = []
                segmentStart = sample
            } else {
                // Follow the resting level slowly (drift), and count idle spikes.
                if window.count == 3, abs(d - level) > 12 * noise { idleSpikes += 1 }
                idleScans += 1
                rest += (level - rest) / (scansPerSecond * 1.0)
                let idle = Double(sample - max(lastActivityEnd, stepStartScan)) / scansPerSecond
                switch step {
                case .light where idle > plan.pressTimeoutSeconds, .firm where idle > plan.pressTimeoutSeconds:
                    return timeout(sample)
                case .mass where idle > 2 * plan.pressTimeoutSeconds:
                    lastActivityEnd = sample
                    return [.problem(step, "no load above the noise (\(n(threshold, 0)) counts) for \(Int(plan.pressTimeoutSeconds * 2)) s; set the mass down in the middle of the panel", restart: step)]
                default:
                    break
                }
                return []
            }
        }
        for c in raw.indices { segment[c].append(Double(raw[c])) }
        segmentSum.append(level - rest)
        if level - rest < threshold / 2 { quietScans += 1 } else { quietScans = 0 }
        let quietNeeded = max(3, Int(0.25 * scansPerSecond))
        guard quietScans >= quietNeeded else { return [] }
        // The activity ended: drop the quiet tail and measure it.
        active = false
        lastActivityEnd = sample
        let n = segmentSum.count - quietScans
        // Where the reading settled once the load was gone, above the rest before it:
        // the drift during the activity (a mass is weighed from the middle of the two).
        let settledAfter = segmentSum.suffix(quietScans).reduce(0, +) / Double(max(1, quietScans))
        let sums = Array(segmentSum.prefix(n))
        let channels = segment.map { Array($0.prefix(n)) }
        segment = []
        segmentSum = []
        switch step {
        case .mass(let i): return finishMass(i, sums: sums, channels: channels, endScan: sample, driftDuring: settledAfter)
        case .light, .firm: return finishPress(sums: sums, channels: channels, endScan: sample)
        default: return []
        }
    }

    private mutating func timeout(_ sample: Int) -> [SessionNote] {
        lastActivityEnd = sample
        return [.problem(step, "no press above the noise (\(pressThresholdText)) in \(Int(plan.pressTimeoutSeconds)) s; press a little harder, holding each about a second", restart: step)]
    }

    private var pressThresholdText: String {
        guard let m = mappings.first else { return "\(Int(threshold)) counts" }
        let zero = unloaded!.zeroRaw[0]
        return "\(n(abs(m.newtons(forRaw: zero + threshold) - m.newtons(forRaw: zero)), 3)) N"
    }

    private mutating func finishMass(_ i: Int, sums: [Double], channels: [[Double]], endScan: Int, driftDuring: Double) -> [SessionNote] {
        let step = self.step
        // The plateau: the middle half of the stretch at or above 90 % of the top.
        let smooth = medianOfThree(sums)
        guard let top = smooth.max(), let first = smooth.firstIndex(where: { $0 >= 0.9 * top }),
              let last = smooth.lastIndex(where: { $0 >= 0.9 * top }) else { return [] }
        let quarter = (last - first) / 4
        let range = (first + quarter)...(last - quarter)
        let seconds = Double(range.count) / scansPerSecond
        guard seconds >= 0.75 else {
            return [.problem(step, "the load stayed only \(n(seconds, 1)) s; set the mass down and leave it still for about three seconds", restart: step)]
        }
        let plateau = Array(smooth[range])
        let fit = lineFit(plateau)
        guard fit.residualStd < max(6 * noise, 0.01 * abs(fit.mean)) else {
            return [.problem(step, "the load was not steady (wavered \(n(fit.residualStd, 0)) counts rms around \(n(fit.mean, 0))); a mass must rest still, not be held by hand", restart: step)]
        }
        guard let grams = massesGrams[i] else {
            return [.problem(step, "no mass was given for this step", restart: step)]
        }
        // Measured from the resting level around the load -- midway between the rest
        // just before it (followed while idle) and where the reading settled after
        // it -- not from the zero of the unloaded step seconds earlier: the zero drifts.
        let restShare = (rest + driftDuring / 2) / Double(channels.count)
        // Each channel through a median of three first: a spike while the mass rests
        // would otherwise move the mean (one 4 N spike in 160 scans is 0.6 %).
        let deltas = channels.indices.map { c in
            medianOfThree(channels[c])[range].reduce(0, +) / Double(range.count) - unloaded!.zeroRaw[c] - restShare
        }
        if let previous = massPoints.last, abs(deltas.reduce(0, +)) <= abs(previous.deltas.reduce(0, +)) || grams <= previous.grams {
            return [.problem(step, "each mass must be heavier than the one before (and read higher): \(n(grams, 0)) g after \(n(previous.grams, 0)) g", restart: step)]
        }
        massPoints.append((deltas, grams))
        let newtons = grams / 1000 * standardGravity
        var notes: [SessionNote] = [.measured(step, "\(n(grams, 0)) g (\(n(newtons, 3)) N) read \(n(deltas.reduce(0, +), 0)) counts above zero, steady to \(n(fit.residualStd, 1)) counts rms")]
        if i + 1 < massesGrams.count { return notes + begin(.mass(i + 1), at: endScan + 1) }
        notes.append(contentsOf: fitCalibration())
        return notes + begin(.light, at: endScan + 1)
    }

    /// The calibration through the weighed masses: one gain for every channel
    /// (least squares through zero), or a curve from zero through each mass to the rail.
    private mutating func fitCalibration() -> [SessionNote] {
        let zeros = unloaded!.zeroRaw
        if plan.curve && plan.channels.count == 1 {
            var points = [CurvePoint(raw: zeros[0].rounded(), newtons: 0)]
            for m in massPoints {
                points.append(CurvePoint(raw: (zeros[0] + m.deltas[0]).rounded(), newtons: (m.grams / 1000 * standardGravity * 1000).rounded() / 1000))
            }
            // Carried on to the rail along the last segment's slope, so that a press
            // harder than the heaviest mass still reads higher.
            let a = points[points.count - 2], b = points[points.count - 1]
            let rail = Double(plan.channelMaximumRaw[0])
            if rail > b.raw + 1 {
                let slope = (b.newtons - a.newtons) / (b.raw - a.raw)
                points.append(CurvePoint(raw: rail, newtons: ((b.newtons + slope * (rail - b.raw)) * 1000).rounded() / 1000))
            }
            calibration = [ForceChannelCalibration(channel: plan.channels[0], mapping: .curve(points))]
        } else {
            var sxy = 0.0, sxx = 0.0
            for m in massPoints {
                let counts = m.deltas.reduce(0, +)
                sxy += counts * m.grams / 1000 * standardGravity
                sxx += counts * counts
            }
            let scale = significantDigits(sxy / sxx, 6)
            calibration = plan.channels.indices.map { c in
                ForceChannelCalibration(channel: plan.channels[c], mapping: .linear(zeroRaw: zeros[c].rounded(), newtonsPerCount: scale))
            }
        }
        mappings = calibration.map(\.mapping)
        // The counts (summed over the channels, from zero) that read 0.1 N.
        var low = 0.0, high = Double(plan.channelMaximumRaw.max() ?? 1) * 2 + 1
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if abs(newtonsAbove(zeros, counts: mid)) < 0.1 { low = mid } else { high = mid }
        }
        pressFloorCounts = high
        return [.measured(step, "calibration: " + calibration.map { c -> String in
            switch c.mapping {
            case .linear(let z, let s): return "\(c.channel) zero \(JSON.format(z)), \(JSON.format(s)) N/count"
            case .curve(let p): return "\(c.channel) curve of \(p.count) points"
            }
        }.joined(separator: "; "))]
    }

    /// Newtons of the panel for per-channel raw values.
    private func newtons(_ channels: [[Double]], at i: Int) -> Double {
        mappings.indices.reduce(0.0) { $0 + mappings[$1].newtons(forRaw: channels[$1][i]) }
    }

    private mutating func finishPress(sums: [Double], channels: [[Double]], endScan: Int) -> [SessionNote] {
        let step = self.step
        let restNewtons = mappings.indices.reduce(0.0) { $0 + mappings[$1].newtons(forRaw: unloaded!.zeroRaw[$1]) } + restOffsetNewtons
        let force = (0..<sums.count).map { newtons(channels, at: $0) - restNewtons }
        guard let stats = PressStatistics.measure(force, firstScan: endScan - sums.count, sampleRateHz: scansPerSecond) else { return [] }
        guard stats.holdSeconds >= 0.25 else {
            return [.problem(step, "that press was a tap (held \(n(stats.holdSeconds, 2)) s, up to \(n(stats.maximum)) N); hold each press about a second", restart: step)]
        }
        var notes: [SessionNote] = []
        let total: Int
        if step == .light {
            light.append(stats)
            total = plan.lightPresses
            notes.append(.pressCounted(.light, count: light.count, of: total, stats))
            if light.count >= total { return notes + begin(.firm, at: endScan + 1) }
        } else {
            firm.append(stats)
            total = plan.firmPresses
            notes.append(.pressCounted(.firm, count: firm.count, of: total, stats))
            if firm.count >= total { return notes + recommend(at: endScan + 1) }
        }
        return notes
    }

    /// The resting level's drift since the unloaded step, in newtons.
    private var restOffsetNewtons: Double {
        guard let m = mappings.first else { return 0 }
        let z = unloaded!.zeroRaw[0]
        return m.newtons(forRaw: z + rest) - m.newtons(forRaw: z)
    }

    private mutating func recommend(at scan: Int) -> [SessionNote] {
        let z = unloaded!.zeroRaw
        let noiseNewtons = abs(newtonsAbove(z, counts: unloaded!.noiseCounts))
        let driftNewtons = newtonsAbove(z, counts: unloaded!.driftCountsPerSecond)
        let rec: Recommendation
        do {
            rec = try Recommendation(light: light, firm: firm, noiseNewtons: noiseNewtons, driftNewtonsPerSecond: driftNewtons,
                                     spikes: idleSpikes, idleSeconds: Double(idleScans) / scansPerSecond, sampleRateHz: scansPerSecond)
        } catch {
            light = []
            firm = []
            var notes: [SessionNote] = [.problem(.firm, error.description, restart: .light)]
            notes.append(contentsOf: begin(.light, at: scan))
            return notes
        }
        let r = CalibrationResult(calibration: calibration, settings: rec.settings, budgetMilliseconds: rec.budgetMilliseconds,
                                  reasons: rec.reasons, unloaded: unloaded!, noiseNewtons: noiseNewtons, light: light, firm: firm)
        result = r
        coreCalibration = calibration.compactMap { try? $0.mapping.core() }
        classifier = (try? ClassifierParameters(rec.settings, sampleRateHz: Float(scansPerSecond))).map { Classifier(parameters: $0) }
        if plan.verificationPresses <= 0 { return [.recommended(r)] + begin(.done, at: scan) }
        return [.recommended(r)] + begin(.verify, at: scan)
    }

    /// Newtons for `counts` above the zero, summed over the channels' share (the first channel's mapping for a curve).
    private func newtonsAbove(_ zeros: [Double], counts: Double) -> Double {
        guard let m = mappings.first else { return 0 }
        if case .linear(_, let s) = m { return counts * s }
        return m.newtons(forRaw: zeros[0] + counts) - m.newtons(forRaw: zeros[0])
    }

    // MARK: - Verification

    private mutating func feedVerify(_ raw: [Int64], sample: Int, timestampNs: Int64) -> [SessionNote] {
        guard classifier != nil else {
            classifier = result.flatMap { try? ClassifierParameters($0.settings, sampleRateHz: Float(scansPerSecond)) }.map { Classifier(parameters: $0) }
            return []
        }
        var force: Float = 0
        for c in raw.indices { force += coreCalibration[c].newtons(forRaw: raw[c]) }
        var ring = EventRing()
        classifier!.step(force: force, sample: Int64(sample), timestampNs: timestampNs, into: &ring)
        var notes: [SessionNote] = []
        while let e = ring.popFirst() {
            notes.append(.event(e))
            if e.kind == .release { verified += 1 }
        }
        if !notes.isEmpty { lastActivityEnd = sample }
        if verified >= plan.verificationPresses {
            notes.append(contentsOf: begin(.done, at: sample + 1))
        } else if classifier!.state == .idle,
                  Double(sample - max(lastActivityEnd, stepStartScan)) / scansPerSecond > plan.verificationTimeoutSeconds {
            // A bounded wait: nobody pressing must not hold the session open forever.
            notes.append(.measured(.verify, "no press for \(JSON.format(plan.verificationTimeoutSeconds)) s: verification ends with \(verified) of \(plan.verificationPresses) presses verified (--verify-timeout S waits longer, --verify-presses 0 skips it)"))
            notes.append(contentsOf: begin(.done, at: sample + 1))
        }
        return notes
    }

    /// Ends verification early (the person is satisfied, or the recording ended).
    public mutating func finishVerification(atScan scan: Int) -> [SessionNote] {
        guard step == .verify else { return [] }
        return begin(.done, at: scan)
    }
}

/// A bad answer to the session's questions.
public enum CalibrationInputError: Error, Equatable, Sendable, CustomStringConvertible {
    case badMass(Double)
    case noSuchMass(Int)

    public var description: String {
        switch self {
        case .badMass(let g): return "a mass must be above zero grams, got \(JSON.format(g)); weigh it and give its mass in grams"
        case .noSuchMass(let i): return "there is no mass \(i + 1) in this session"
        }
    }
}

func significantDigits(_ value: Double, _ digits: Int) -> Double { significant(value, digits) }
