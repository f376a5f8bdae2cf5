import Foundation
import ForceStageCore
import ForceStageFormats

/// What a synthesized recording's presses are.
public enum SynthScript: Equatable, Sendable {
    /// The standard mix of peeks, pops, taps, tremor, ramps, doubles and slams.
    case standard
    /// A calibration session as `forcestage calibrate` asks for it: the panel
    /// unloaded, each known mass (grams) set down and lifted off (on a plate of two
    /// to four cells the first mass on each cell's mark, then on the check spot), five light
    /// presses, five firm presses, then verification presses (light, firm,
    /// a tap, light, firm).
    case calibrationSession(massesGrams: [Double])
}

/// Standard gravity, m/s²: grams to newtons.
public let standardGravity = 9.80665

extension PressScript {
    /// The presses a technician makes during `forcestage calibrate`, with the
    /// pauses a person takes between prompts.
    ///
    /// Light presses hold between 1.2 and 1.6 times the model's peek level,
    /// firm ones between 1.3 and 1.8 times its pop level, each with 2-8 %
    /// tremor: a person asked for a light and a firm press, on a panel whose
    /// intended levels are the model's.
    public static func calibrationSession(for model: PanelModel, massesGrams: [Double],
                                          random: inout SeededRandom) throws(SynthError) -> PressScript {
        guard !massesGrams.isEmpty, massesGrams.allSatisfy({ $0 > 0 && $0.isFinite }) else {
            throw .badMasses(massesGrams)
        }
        let peek = model.peekNewtons
        let pop = model.popNewtons
        var presses: [Press] = []
        var t = 5.0 + random.uniform(0, 0.5)  // the unloaded panel while the technician reads the first prompt

        func press(_ kind: PressKind, _ frames: [(dt: Double, level: Double, tremor: Double)], relax: Double,
                   at spot: (x: Double, y: Double)? = nil) {
            var k = [Keyframe(time: t, level: 0)]
            for f in frames {
                k[k.count - 1].tremor = f.tremor
                t += f.dt
                k.append(Keyframe(time: t, level: f.level))
            }
            let tremorHz = (random.uniform(6, 11), random.uniform(2, 5))
            let phase = (random.uniform(0, 2 * .pi), random.uniform(0, 2 * .pi))
            let drawn = model.pressSpot(drawn: (random.uniform(0.3, 0.7), random.uniform(0.3, 0.7)))
            presses.append(Press(kind: kind, keyframes: k, x: spot?.x ?? drawn.x, y: spot?.y ?? drawn.y,
                                 tremorHz: tremorHz, tremorPhase: phase,
                                 relaxationNewtons: relax, relaxationSeconds: random.uniform(0.4, 1.0)))
        }
        func held(_ kind: PressKind, level: Double) {
            let a = random.uniform(0.02, 0.08)
            press(kind, [(random.uniform(0.15, 0.3), level, 0), (random.uniform(0.9, 1.4), level, a),
                         (random.uniform(0.1, 0.2), 0, 0)],
                  relax: peek * 0.03 * random.uniform(0.5, 1))
            t += random.uniform(1.0, 1.8)
        }

        func weigh(_ grams: Double, at spot: (x: Double, y: Double)) {
            // Set down over a moment, left still (a mass has no tremor), lifted off.
            let newtons = grams / 1000 * standardGravity
            let cap = 0.9 * model.railForce(at: spot)
            press(.mass, [(random.uniform(0.3, 0.6), min(newtons, cap), 0), (random.uniform(3.5, 4.5), min(newtons, cap), 0),
                          (random.uniform(0.3, 0.6), 0, 0)], relax: 0, at: spot)
            t += random.uniform(2.5, 3.5)
        }
        if let cells = CalibrationPlan.standardCells(count: model.cellCount) {
            // Cell by cell, as `calibrate` asks on a plate of two to four cells: the
            // first mass on each cell's mark in turn (set down within a centimetre or
            // so of it; on a bar, along the bar), then on the check spot.
            for s in cells.spots + [cells.check] {
                let dx = random.uniform(-0.01, 0.01), dy = random.uniform(-0.01, 0.01)
                weigh(massesGrams[0], at: (Double(s.x) + dx, model.cellCount == 2 ? Double(s.y) : Double(s.y) + dy))
            }
        } else {
            for grams in massesGrams { weigh(grams, at: (0.5, 0.5)) }
        }
        t += 1.5
        for _ in 0..<5 { held(.light, level: peek * random.uniform(1.2, 1.6)) }
        t += 1.5
        for _ in 0..<5 { held(.firm, level: pop * random.uniform(1.3, 1.8)) }
        t += 2
        // Verification: the technician tries the recommended levels.
        held(.light, level: peek * random.uniform(1.2, 1.6))
        held(.firm, level: pop * random.uniform(1.3, 1.8))
        let tap = peek * random.uniform(0.3, 0.6)
        press(.tap, [(0.12, tap, 0), (0.15, tap, 0), (0.12, 0, 0)], relax: 0)
        t += random.uniform(1.0, 1.5)
        held(.light, level: peek * random.uniform(1.2, 1.6))
        held(.firm, level: pop * random.uniform(1.3, 1.8))
        return PressScript(presses: presses)
    }
}

extension ForceMapping {
    /// Newtons for a raw value, in Double (the core's ``ChannelCalibration`` works in Float).
    public func newtons(forRaw raw: Double) -> Double {
        switch self {
        case .linear(let zero, let scale):
            return (raw - zero) * scale
        case .curve(let points):
            guard let first = points.first, let last = points.last else { return 0 }
            if raw <= first.raw { return first.newtons }
            if raw >= last.raw { return last.newtons }
            var i = 1
            while points[i].raw < raw { i += 1 }
            let a = points[i - 1], b = points[i]
            return a.newtons + (raw - a.raw) / (b.raw - a.raw) * (b.newtons - a.newtons)
        }
    }
}
