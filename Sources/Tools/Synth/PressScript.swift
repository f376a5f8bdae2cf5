// Over 300 lines: the press kinds, their keyframes and the script's draw, which share one seeded generator.
import Foundation
import ForceStageFormats

/// The kinds of press a script is made of.
public enum PressKind: String, CaseIterable, Sendable {
    /// A light touch that stays below the peek level: no labels.
    case tap
    /// Press to a level between peek and pop, hold, lift.
    case peek
    /// A peek held for seconds with tremor of 10-15 %.
    case tremor
    /// Peek, hold, press harder past pop, hold, lift.
    case pop
    /// Straight past both levels in a few tens of milliseconds.
    case slam
    /// A slow linear ramp (seconds) to a peek or a pop.
    case ramp
    /// Two presses in quick succession, each with its own labels.
    case double
    /// A slam hard enough to drive the ADC onto its rail for a moment.
    case hardSlam
    /// A calibration mass set down, left, lifted off (calibration sessions only).
    case mass
    /// A light press held about a second, when a calibration session asks for one.
    case light
    /// A firm press held about a second, when a calibration session asks for one.
    case firm
    /// Scenario presses (``ScenarioSet``): a burst of quick taps, each past peek.
    case burst
    /// A held peek that dips to 55-70 % of the peek level and comes back.
    case partial
    /// Past peek, then a slow climb (1.5-3 s) to pop.
    case slowPop
    /// A tap of 120-250 ms past peek.
    case quickTap
    /// A peek held 20-40 s.
    case longHold
    /// A firm press held 2.5-4 s (clipped flat where the scenario has a stop).
    case clippedHold
}

/// One point of a press's force profile.
public struct Keyframe: Sendable, Equatable {
    /// Seconds from the start of the recording.
    public var time: Double
    /// Newtons (the total over all cells).
    public var level: Double
    /// The segment to the next keyframe is a straight line instead of an S-curve.
    public var linear: Bool
    /// Tremor amplitude (fraction of the level) on the segment to the next
    /// keyframe; only used where the level holds.
    public var tremor: Double

    public init(time: Double, level: Double, linear: Bool = false, tremor: Double = 0) {
        self.time = time
        self.level = level
        self.linear = linear
        self.tremor = tremor
    }
}

/// One press: a finger's noise-free force profile, where it pressed, and
/// how the panel relaxes afterwards.
public struct Press: Sendable {
    public var kind: PressKind
    /// The profile; the first and last keyframes are at zero force.
    public var keyframes: [Keyframe]
    /// Where on the plate the finger lands (x, y in 0...1); only panels with
    /// several cells use it. See ``position(at:)`` for a sliding press.
    public var x: Double
    public var y: Double
    /// Tremor: a physiological component and a slower waver, with phases.
    public var tremorHz: (Double, Double)
    public var tremorPhase: (Double, Double)
    /// The residual force just after release (newtons) and its time constant (s).
    public var relaxationNewtons: Double
    public var relaxationSeconds: Double
    /// The slide, for a press that moves while held (scenario `sliding`); nil stays put.
    public var path: PressPath? = nil

    /// When the finger lands.
    public var start: Double { keyframes.first!.time }
    /// When the force is back at zero.
    public var end: Double { keyframes.last!.time }
    /// The highest keyframe level.
    public var peak: Double { keyframes.map(\.level).max() ?? 0 }
    /// When the final fall starts.
    public var fallStart: Double { keyframes[keyframes.count - 2].time }

    /// The noise-free force at `t`, zero outside the press.
    public func force(at t: Double) -> Double {
        guard t > start, t < end else { return 0 }
        var k = 0
        while k + 1 < keyframes.count && keyframes[k + 1].time <= t { k += 1 }
        let a = keyframes[k]
        let b = keyframes[k + 1]
        let span = b.time - a.time
        let u = span > 0 ? (t - a.time) / span : 1
        let base = a.level + (b.level - a.level) * (a.linear ? u : smoothstep(u))
        guard a.tremor > 0, a.level == b.level else { return base }
        // Fade the tremor in and out so the force stays continuous at the
        // hold's ends; |wave| <= 1, so the force stays within level * (1 +- tremor).
        let ramp = min(0.12, span / 3)
        let envelope = smoothstep(min(1, (t - a.time) / ramp)) * smoothstep(min(1, (b.time - t) / ramp))
        let wave = 0.7 * sin(2 * .pi * tremorHz.0 * t + tremorPhase.0) + 0.3 * sin(2 * .pi * tremorHz.1 * t + tremorPhase.1)
        return base * (1 + a.tremor * envelope * wave)
    }

