import Foundation
import ForceStageCore

/// An FSR's creep measured over the masses' holds: under a constant load its
/// reading rises as `F (1 + a (1 - exp(-t / tau)))`, `t` from the load's
/// onset, which is the model the classifier divides out until the pop
/// (``ClassifierSettings/creepAmount``, ``ClassifierSettings/creepMilliseconds``).
struct CreepFit: Equatable {
    /// The rise from the reading at the load's onset to the asymptote, relative to the former.
    var amount: Double
    /// The rise's time constant, seconds.
    var tauSeconds: Double
    /// The rise (newtons) and its standard error under the noise.
    var rise: Double
    var riseError: Double

    /// What one hold says about the creep.
    enum Outcome: Equatable {
        /// A rise clear of the noise, with its time constant inside the hold.
        case creeps(CreepFit)
        /// No rise beyond the noise (or a fall): the sensor does not creep.
        case flat(rise: Double, riseError: Double)
        /// A rise clear of the noise, but still climbing when the mass was
        /// lifted: its asymptote (and so amount and time constant) is not shown.
        case unresolved(rise: Double, seconds: Double)
        /// No usable hold: too short, or no load.
        case unusable(String)
    }

    /// The time constants tried, seconds: 0.1 s to 60 s, geometric (2 % steps).
    static let grid: [Double] = (0...320).map { 0.1 * pow(600, Double($0) / 320) }

    /// Fits one hold.
    ///
    /// - Parameters:
    ///   - newtons: the load's reading above the rest, per scan from the load's onset (the lift included).
    ///   - noise: the reading's noise, newtons rms (the fit's error is at least that).
    static func fit(_ newtons: [Double], sampleRateHz: Double, noise: Double) -> Outcome {
        guard sampleRateHz > 0, sampleRateHz.isFinite, newtons.count >= 8,
              newtons.allSatisfy(\.isFinite) else { return .unusable("no hold to fit") }
        let smooth = medianOfThree(newtons)
        guard let top = smooth.max(), top > 0,
              let last = smooth.lastIndex(where: { $0 >= 0.9 * top }) else { return .unusable("no load above the rest") }
        // The hold: from where the set-down reached 90 % of the reading the
        // mass was lifted at, a fifth of a second on (the hand leaving it),
        // to a fifth of a second before the lift.
        let margin = Int((0.2 * sampleRateHz).rounded(.up))
        guard let reached = smooth.firstIndex(where: { $0 >= 0.9 * smooth[last] }) else { return .unusable("no hold") }
        let first = reached + margin, end = last - margin
        guard end - first + 1 >= max(8, Int(sampleRateHz)) else {
            return .unusable("the hold lasted \(n(Double(max(0, end - first + 1)) / sampleRateHz, 1)) s, under the second a fit needs")
        }
        let t = (first...end).map { Double($0) / sampleRateHz }
        let y = Array(newtons[first...end])
        let count = Double(y.count)
        let my = y.reduce(0, +) / count
        // Least squares of a + b (1 - exp(-t / tau)) for each tau on the grid.
        var best: (sse: Double, a: Double, b: Double, tau: Double, sgg: Double)?
        for tau in grid {
            let g = t.map { 1 - exp(-$0 / tau) }
            let mg = g.reduce(0, +) / count
            var sgg = 0.0, sgy = 0.0
            for i in g.indices {
                sgg += (g[i] - mg) * (g[i] - mg)
                sgy += (g[i] - mg) * (y[i] - my)
            }
            guard sgg > 1e-9 * count else { continue }
            let b = sgy / sgg
            let a = my - b * mg
            var sse = 0.0
            for i in g.indices { let r = y[i] - a - b * g[i]; sse += r * r }
            if best == nil || sse < best!.sse { best = (sse, a, b, tau, sgg) }
        }
        guard let fit = best, fit.a > 0 else { return .unusable("the hold did not read above the rest") }
        let sigma = max((fit.sse / max(1, count - 2)).squareRoot(), noise)
        let error = sigma / fit.sgg.squareRoot()
        // A rise four standard errors clear, and at least half a per cent of the
        // load (smaller creep is not worth compensating: compensating a creep
        // that is not there makes a slow press late).
        guard fit.b > 4 * error && fit.b > 0.005 * fit.a else { return .flat(rise: fit.b, riseError: error) }
        // A time constant past the hold's length (or at the grid's end) is not
        // told apart from a larger amount reached later: the asymptote is unseen.
        let seconds = t.last!
        if fit.tau > seconds || fit.tau >= grid.last! { return .unresolved(rise: fit.b / fit.a, seconds: seconds) }
        return .creeps(CreepFit(amount: fit.b / fit.a, tauSeconds: fit.tau, rise: fit.b, riseError: error))
    }
}
