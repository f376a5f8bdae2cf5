import ForceStageCore
import ForceStageFormats

/// What the unloaded panel showed.
public struct UnloadedMeasurement: Equatable, Sendable {
    /// Per force channel: the median raw value, the panel's zero.
    public var zeroRaw: [Double]
    /// The summed channels' noise around a straight line, counts rms.
    public var noiseCounts: Double
    /// The summed channels' drift, counts per second.
    public var driftCountsPerSecond: Double
    /// Single-scan spikes seen (more than 8 noise widths off, alone).
    public var spikes: Int
    public var seconds: Double
}

/// Why the measurements do not give a profile.
public enum RecommendationProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The light presses barely rose above the noise.
    case lightInNoise(lightMinimum: Double, noise: Double)
    /// No level fits between the light and the firm presses.
    case overlap(light: ClosedRange<Double>, firm: ClosedRange<Double>)

    public var description: String {
        switch self {
        case .lightInNoise(let low, let noise):
            return "the light presses held only \(n(low)) N, too close to the noise (\(n(noise, 3)) N) to set a peek level; press a little harder"
        case .overlap(let light, let firm):
            return "light presses held \(n(light.lowerBound))-\(n(light.upperBound)) N and firm ones \(n(firm.lowerBound))-\(n(firm.upperBound)) N: they overlap, so no pop level separates them; press the light ones lighter and the firm ones clearly firmer"
        }
    }
}

/// The classifier settings a session's measurements call for, each with its
/// one-line reason.
public struct Recommendation: Sendable {
    public var settings: ClassifierSettings
    public var budgetMilliseconds: Double
    /// One line per recommended value, saying what it came from.
    public var reasons: [String]

