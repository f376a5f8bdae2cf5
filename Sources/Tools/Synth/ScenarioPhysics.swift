import Foundation
import ForceStageFormats

/// What the scenarios (``ScenarioSet``) do to the force a sensor reads, scan
/// by scan. The finger's force (and so every label) is left alone.
struct ScenarioPhysics {
    enum Reading: Equatable { case live, floor, clipped }

    let scenarios: ScenarioSet
    let model: PanelModel
    let script: PressScript
    /// Per press: creep amount, creep time constant (s), hysteresis on unloading.
    var creep: [(amount: Double, tau: Double, hysteresis: Double)] = []
    /// Vibration bursts: start (s), length (s), frequency (Hz), amplitude (N),
    /// and the phase (radians) the oscillation starts at.
    var bursts: [(start: Double, length: Double, hz: Double, newtons: Double, phase: Double)] = []
    /// Thermal ramp: amplitude (N) and period (s) of a triangle wave.
    var thermal: (newtons: Double, period: Double) = (0, 1)
    /// The mechanical stop for clipped holds, newtons.
    let stop: Double
    /// Extra noise per cell for a low signal-to-noise panel, counts rms.
    var extraNoiseCounts: [Double]

    init(_ scenarios: ScenarioSet, model: PanelModel, script: PressScript, duration: Double, random: SeededRandom) {
        var random = random
        self.scenarios = scenarios
        self.model = model
        self.script = script
        stop = model.popNewtons * 1.15
        extraNoiseCounts = [Double](repeating: 0, count: model.cellCount)
        let peek = model.peekNewtons
        if scenarios.contains(.lowSNR) {
            // About 4 % of the peek level rms over the whole panel.
            let perCell = 0.04 * peek / Double(model.cellCount).squareRoot()
            extraNoiseCounts = model.transducers.map { perCell * abs($0.slope(at: peek)) }
        }
        creep = script.presses.map { _ in
            (random.uniform(0.05, 0.14), random.uniform(1, 3), random.uniform(0.05, 0.10))
        }
        if scenarios.contains(.vibration) {
            // In quiet gaps of at least 1.2 s, clear of presses by 0.4 s each side.
            var gaps: [(Double, Double)] = []
            var last = 0.0
            for p in script.presses { gaps.append((last, p.start)); last = p.end + 1.5 }
            gaps.append((last, duration))
            for (a, b) in gaps where b - a >= 1.2 && random.chance(0.7) {
                let length = random.uniform(0.1, 0.3)
                let start = random.uniform(a + 0.4, max(a + 0.4, b - 0.4 - length))
                bursts.append((start, length, random.uniform(20, 60), random.uniform(2, 5), 0))
            }
        }
        if scenarios.contains(.thermalRamps) {
            let amplitude = peek / 3 * random.uniform(0.6, 1)
            // No faster than 0.03 N/s: a quarter period rises the whole amplitude.
            thermal = (amplitude, max(4 * amplitude / 0.03, random.uniform(40, 120)))
        }
        // Each burst starts at a random phase, so its first swing goes up as
        // often as down (a slam can shake the plate either way first), and may
        // start part-way through a swing. Drawn after every other draw, so the
        // other scenarios' draws are those they always were.
        for i in bursts.indices { bursts[i].phase = random.uniform(0, 2 * .pi) }
    }

    /// Bounds a cell's counts by the sensor's floor (zero floor: it never reads
    /// below its unloaded word) and its stop (clipped holds: never above the
    /// stop's word), in whichever direction the transducer's counts run.
    func bound(_ counts: Double, cell c: Int) -> Double {
        var v = counts
        let shares = Double(model.cellCount)
        if scenarios.contains(.zeroFloor) {
            let floor = model.transducers[c].counts(0).rounded()
            v = model.transducers[c].slope(at: 0) >= 0 ? max(v, floor) : min(v, floor)
        }
        if scenarios.contains(.clippedHolds) {
            // The stop as this cell sees it when the plate is pressed evenly.
            let top = model.transducers[c].counts(stop / shares).rounded()
            if cellCount == 1 { v = model.transducers[c].slope(at: 0) >= 0 ? min(v, top) : max(v, top) }
        }
        return v
    }

    var cellCount: Int { model.cellCount }

    /// The thermal ramp's offset at `t` (a triangle), shared evenly by the cells.
    private func addThermal(t: Double, cellForce: inout [Double]) {
        guard scenarios.contains(.thermalRamps) else { return }
        let phase = (t / thermal.period).truncatingRemainder(dividingBy: 1)
        let tri = phase < 0.5 ? 2 * phase : 2 - 2 * phase
        let cells = Double(cellForce.count)
        for i in cellForce.indices { cellForce[i] += thermal.newtons * tri / cells }
    }

    /// Applies the physics to the mechanical force on each cell at `t`; returns
    /// whether the sensor reads live, at its floor, or clipped against the stop.
    func apply(t: Double, pressIndex: Int?, cellForce: inout [Double]) -> Reading {
        guard !scenarios.isEmpty else { return .live }
        let cells = Double(cellForce.count)
        if scenarios.contains(.fsrCreep), let p = pressIndex {
            let press = script.presses[p]
            let c = creep[p]
            var factor = 1 + c.amount * (1 - exp(-(t - press.start) / c.tau))
            if t > press.fallStart { factor *= 1 - c.hysteresis }
            for i in cellForce.indices { cellForce[i] *= factor }
        }
        var total = cellForce.reduce(0, +)
        if scenarios.contains(.clippedHolds) && total > stop {
            for i in cellForce.indices { cellForce[i] *= stop / total }
            // A stop bounds the force; the thermal ramp moves the sensor's
            // zero, so it reads on top of the stop as on any other force
            // (it was dropped here: a clipped hold on a ramp read the stop
            // net of the ramp's offset, below the pop level at 1.15 x pop
            // once the offset passed 0.13 x pop). The word stays exact.
            addThermal(t: t, cellForce: &cellForce)
            return .clipped
        }
        var shaking = false
        for b in bursts where t >= b.start && t < b.start + b.length {
            // Decaying, zero-mean, starting at the burst's phase; the whole plate shakes.
            let u = (t - b.start) / b.length
            let f = b.newtons * (1 - u) * sin(2 * .pi * b.hz * (t - b.start) + b.phase)
            for i in cellForce.indices { cellForce[i] += f / cells }
            shaking = true
        }
        addThermal(t: t, cellForce: &cellForce)
        total = cellForce.reduce(0, +)
        if scenarios.contains(.zeroFloor) && !shaking && pressIndex == nil && total < 0.02 * model.peekNewtons {
            for i in cellForce.indices { cellForce[i] = 0 }
            return .floor
        }
        return .live
    }
}