    /// The relaxation residual at `t`: rising with the release, then decaying.
    public func relaxation(at t: Double) -> Double {
        guard t > fallStart else { return 0 }
        if t < end { return relaxationNewtons * smoothstep((t - fallStart) / (end - fallStart)) }
        return relaxationNewtons * exp(-(t - end) / relaxationSeconds)
    }
}

@inline(__always)
func smoothstep(_ u: Double) -> Double {
    let c = min(1, max(0, u))
    return c * c * (3 - 2 * c)
}

/// Why a synthesis request cannot be met.
public enum SynthError: Error, Equatable, Sendable, CustomStringConvertible {
    case nonPositiveDuration(Double)
    case tooShort(Double, minimum: Double)
    case nonPositivePresses(Int)
    case pressesDoNotFit(Int, needSeconds: Double, haveSeconds: Double)
    case badMasses([Double])
    case needsCells(String, panel: String)

    public var description: String {
        switch self {
        case .nonPositiveDuration(let d):
            return "--duration must be above zero seconds, got \(JSON.format(d))"
        case .tooShort(let d, let minimum):
            return "--duration \(JSON.format(d)) s is too short for a press; give at least \(JSON.format(minimum)) s"
        case .nonPositivePresses(let n):
            return "--presses must be at least 1, got \(n)"
        case .badMasses(let m):
            return "--masses must be one or more masses above zero grams, got \(m.map { JSON.format($0) }.joined(separator: ","))"
        case .needsCells(let scenarios, let panel):
            return "--scenario \(scenarios) moves presses across a plate with several cells, and \(panel) has one; use --panel \(PanelKind.multiCellNamesText)"
        case .pressesDoNotFit(let n, let need, let have):
            return "\(n) presses need about \(Int(need.rounded(.up))) s but the recording lasts \(JSON.format(have)) s; give a longer --duration or fewer --presses"
        }
    }
}

/// A sequence of non-overlapping presses with quiet gaps between them.
public struct PressScript: Sendable {
    public var presses: [Press]

    /// The noise-free total force at `t`.
    public func force(at t: Double) -> Double {
        guard let p = pressIndex(at: t) else { return 0 }
        return presses[p].force(at: t)
    }

    /// The press whose span holds `t`, if any.
    public func pressIndex(at t: Double) -> Int? {
        // Binary search on start times: presses are sorted and disjoint.
        var low = 0
        var high = presses.count
        while low < high {
            let mid = (low + high) / 2
            if presses[mid].start <= t { low = mid + 1 } else { high = mid }
        }
        let i = low - 1
        guard i >= 0, t < presses[i].end else { return nil }
        return i
    }

