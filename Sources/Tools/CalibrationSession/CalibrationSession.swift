// Over 300 lines: one state machine whose steps share one activity detector; its types, arithmetic, resting level and words are in their own files.
import Foundation
import ForceStageCore
import ForceStageFormats

/// A calibration session as a state machine: a value that takes
/// ``SessionInput``s (scans, answers, Enter, the device coming back) and
/// returns ``SessionNote``s (prompts, measurements, problems, the result).
/// It segments the scan stream itself (a load appearing, holding still, going
/// away; presses starting and ending), so the person's hands can stay on the
/// panel, and a recording of a session replays to the same result. It knows
/// no terminal: `forcestage calibrate` draws its notes and types its answers.
/// The arithmetic is in `SessionArithmetic.swift`, the resting level loads and presses
/// are measured from in `RestTracker.swift`, the words in `SessionPrompts.swift`.
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
    private var active = false
    /// +1 or -1: which way the current activity moved the summed counts. A
    /// cell wired with negative gain reads lower under a load; until the
    /// calibration says which way each channel runs, a load may go either way.
    private var activitySign = 1.0
    /// Per channel, +1 or -1: the direction its counts run under a load, from
    /// the calibration once it is known (empty until then: every channel +1).
    private var channelSigns: [Double] = []
    private var quietScans = 0
    /// The resting level, followed while idle along the drift: what a load
    /// and a press are measured from, and the band they must come back to.
    private var resting: RestTracker
    /// The current load's highest level above the line, and how many scans ago
    /// it was lifted (the reading below half of that) without the reading
    /// settling back on the line.
    private var loadTop = 0.0
    private var liftedScans = 0
    private var segment: [[Double]] = []        // per channel raw during the current activity
    private var segmentSum: [Double] = []
    private var lastActivityEnd = 0
    private var stepStartScan = 0
    private var idleScans = 0
    private var idleSpikes = 0
    // Masses, and cell by cell the placements.
    private var massPoints: [(deltas: [Double], grams: Double)] = []
    private var placements: [[Double]] = []
    private var calibration: [ForceChannelCalibration] = []
    private var mappings: [ForceMapping] = []
    /// For a curve (an FSR), each mass's hold as it read: the summed counts above
    /// the rest (the way the load read) per scan from its onset, the rest, and
    /// which way the raw counts ran; fitted for the creep once the curve is known.
    private var holds: [(sums: [Double], rest: Double, sign: Double)] = []
    /// The creep the holds showed (``CreepFit``), set with the curve: amount,
    /// time constant (ms) and its one line; nil for a line (a load cell does not creep).
    private var creep: (amount: Double, milliseconds: Double, reason: String)?
    // Presses.
    private var light: [PressStatistics] = []
    private var firm: [PressStatistics] = []
    // Verification.
    private var classifier: Classifier?
    private var coreCalibration: [ChannelCalibration] = []
    private var verified = 0

    public init(plan: CalibrationPlan) {
        precondition(!plan.channels.isEmpty && plan.channels.count == plan.channelMaximumRaw.count, "one maximum per channel")
        precondition(!plan.perCell || (plan.cellPositions?.count == plan.channels.count && plan.cellSpots.count == plan.channels.count),
                     "one position and one spot per cell")
        self.plan = plan
        massesGrams = Array(repeating: nil, count: plan.perCell ? 1 : max(1, plan.massCount))
        unloadedRaw = Array(repeating: [], count: plan.channels.count)
        resting = RestTracker(scansPerSecond: plan.sampleRateHz)
    }

    private var scansPerSecond: Double { plan.sampleRateHz }
    private var noise: Double { max(unloaded?.noiseCounts ?? 1, 0.5) }
    /// Counts above rest that count as a load: well clear of the noise, and
    /// once the calibration is known at least a tenth of a newton (a panel that
    /// relaxes slowly after a press, like an FSR, stays above its noise for a while).
    private var threshold: Double { max(15 * noise, pressFloorCounts) }
    /// A lifted load whose reading stays off the resting level's line this long
    /// means the unloaded reading wandered (not drifted along a line) under it.
    private var wanderScans: Int { max(8, Int(2 * scansPerSecond)) }
    private var pressFloorCounts = 0.0

    /// The first note: the unloaded step's instructions.
    public mutating func start(atScan scan: Int = 0) -> [SessionNote] {
        stepStartScan = scan
        stepStarts = [(.unloaded, scan)]
        return [.started(.unloaded)]
    }

    /// Takes one input; returns what to tell the person.
    public mutating func handle(_ input: SessionInput) -> [SessionNote] {
        switch input {
        case .scan(let raw, let sample, let ts): return feed(raw, sample: sample, timestampNs: ts)
        case .mass(let i, let grams):
            do { try setMass(i, grams: grams) } catch { return [.refused(error.description)] }
            return []
        case .enough(let scan): return finishVerification(atScan: scan)
        case .deviceBack(let scan): return restartStep(atScan: scan)
        case .stalled(let seconds, let scan): return stalled(seconds: seconds, atScan: scan)
        }
    }

    /// Sets the known mass of step `.mass(index)` (index 0 for a per-cell session), in grams.
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
        resting.forgetLevels()
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
        case .mass, .cell, .check, .light, .firm: return feedActivity(raw, sample: sample)
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
        let measurement: UnloadedMeasurement
        switch UnloadedMeasurement.measure(unloadedRaw, sampleRateHz: scansPerSecond) {
        case .success(let m): measurement = m
        case .failure(.touched(let span, let spread)):
            unloadedRaw = Array(repeating: [], count: plan.channels.count)
            return notes + [.problem(.unloaded, "the reading moved by \(Int(span)) counts, far more than its scan-to-scan noise (\(n(spread, 1)) counts): something touched the panel; keep it unloaded", restart: .unloaded)]
        }
        unloaded = measurement
        idleScans = have
        idleSpikes = measurement.spikes
        resting.reset(rest: 0, rate: measurement.driftCountsPerSecond / scansPerSecond)
        notes.append(.measured(.unloaded, "zero \(measurement.zeroRaw.map { n($0, 0) }.joined(separator: ", ")) counts, noise \(n(measurement.noiseCounts, 1)) counts rms, drift \(n(measurement.driftCountsPerSecond, 1)) counts/s, \(measurement.spikes) spike\(measurement.spikes == 1 ? "" : "s") in \(n(measurement.seconds, 1)) s"))
        return notes + begin(plan.perCell ? .cell(0) : .mass(0), at: sample + 1)
    }

    // MARK: - Activity: masses and presses

    private func delta(_ raw: [Int64]) -> Double {
        if channelSigns.isEmpty { return raw.indices.reduce(0.0) { $0 + Double(raw[$1]) - unloaded!.zeroRaw[$1] } }
        return raw.indices.reduce(0.0) { $0 + channelSigns[$1] * (Double(raw[$1]) - unloaded!.zeroRaw[$1]) }
    }

    private mutating func feedActivity(_ raw: [Int64], sample: Int) -> [SessionNote] {
        let d = delta(raw)
        window.append(d)
        if window.count > 3 { window.removeFirst() }
        let level = window.count == 3 ? window.sorted()[1] : d
        if !active {
            // Before the calibration is known a load may read either way (negative
            // gain); after it, `delta` runs every channel the way a load reads.
            // The idle rest with its lag behind the drift put back (see `RestTracker.idleRest`).
            let reference = resting.idleRest
            if level - reference > threshold || (channelSigns.isEmpty && reference - level > threshold) {
                activitySign = level - reference >= 0 ? 1 : -1
                active = true
                quietScans = 0
                resting.begin(atScan: sample, lastIdleScan: sample - 1)
                loadTop = 0
                liftedScans = 0
                segment = Array(repeating: [], count: raw.count)
                segmentSum = []
            } else {
                // Follow the resting level slowly (drift), and count idle spikes.
                if window.count == 3, abs(d - level) > 12 * noise { idleSpikes += 1 }
                idleScans += 1
                resting.idle(level, atScan: sample)
                let idle = Double(sample - max(lastActivityEnd, stepStartScan)) / scansPerSecond
                if step == .light || step == .firm, idle > plan.pressTimeoutSeconds { return timeout(sample) }
                if step.weighs, idle > 2 * plan.pressTimeoutSeconds {
                    lastActivityEnd = sample
                    return [.problem(step, "no load above the noise (\(n(threshold, 0)) counts) for \(Int(plan.pressTimeoutSeconds * 2)) s; set the mass down \(SessionPrompts.whereText(step, plan: plan))", restart: step)]
                }
                return []
            }
        }
        for c in raw.indices { segment[c].append(Double(raw[c])) }
        segmentSum.append(activitySign * (level - resting.atStart))
        // Over when the reading is back where the panel rests: between the rest
        // when the activity came and where its drift was taking it.
        let above = resting.distance(of: level, sign: activitySign, atScan: sample)
        if step.weighs {
            // A resting load: within half the threshold either side (a reading
            // that settled well below the rest did not come back either).
            loadTop = max(loadTop, above)
            if abs(above) < threshold / 2 { quietScans += 1 } else { quietScans = 0 }
            if above < loadTop / 2 { liftedScans += 1 } else { liftedScans = 0 }
            if liftedScans >= wanderScans { return wandered(level: level, above: above, sample: sample) }
        } else {
            // A press: within half the threshold above the band, or anywhere below
            // it (a panel that relaxes after a press, like an FSR, settles below
            // the line while idle, and the press is over all the same).
            if above < threshold / 2 { quietScans += 1 } else { quietScans = 0 }
        }
        let quietNeeded = max(3, Int(0.25 * scansPerSecond))
        guard quietScans >= quietNeeded else { return [] }
        // The activity ended: drop the quiet tail and measure it.
        active = false
        lastActivityEnd = sample
        let count = segmentSum.count - quietScans
        let sums = Array(segmentSum.prefix(count))
        let channels = segment.map { Array($0.prefix(count)) }
        // Where the reading settled once the activity was gone: the rest goes on from
        // it (not from before the activity, seconds of drift ago), and its levels join the
        // line (the levels before a load, over two seconds old by now, leave it).
        let tail = segmentSum.suffix(quietScans).map { resting.atStart + activitySign * $0 }
        let restAfter = resting.settled(tail, endScan: sample)
        segment = []
        segmentSum = []
        switch step {
        case .mass, .cell, .check:
            // Where the drift line from before the load put the rest when the tail settled.
            let line = resting.heading(atScan: sample) - resting.rate * Double(quietScans) / 2
            return finishLoad(sums: sums, channels: channels, endScan: sample, restBefore: resting.atStart, restAfter: restAfter,
                              bend: abs(restAfter - line))
        case .light, .firm: return finishPress(sums: sums, channels: channels, endScan: sample)
        default: return []
        }
    }

    /// A lifted load after which the reading stayed off the resting level's line:
    /// the unloaded reading wandered under the load, so no resting level around
    /// it can be trusted. Said, and the step starts again from the reading as it is.
    private mutating func wandered(level: Double, above: Double, sample: Int) -> [SessionNote] {
        let drift = resting.rate * scansPerSecond
        active = false
        lastActivityEnd = sample
        segment = []
        segmentSum = []
        quietScans = 0
        resting.restart(at: level)
        return [.problem(step, "after the load was lifted the reading stayed \(n(abs(above), 0)) counts \(above >= 0 ? "above" : "below") both the level the panel rested at before it and where its drift (\(n(drift, 0)) counts/s) was taking it, for \(Int(Double(wanderScans) / scansPerSecond)) s: its zero wanders; let the panel settle (a bridge warms up for minutes after power-on), then set the mass down again", restart: step)]
    }

    private mutating func timeout(_ sample: Int) -> [SessionNote] {
        lastActivityEnd = sample
        return [.problem(step, "no press above the noise (\(pressThresholdText)) in \(Int(plan.pressTimeoutSeconds)) s; press a little harder, holding each about a second", restart: step)]
    }

    private var pressThresholdText: String {
        guard !mappings.isEmpty else { return "\(Int(threshold)) counts" }
        return "\(n(abs(newtonsAbove(threshold)), 3)) N"
    }

    /// A resting load ended: weigh it and move on by the step it belongs to.
    ///
    /// - Parameters:
    ///   - sums: the summed counts above the rest when the load came, per scan.
    ///   - restBefore: the resting level when the load came, by the idle drift's line.
    ///   - restAfter: where the reading settled once the load was gone.
    ///   - bend: how far `restAfter` is from where that line was heading.
    private mutating func finishLoad(sums: [Double], channels: [[Double]], endScan: Int, restBefore: Double,
                                     restAfter: Double, bend: Double) -> [SessionNote] {
        let step = self.step
        // Measured from the resting level around the load -- midway between the rest
        // just before it (followed while idle) and where the reading settled after
        // it -- not from the zero of the unloaded step seconds earlier: the zero drifts.
        // An equal share per channel, back in each channel's raw direction
        // (`rest` runs the way a load reads once the calibration is known).
        let restShare = (restBefore + restAfter) / 2 / Double(channels.count)
        let restShares = channels.indices.map { channelSigns.isEmpty ? restShare : channelSigns[$0] * restShare }
        let load: RestingLoad
        switch RestingLoad.measure(sums: sums, channels: channels, zeros: unloaded!.zeroRaw, restShares: restShares,
                                   noise: noise, sampleRateHz: scansPerSecond) {
        case .success(let l): load = l
        case .failure(.none): return []
        case .failure(.brief(let seconds)):
            return [.problem(step, "the load stayed only \(n(seconds, 1)) s; set the mass down and leave it still for about three seconds", restart: step)]
        case .failure(.unsteady(let residual, let mean)):
            return [.problem(step, "the load was not steady (wavered \(n(residual, 0)) counts rms around \(n(mean, 0))); a mass must rest still, not be held by hand", restart: step)]
        }
        // The rest under the load is taken midway between before and after it, true
        // where it ran along a line. Where it settled off the line the idle drift
        // drew, it bent under the load, and the midway rest may be off by up to
        // half of that: past half a percent of the load, the weighing is a guess.
        let loadCounts = abs(load.deltas.reduce(0, +))
        if bend / 2 > 0.005 * loadCounts {
            return [.problem(step, "the panel's resting level bent under the load: after it, the reading settled \(n(bend, 0)) counts from where its drift (\(n(resting.rate * scansPerSecond, 0)) counts/s) was heading, so the weighing could be off by \(n(bend / 2 / max(loadCounts, 1) * 100, 1)) %; let the panel settle (a bridge warms up for minutes after power-on), then set the mass down again", restart: step)]
        }
        let massIndex: Int
        if case .mass(let i) = step { massIndex = i } else { massIndex = 0 }
        guard let grams = massesGrams[massIndex] else {
            return [.problem(step, "no mass was given for this step", restart: step)]
        }
        let newtons = grams / 1000 * standardGravity
        let counts = load.deltas.reduce(0, +)
        switch step {
        case .mass(let i):
            if let previous = massPoints.last, abs(counts) <= abs(previous.deltas.reduce(0, +)) || grams <= previous.grams {
                return [.problem(step, "each mass must be heavier than the one before (and read higher): \(n(grams, 0)) g after \(n(previous.grams, 0)) g", restart: step)]
            }
            massPoints.append((load.deltas, grams))
            if plan.curve && plan.channels.count == 1 { holds.append((sums, restBefore, activitySign)) }
            let notes: [SessionNote] = [.measured(step, "\(n(grams, 0)) g (\(n(newtons, 3)) N) read \(n(counts, 0)) counts above zero, steady to \(n(load.residual, 1)) counts rms")]
            if i + 1 < massesGrams.count { return notes + begin(.mass(i + 1), at: endScan + 1) }
            return notes + fitCalibration() + begin(.light, at: endScan + 1)
        case .cell(let i):
            placements.append(load.deltas)
            let notes: [SessionNote] = [.measured(step, "\(n(grams, 0)) g on cell \(i + 1)'s mark read " +
                                                   load.deltas.map { n($0, 0) }.joined(separator: ", ") + " counts per cell")]
            if i + 1 < plan.channels.count { return notes + begin(.cell(i + 1), at: endScan + 1) }
            guard let gains = cellGains(placements, newtons: newtons) else {
                placements = []
                return notes + [.problem(step, "the placements do not tell the cells apart (a gain came out zero or less); set the mass on each cell's own mark in turn", restart: .cell(0))]
                    + begin(.cell(0), at: endScan + 1)
            }
            let zeros = unloaded!.zeroRaw
            let positions = plan.cellPositions!
            calibration = plan.channels.indices.map { c in
                ForceChannelCalibration(channel: plan.channels[c], mapping: .linear(zeroRaw: zeros[c].rounded(), newtonsPerCount: gains[c]),
                                        position: positions[c])
            }
            return notes + calibrated() + begin(.check, at: endScan + 1)
        case .check:
            let forces = mappings.indices.map { load.deltas[$0] * slope(of: mappings[$0]) }
            let read = forces.reduce(0, +)
            let error = read / newtons - 1
            let at = centre(of: forces, at: plan.cellPositions!)
            let miss = at.map { ((($0.x - Double(plan.checkSpot.x)) * ($0.x - Double(plan.checkSpot.x)) + ($0.y - Double(plan.checkSpot.y)) * ($0.y - Double(plan.checkSpot.y))).squareRoot()) } ?? .infinity
            let measured = "\(n(grams, 0)) g (\(n(newtons, 3)) N) on the check spot read \(n(read, 3)) N (\(error >= 0 ? "+" : "")\(n(error * 100, 2)) %) at x \(n(at?.x ?? .nan, 3)), y \(n(at?.y ?? .nan, 3))"
            guard abs(error) <= plan.checkTolerance else {
                placements = []
                return [.problem(.check, "\(measured): more than \(n(plan.checkTolerance * 100, 0)) % off; a placement was off its mark or the mass moved. Weigh the cells again", restart: .cell(0))]
                    + begin(.cell(0), at: endScan + 1)
            }
            return [.measured(.check, "\(measured), \(n(miss, 3)) plate units from where it was set")] + begin(.light, at: endScan + 1)
        default:
            return []
        }
    }

    /// The calibration through the weighed masses: one gain for every channel
    /// (least squares through zero), or a curve from zero through each mass to the rail.
    private mutating func fitCalibration() -> [SessionNote] {
        let zeros = unloaded!.zeroRaw
        if plan.curve && plan.channels.count == 1 {
            let points = massCurve(zero: zeros[0], massPoints, rail: Double(plan.channelMaximumRaw[0]),
                                   floor: Double(plan.channelMinimumRaw[0]))
            calibration = [ForceChannelCalibration(channel: plan.channels[0], mapping: .curve(points))]
            creep = fitCreep(.curve(points), zero: zeros[0])
        } else {
            let scale = sharedGain(massPoints)
            calibration = plan.channels.indices.map { c in
                ForceChannelCalibration(channel: plan.channels[c], mapping: .linear(zeroRaw: zeros[c].rounded(), newtonsPerCount: scale))
            }
        }
        return calibrated()
    }

    /// The calibration is known: the press floor follows from it; one line says what it is.
    private mutating func calibrated() -> [SessionNote] {
        mappings = calibration.map(\.mapping)
        // Which way each channel reads under a load: from here on `delta` sums
        // them that way, so a load reads up on a panel with any cell wired
        // with negative gain. The resting level was followed in the raw sum:
        // it starts again from the zero.
        let signs = mappings.map { direction(of: $0) }
        if signs.contains(-1) {
            channelSigns = signs
            resting.reset(rest: 0, rate: 0)
        }
        // The counts (summed over the channels, from zero) that read 0.1 N.
        var low = 0.0, high = Double(plan.channelMaximumRaw.max() ?? 1) * 2 + 1
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if abs(newtonsAbove(mid)) < 0.1 { low = mid } else { high = mid }
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
        let restNewtons = mappings.indices.reduce(0.0) { $0 + mappings[$1].newtons(forRaw: unloaded!.zeroRaw[$1]) } + newtonsAbove(resting.atStart)
        let force = (0..<sums.count).map { newtons(channels, at: $0) - restNewtons }
        guard let stats = PressStatistics.measure(force, firstScan: endScan - sums.count, sampleRateHz: scansPerSecond) else { return [] }
        guard stats.holdSeconds >= 0.25 else {
            return [.problem(step, "that press was a tap (held \(n(stats.holdSeconds, 2)) s, up to \(n(stats.maximum)) N); hold each press about a second", restart: step)]
        }
        var notes: [SessionNote] = []
        if step == .light {
            light.append(stats)
            notes.append(.pressCounted(.light, count: light.count, of: plan.lightPresses, stats))
            if light.count >= plan.lightPresses { return notes + begin(.firm, at: endScan + 1) }
        } else {
            firm.append(stats)
            notes.append(.pressCounted(.firm, count: firm.count, of: plan.firmPresses, stats))
            if firm.count >= plan.firmPresses { return notes + recommend(at: endScan + 1) }
        }
        return notes
    }

    private mutating func recommend(at scan: Int) -> [SessionNote] {
        let noiseNewtons = abs(newtonsAbove(unloaded!.noiseCounts))
        let driftNewtons = newtonsAbove(unloaded!.driftCountsPerSecond)
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
        var settings = rec.settings
        var reasons = rec.reasons
        if let creep {
            settings.creepAmount = Float(creep.amount)
            settings.creepMilliseconds = Float(creep.milliseconds)
            reasons.append(creep.reason)
        }
        let r = CalibrationResult(calibration: calibration, settings: settings, budgetMilliseconds: rec.budgetMilliseconds,
                                  reasons: reasons, unloaded: unloaded!, noiseNewtons: noiseNewtons, light: light, firm: firm)
        result = r
        coreCalibration = calibration.compactMap { try? $0.mapping.core() }
        classifier = (try? ClassifierParameters(settings, sampleRateHz: Float(scansPerSecond))).map { Classifier(parameters: $0) }
        if plan.verificationPresses <= 0 { return [.recommended(r)] + begin(.done, at: scan) }
        return [.recommended(r)] + begin(.verify, at: scan)
    }

    /// The creep the masses' holds showed along the curve just fitted
    /// (``CreepFit``): each hold in newtons above its rest, fitted on its own;
    /// the median amount and time constant of those that rose clear of their
    /// noise, bounded to what a profile takes. Where most holds stayed flat,
    /// 0 (compensating a creep that is not there makes slow presses late);
    /// where the holds rose but none levelled off before the lift, or none
    /// could be fitted, the FSR default, said so.
    private func fitCreep(_ curve: ForceMapping, zero: Double) -> (amount: Double, milliseconds: Double, reason: String) {
        let unit = abs(curve.newtons(forRaw: zero + unloaded!.noiseCounts) - curve.newtons(forRaw: zero))
        // Each hold read in newtons along a smooth local law through the weighed
        // points around its own, a parabola in log counts and log newtons (a
        // power law where there are two, a line through zero where one): the
        // curve's straight segments would bend its rise where it crosses a mass
        // point, and an FSR's counts are far from straight in force.
        let nodes = zip(massPoints, holds).map { m, h in
            (counts: log(max(h.sign * m.deltas[0], 1e-9)), newtons: log(m.grams / 1000 * standardGravity))
        }
        let outcomes = holds.indices.map { j -> CreepFit.Outcome in
            let h = holds[j]
            let around = Array(nodes[max(0, min(j - 1, nodes.count - 3))...].prefix(3))
            // Far below the points (the rest, a few counts) a line through zero and
            // the lightest mass: a parabola in logs strays off anywhere far from them.
            func law(_ c: Double) -> Double {
                if around.count == 1 || c < exp(around[0].counts) / 2 { return exp(nodes[0].newtons) * c / exp(nodes[0].counts) }
                return exp(parabola(around, at: log(c)))
            }
            let rest = law(h.sign * h.rest)
            let newtons = h.sums.map { law(h.sign * h.rest + $0) - rest }
            return CreepFit.fit(newtons, sampleRateHz: scansPerSecond, noise: unit)
        }
        var fits: [CreepFit] = [], flat = 0, unresolved: [Double] = [], unusable: [String] = []
        for o in outcomes {
            switch o {
            case .creeps(let f): fits.append(f)
            case .flat: flat += 1
            case .unresolved(let rise, _): unresolved.append(rise)
            case .unusable(let why): unusable.append(why)
            }
        }
        let defaultAmount = Double(ClassifierSettings.fsrCreepAmount), defaultMs = Double(ClassifierSettings.fsrCreepMilliseconds)
        let of = "\(holds.count) mass\(holds.count == 1 ? "" : "es")"
        if flat > 0 && flat >= fits.count + unresolved.count {
            return (0, defaultMs, "creep 0 (compensation off): \(flat) of \(of) held flat within the noise (\(n(unit, 3)) N rms) over \(holds.count == 1 ? "its" : "their") hold; an FSR that does not creep needs none")
        }
        if fits.isEmpty {
            let why = unresolved.isEmpty ? "no hold could be fitted (\(unusable.first ?? "none"))"
                : "the readings were still rising (\(n(unresolved.min()! * 100, 1))-\(n(unresolved.max()! * 100, 1)) % so far) when the masses were lifted, so the creep's end was not seen; hold each mass longer to measure it"
            return (defaultAmount, defaultMs, "creep \(n(defaultAmount * 100, 0)) % over \(Int(defaultMs)) ms (the FSR default): \(why)")
        }
        func median(_ x: [Double]) -> Double {
            let s = x.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        let amounts = fits.map(\.amount), taus = fits.map(\.tauSeconds)
        let maxAmount = Double(ClassifierSettings.maximumCreepAmount), maxMs = Double(ClassifierSettings.maximumCreepMilliseconds)
        var amount = (median(amounts) * 1000).rounded() / 1000
        var ms = (median(taus) * 1000 / 10).rounded() * 10
        var bounded = ""
        if amount > maxAmount { amount = maxAmount; bounded += "; the amount is bounded to \(n(maxAmount * 100, 0)) %" }
        if ms > maxMs { ms = maxMs; bounded += "; the time constant is bounded to \(Int(maxMs)) ms" }
        ms = max(ms, 10)
        return (amount, ms, "creep \(n(amount * 100, 1)) % over \(Int(ms)) ms: under \(fits.count) of \(of) the reading rose from the load's onset by \(fits.map { "\(n($0.amount * 100, 1)) % over \(n($0.tauSeconds, 2)) s" }.joined(separator: ", ")); the classifier divides it out until the pop\(bounded)")
    }

    /// The parabola (a line through two) through `points` at `x`, by Lagrange's formula.
    private func parabola(_ points: [(counts: Double, newtons: Double)], at x: Double) -> Double {
        var sum = 0.0
        for i in points.indices {
            var w = points[i].newtons
            for j in points.indices where j != i { w *= (x - points[j].counts) / (points[i].counts - points[j].counts) }
            sum += w
        }
        return sum
    }

    /// Newtons for `counts` above the zero, summed over the channels: at the
    /// cells' mean gain for lines, along the first channel's curve for a curve.
    private func newtonsAbove(_ counts: Double) -> Double {
        guard let m = mappings.first else { return 0 }
        // `counts` run the way a load reads (see `delta`): along each channel's own direction.
        if case .linear = m {
            return counts * mappings.map { slope(of: $0) * (channelSigns.isEmpty ? 1 : direction(of: $0)) }.reduce(0, +) / Double(mappings.count)
        }
        let zero = unloaded!.zeroRaw[0]
        return m.newtons(forRaw: zero + (channelSigns.isEmpty ? 1 : direction(of: m)) * counts) - m.newtons(forRaw: zero)
    }

    /// +1 where a channel's newtons grow with its counts, -1 where a load lowers them (negative gain).
    private func direction(of mapping: ForceMapping) -> Double {
        switch mapping {
        case .linear(_, let s): return s < 0 ? -1 : 1
        case .curve(let p): return (p.last?.newtons ?? 0) < (p.first?.newtons ?? 0) ? -1 : 1
        }
    }

    private func slope(of mapping: ForceMapping) -> Double {
        if case .linear(_, let s) = mapping { return s }
        return 0
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
        } else if Double(sample - max(lastActivityEnd, stepStartScan)) / scansPerSecond > plan.verificationTimeoutSeconds {
            // A bounded wait: nobody pressing must not hold the session open forever,
            // nor a press that is never released (a load left on the panel, or a
            // zero that crept above the release level): counted from the last
            // event, whatever the classifier's state.
            notes.append(.measured(.verify, "no event for \(JSON.format(plan.verificationTimeoutSeconds)) s (no press, or one never released): verification ends with \(verified) of \(plan.verificationPresses) presses verified (--verify-timeout-ms MS waits longer, --verify-presses 0 skips it)"))
            notes.append(contentsOf: begin(.done, at: sample + 1))
        }
        return notes
    }

    /// The device has given no scans for `seconds`: verification ends once that
    /// passes its timeout, as it does after that long without an event (its
    /// timeout counts scans, and a device that stopped sending them, or keeps
    /// vanishing, would otherwise hold it open forever; the recommendation is
    /// already made). The earlier steps wait for the device: nothing is known yet.
    public mutating func stalled(seconds: Double, atScan scan: Int) -> [SessionNote] {
        guard step == .verify, seconds > plan.verificationTimeoutSeconds else { return [] }
        return [.measured(.verify, "no scans from the device for \(JSON.format(plan.verificationTimeoutSeconds)) s: verification ends with \(verified) of \(plan.verificationPresses) presses verified (--verify-timeout-ms MS waits longer, --verify-presses 0 skips it)")]
            + begin(.done, at: scan)
    }

    /// Ends verification early (the person is satisfied, or the recording ended).
    public mutating func finishVerification(atScan scan: Int) -> [SessionNote] {
        guard step == .verify else { return [] }
        return begin(.done, at: scan)
    }
}