    /// Recommends levels, hysteresis and debounce.
    ///
    /// - Peek: 75 % of the lowest force any light press held (tremor included),
    ///   so every light press clears it with a quarter to spare, and at least
    ///   ten noise widths.
    /// - Pop: 80 % of the lowest force any firm press held, and at least 10 %
    ///   above the highest a light press reached; when both cannot hold, the
    ///   geometric middle of the gap. Fails when firm presses do not clear the
    ///   light ones by 15 %.
    /// - Release fraction (hysteresis): 1 - 3 x the largest tremor measured
    ///   during holds, within 0.5-0.7, so a wavering hold never releases.
    /// - Debounce: eager press (no added latency) locking out release for one
    ///   scan; deferred release over one scan, two when the noise is above 2 %
    ///   of the release level. Spike rejection stays on (median of three); the
    ///   reason line gives the spikes seen.
    ///
    /// - Parameters:
    ///   - noiseNewtons: rms noise of the unloaded panel.
    ///   - driftNewtonsPerSecond: its drift.
    ///   - spikes: single-scan spikes seen while idle, over `idleSeconds`.
    public init(light: [PressStatistics], firm: [PressStatistics], noiseNewtons: Double, driftNewtonsPerSecond: Double,
                spikes: Int, idleSeconds: Double, sampleRateHz: Double) throws(RecommendationProblem) {
        let lightLow = light.map(\.holdMinimum).min() ?? 0
        let lightHigh = light.map(\.maximum).max() ?? 0
        let lightHoldHigh = light.map(\.holdMaximum).max() ?? 0
        let firmLow = firm.map(\.holdMinimum).min() ?? 0
        let firmHigh = firm.map(\.holdMaximum).max() ?? 0
        let noise = max(noiseNewtons, 1e-6)
        guard lightLow > 20 * noise else { throw .lightInNoise(lightMinimum: lightLow, noise: noise) }
        guard firmLow > 1.15 * lightHigh else {
            throw .overlap(light: (light.map(\.holdMinimum).min() ?? 0)...lightHoldHigh, firm: firmLow...max(firmLow, firmHigh))
        }
        var reasons: [String] = []
        let lightMedians = light.map(\.holdMedian)
        let peek = round2(max(0.75 * lightLow, 10 * noise))
        reasons.append("peek \(n(peek)) N: 75 % of the lowest light hold; your light presses held \(n(lightMedians.min()!))-\(n(lightMedians.max()!)) N (dipping to \(n(lightLow)) N), noise \(n(noise, 3)) N")

        var pop = 0.8 * firmLow
        var popWhy = "80 % of the lowest firm hold"
        if pop < 1.1 * lightHigh {
            pop = (lightHigh * firmLow).squareRoot()
            popWhy = "midway (geometric) between the firmest light press and the lowest firm hold"
        }
        pop = max(round2(pop), peek + 0.01)
        let firmMedians = firm.map(\.holdMedian)
        reasons.append("pop \(n(pop)) N: \(popWhy); your firm presses held \(n(firmMedians.min()!))-\(n(firmMedians.max()!)) N (dipping to \(n(firmLow)) N), the light ones reached \(n(lightHigh)) N")

        let tremor = (light + firm).map(\.tremor).max() ?? 0
        let fraction = (min(0.7, max(0.5, 1 - 3 * tremor)) * 20).rounded() / 20
        reasons.append("release at \(Int((fraction * 100).rounded())) % of peek (\(n(peek * fraction)) N): your holds wavered up to ±\(Int((tremor * 100).rounded())) %; the hysteresis is three times that (kept within 50-70 %)")

        let scanMs = 1000 / sampleRateHz
        var settings = ClassifierSettings(peekNewtons: Float(peek), popNewtons: Float(pop))
        settings.releaseFraction = Float(fraction)
        let pressMs = (max(5, scanMs) * 10).rounded() / 10
        settings.pressDebounce = Debounce(.eager, milliseconds: Float(pressMs))
        let noisy = noise > 0.02 * peek * fraction
        let releaseMs = ((noisy ? 2 : 1) * max(10, scanMs) * 10).rounded() / 10
        settings.releaseDebounce = Debounce(.deferred, milliseconds: Float(releaseMs))
        reasons.append("debounce: press eager (no added latency, release locked out \(n(pressMs, 1)) ms), release deferred \(n(releaseMs, 1)) ms: noise is \(n(100 * noise / (peek * fraction), 1)) % of the release level\(noisy ? ", so two scans must agree" : "")")
        settings.spikeRejection = true
        let rate = idleSeconds > 0 ? Double(spikes) / idleSeconds * 60 : 0
        reasons.append("spike rejection on (median of three, one scan of latency): \(spikes) single-scan spike\(spikes == 1 ? "" : "s") in \(n(idleSeconds, 0)) s idle (\(n(rate, 1))/min)")
        let drift = abs(driftNewtonsPerSecond)
        if drift > Double(settings.baseline.maximumDriftNewtonsPerSecond) {
            reasons.append("baseline: the unloaded panel drifted \(n(drift, 3)) N/s, faster than the \(n(Double(settings.baseline.maximumDriftNewtonsPerSecond), 2)) N/s tracking takes for drift; let it warm up and calibrate again")
        } else {
            reasons.append("baseline: the unloaded panel drifted \(n(drift, 4)) N/s; tracking follows up to \(n(Double(settings.baseline.maximumDriftNewtonsPerSecond), 2)) N/s (rise \(Int(settings.baseline.riseMilliseconds)) ms)")
        }
        let delayScans = 1.0 + (settings.spikeRejection ? 1 : 0)
        let budget = ((delayScans * scanMs + 10) / 5).rounded(.up) * 5
        reasons.append("latency budget \(Int(budget)) ms: \(Int(delayScans)) scans of \(n(scanMs, 1)) ms (the press scan and the spike filter's) plus 10 ms for the host")
        self.settings = settings
        self.budgetMilliseconds = budget
        self.reasons = reasons
    }
}

func round2(_ x: Double) -> Double { (x * 100).rounded() / 100 }

/// A number with `digits` decimals, for people.
func n(_ x: Double, _ digits: Int = 2) -> String { fixed(x, digits) }