    /// Builds a script for `model` that fits in `seconds`.
    ///
    /// - Parameters:
    ///   - count: presses wanted; nil fills the time.
    ///   - hardSlam: make one slam hard enough to clip. The random draws are the
    ///     same either way, so switching saturation off leaves every other press as it was.
    public static func make(for model: PanelModel, seconds: Double, count: Int?, hardSlam: Bool,
                            scenarios: ScenarioSet = [], random: inout SeededRandom) throws(SynthError) -> PressScript {
        let rate = model.sampleRateHz
        let scan = 1 / rate
        let tail = max(1.0, 10 * scan)
        let minimum = 2 * tail + 2.5
        if seconds < minimum { throw .tooShort(seconds, minimum: (minimum * 10).rounded(.up) / 10) }
        let leadIn = tail + random.uniform(0, 1)

        // Every kind once, in a seeded order, then a weighted mix. The slam
        // goes where the hard slam (if any) belongs, so no kind is displaced.
        var order: [PressKind] = [.peek, .pop, .tap, .tremor, .ramp, .double]
        for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, random.integer(0...i)) }
        var hardIndex = random.integer(1...3)
        if let count { hardIndex = min(hardIndex, max(0, count - 1)) }
        order.insert(.slam, at: hardIndex)
        var weighted: [PressKind] = [.peek, .peek, .peek, .pop, .pop, .pop, .tap, .slam, .slam, .tremor, .ramp, .double]
        // Scenario shapes: each once after the standard kinds (a long hold last,
        // as it may not fit), then twice each in the mix. Without scenarios the
        // draws are exactly those of before.
        let shapes: [(ScenarioSet, PressKind)] = [(.tappingBursts, .burst), (.partialLetGos, .partial), (.slowRamps, .slowPop),
                                                  (.lowRateTaps, .quickTap), (.clippedHolds, .clippedHold), (.longHolds, .longHold)]
        for (scenario, kind) in shapes where scenarios.contains(scenario) {
            order.append(kind)
            if kind != .longHold { weighted += [kind, kind] }
        }

        var presses: [Press] = []
        var t = leadIn
        var index = 0
        while true {
            if let count, index >= count { break }
            let kind = index < order.count ? order[index] : random.pick(weighted)
            let isHard = index == hardIndex
            var press = makePress(kind, at: t, model: model, hard: isHard && hardSlam, random: &random)
            if isHard && hardSlam { press.kind = .hardSlam }
            // Quiet time after each press: long enough for the labels of
            // neighbouring presses never to share a scoring window.
            let gap = max(0.8, 8 * scan) + random.uniform(0, 1.2)
            if press.end + tail > seconds {
                if let count {
                    let perPress = (press.end - leadIn) / Double(index + 1) + gap
                    throw .pressesDoNotFit(count, needSeconds: leadIn + tail + perPress * Double(count), haveSeconds: seconds)
                }
                break
            }
            presses.append(press)
            t = press.end + gap
            index += 1
        }
        return PressScript(presses: presses)
    }

    private static func makePress(_ kind: PressKind, at t0: Double, model: PanelModel, hard: Bool,
                                  random: inout SeededRandom) -> Press {
        let scan = 1 / model.sampleRateHz
        let peek = model.peekNewtons
        let pop = model.popNewtons
        var x = random.uniform(0.1, 0.9)
        var y = random.uniform(0.1, 0.9)
        // Drawn for every press so that the stream does not depend on `hard`.
        let cornerX = random.uniform(0.05, 0.2)
        let cornerY = random.uniform(0.05, 0.2)
        if hard {
            // A hard slam lands near a corner, so one cell takes most of it.
            x = x < 0.5 ? cornerX : 1 - cornerX
            y = y < 0.5 ? cornerY : 1 - cornerY
        }
        // Onto the panel's own press area (the bar's line, inside the triangle).
        (x, y) = model.pressSpot(drawn: (x, y))
        let cap = 0.6 * model.railForce(at: (x, y))
        let tremorHz = (random.uniform(6, 11), random.uniform(2, 5))
        let tremorPhase = (random.uniform(0, 2 * .pi), random.uniform(0, 2 * .pi))
        let hold = max(0.3, 4 * scan)

        /// A level between peek and pop that tremor `a` cannot push across either.
        func peekLevel(_ a: Double) -> Double {
            random.uniform(1.15 * peek / (1 - a), 0.92 * pop / (1 + a))
        }
        func popLevel() -> Double { min(cap, pop * random.uniform(1.2, 1.9)) }

        var k: [Keyframe] = [Keyframe(time: t0, level: 0)]
        var t = t0
        func to(_ level: Double, after dt: Double, linear: Bool = false, tremor: Double = 0) {
            k[k.count - 1].linear = linear
            k[k.count - 1].tremor = tremor
            t += dt
            k.append(Keyframe(time: t, level: level))
        }
        switch kind {
        case .tap:
            let level = peek * random.uniform(0.25, 0.7)
            to(level, after: random.uniform(0.08, 0.2))
            to(level, after: random.uniform(0.05, 0.25))
            to(0, after: random.uniform(0.08, 0.2))
        case .peek, .tremor:
            let a = kind == .tremor ? random.uniform(0.10, 0.15) : random.uniform(0, 0.06)
            let level = peekLevel(a)
            to(level, after: random.uniform(0.06, 0.25))
            let h = kind == .tremor ? random.uniform(1.5, 3.0) : hold + random.uniform(0, 0.9)
            to(level, after: h, tremor: a)
            to(0, after: random.uniform(0.05, 0.2))
        case .pop:
            let a1 = random.uniform(0, 0.08)
            let l1 = peekLevel(a1)
            to(l1, after: random.uniform(0.06, 0.25))
            to(l1, after: hold + random.uniform(0, 0.5), tremor: a1)
            let l2 = popLevel()
            to(l2, after: random.uniform(0.08, 0.3))
            to(l2, after: hold + random.uniform(0, 0.5), tremor: random.uniform(0, 0.15))
            to(0, after: random.uniform(0.06, 0.2))
        case .slam, .hardSlam:
            let rail = model.railForce(at: (x, y))
            let level = hard ? rail * random.uniform(1.08, 1.25) : min(cap, pop * random.uniform(1.3, 2.2))
            to(level, after: random.uniform(0.01, 0.04))
            // A hard slam clips only briefly: a knock, not a lean.
            let h = hard ? max(0.06, 2 * scan) + random.uniform(0, 0.08) : max(0.1, 2 * scan) + random.uniform(0, 0.3)
            to(level, after: h)
            to(0, after: random.uniform(0.05, 0.15))
        case .ramp:
            let toPop = random.chance(0.5)
            let level = toPop ? popLevel() : peekLevel(0.05)
            to(level, after: random.uniform(1.0, 3.0), linear: true)
            to(level, after: hold + random.uniform(0, 0.7), tremor: random.uniform(0, 0.05))
            to(0, after: random.uniform(0.1, 0.3))
        case .double:
            let l1 = peekLevel(0)
            to(l1, after: random.uniform(0.05, 0.15))
            to(l1, after: max(0.12, 2 * scan) + random.uniform(0, 0.2))
            to(0, after: random.uniform(0.05, 0.1))
            // Fully released between the two: the second press is a new press.
            to(0, after: max(0.3, 6 * scan) + random.uniform(0, 0.2))
            let second = random.chance(0.5) ? popLevel() : peekLevel(0.05)
            to(second, after: random.uniform(0.05, 0.15))
            to(second, after: max(0.15, 2 * scan) + random.uniform(0, 0.3), tremor: second > pop ? 0.05 : 0)
            to(0, after: random.uniform(0.05, 0.12))
        case .burst:
            let taps = random.integer(6...12)
            let period = max(5 * scan, random.uniform(0.08, 0.25))
            for _ in 0..<taps {
                let level = peekLevel(0)
                to(level, after: period * 0.25)
                to(level, after: period * 0.25)
                to(peek * random.uniform(0, 0.4), after: period * 0.25)
                to(k[k.count - 1].level, after: period * 0.25)
            }
            to(0, after: period * 0.25)
        case .partial:
            let level = peekLevel(0.03)
            to(level, after: random.uniform(0.06, 0.2))
            to(level, after: random.uniform(0.3, 0.6), tremor: 0.03)
            let dip = peek * random.uniform(0.55, 0.7)
            to(dip, after: random.uniform(0.1, 0.2))
            to(dip, after: max(2 * scan, random.uniform(0.1, 0.3)))
            to(level, after: random.uniform(0.1, 0.2))
            to(level, after: random.uniform(0.3, 0.6), tremor: 0.03)
            to(0, after: random.uniform(0.06, 0.2))
        case .slowPop:
            to(peek * random.uniform(1.05, 1.2), after: random.uniform(0.1, 0.2))
            let level = popLevel()
            to(level, after: random.uniform(1.5, 3.0), linear: true)
            to(level, after: hold + random.uniform(0, 0.4))
            to(0, after: random.uniform(0.06, 0.2))
        case .quickTap:
            let level = peekLevel(0)
            to(level, after: random.uniform(0.03, 0.05))
            to(level, after: random.uniform(0.06, 0.15))
            to(0, after: random.uniform(0.03, 0.05))
        case .longHold:
            let level = peekLevel(0.04)
            to(level, after: random.uniform(0.1, 0.25))
            to(level, after: random.uniform(20, 40), tremor: 0.04)
            to(0, after: random.uniform(0.06, 0.2))
        case .clippedHold:
            let level = min(cap, pop * random.uniform(1.3, 1.8))
            to(level, after: random.uniform(0.1, 0.3))
            to(level, after: random.uniform(2.5, 4.0))
            to(0, after: random.uniform(0.06, 0.2))
        case .mass, .light, .firm:
            preconditionFailure("calibration-session presses come from PressScript.calibrationSession")
        }
        // The residual grows with the press but stays below an eighth of the
        // peek level, so that even overlapping tails stay under a quarter.
        let relax = peek * min(0.12, 0.03 * k.map(\.level).max()! / peek) * random.uniform(0.6, 1.0)
        return Press(kind: kind, keyframes: k, x: x, y: y, tremorHz: tremorHz, tremorPhase: tremorPhase,
                     relaxationNewtons: relax, relaxationSeconds: random.uniform(0.4, 1.5))
    }
}
