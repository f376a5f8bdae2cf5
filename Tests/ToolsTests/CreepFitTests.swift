import Foundation
import Testing
@testable import ForceStageTools

/// The creep fit on holds drawn here: an FSR's rise `F (1 + a (1 - exp(-t / tau)))`
/// after a set-down ramp, with gaussian noise, and the holds a session must not trap on.
@Suite("Creep fit")
struct CreepFitTests {
    /// A mass set down over `ramp` s, held to `hold` s, lifted over 0.4 s, at `rate` scans/s.
    func hold(newtons f: Double, amount a: Double, tau: Double, rate: Double = 200, ramp: Double = 0.4, hold: Double = 4.5,
              noise: Double, seed: UInt64 = 1) -> [Double] {
        var random = SeededRandom(seed: seed)
        let end = hold + 0.4
        return (0..<Int(end * rate)).map { i in
            let t = Double(i) / rate
            let load = t < ramp ? f * t / ramp : t < hold ? f : f * max(0, 1 - (t - hold) / 0.4)
            return load * (1 + a * (1 - exp(-t / tau))) + noise * random.gaussian()
        }
    }

    @Test("A creeping hold gives its amount and time constant back", arguments: [(0.05, 1.0), (0.10, 1.5), (0.14, 3.0)])
    func creeps(amount: Double, tau: Double) {
        let outcome = CreepFit.fit(hold(newtons: 2, amount: amount, tau: tau, noise: 0.004), sampleRateHz: 200, noise: 0.004)
        guard case .creeps(let fit) = outcome else { Issue.record("\(outcome)"); return }
        // 0.2 % noise on 2 N over 4 s of hold: within half a point and 10 %.
        #expect(abs(fit.amount - amount) < 0.005, "\(fit.amount) vs \(amount)")
        #expect(abs(fit.tauSeconds / tau - 1) < 0.1, "\(fit.tauSeconds) s vs \(tau) s")
    }

    @Test("A hold that does not creep, or relaxes, is flat; one still rising at the lift is unresolved")
    func flatAndUnresolved() {
        let flat = CreepFit.fit(hold(newtons: 2, amount: 0, tau: 1, noise: 0.004), sampleRateHz: 200, noise: 0.004)
        guard case .flat = flat else { Issue.record("\(flat)"); return }
        let falling = CreepFit.fit(hold(newtons: 2, amount: -0.05, tau: 1, noise: 0.004), sampleRateHz: 200, noise: 0.004)
        guard case .flat = falling else { Issue.record("\(falling)"); return }
        // A rise of 0.2 % of the load in 2 % noise is not told from none.
        let buried = CreepFit.fit(hold(newtons: 2, amount: 0.002, tau: 1, noise: 0.04), sampleRateHz: 200, noise: 0.04)
        guard case .flat = buried else { Issue.record("\(buried)"); return }
        let slow = CreepFit.fit(hold(newtons: 2, amount: 0.3, tau: 30, noise: 0.004), sampleRateHz: 200, noise: 0.004)
        guard case .unresolved(let rise, let seconds) = slow else { Issue.record("\(slow)"); return }
        #expect(rise > 0 && seconds < 5)
    }

    @Test("Empty, short, constant-zero, negative and non-finite holds are refused with a reason, without a trap")
    func hostile() {
        let zero = [Double](repeating: 0, count: 1000)
        var nan = hold(newtons: 2, amount: 0.1, tau: 1, noise: 0.004)
        nan[500] = .nan
        let cases: [(String, [Double], Double)] = [
            ("empty", [], 200), ("one scan", [1], 200), ("zero", zero, 200), ("negative", zero.map { _ in -1 }, 200),
            ("nan", nan, 200), ("infinite", [Double](repeating: .infinity, count: 1000), 200),
            ("short", hold(newtons: 2, amount: 0.1, tau: 1, hold: 0.9, noise: 0.004), 200),
            ("no rate", zero, 0), ("nan rate", zero, .nan),
        ]
        for (name, values, rate) in cases {
            let outcome = CreepFit.fit(values, sampleRateHz: rate, noise: 0.004)
            guard case .unusable(let why) = outcome else { Issue.record("\(name): \(outcome)"); continue }
            #expect(!why.isEmpty && !why.contains("\n"), "\(name)")
        }
    }
}
