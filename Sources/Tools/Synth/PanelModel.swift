import Foundation
import ForceStageCore
import ForceStageFormats

/// The panels the synthesizer models, by their command-line name.
public enum PanelKind: String, CaseIterable, Sendable {
    /// One load cell on an HX711 at 10 scans/s.
    case hx711at10 = "hx711-10"
    /// One load cell on an HX711 at 80 scans/s.
    case hx711at80 = "hx711-80"
    /// A force-sensing resistor in a divider, read by an ADS1115 at 860 scans/s.
    case fsrADS1115 = "fsr-ads1115"
    /// Four load cells under the corners of a plate, read by an AD7124-4 at 500 scans/s.
    case panel4 = "panel4"
    /// A bar on two load cells, one under each end, read by an AD7124-4 at 500 scans/s.
    case panel2 = "panel2"
    /// A plate on three load cells (the recording spec's triangle: the two back
    /// corners and the front edge's middle), read by an AD7124-4 at 500 scans/s.
    case panel3 = "panel3"

    /// The names, for messages.
    public static var namesText: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The panels of the standard and scenario corpora: the four there were
    /// when they were fixed, so a panel added later leaves their bytes (and the
    /// event-stream goldens made from them) as they were.
    public static let corpusKinds: [PanelKind] = [.hx711at10, .hx711at80, .fsrADS1115, .panel4]

    /// How many force cells the panel has.
    public var cellCount: Int {
        switch self {
        case .hx711at10, .hx711at80, .fsrADS1115: return 1
        case .panel2: return 2
        case .panel3: return 3
        case .panel4: return 4
        }
    }

    /// The panels with several cells (press positions), for messages.
    public static var multiCellNamesText: String {
        let names = allCases.filter { $0.cellCount > 1 }.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}

/// How one force channel turns newtons on it into ADC counts.
public enum Transducer: Sendable {
    /// A strain-gauge bridge: counts = zero + newtons * countsPerNewton.
    case linear(zero: Double, countsPerNewton: Double)
    /// A force-sensing resistor in a divider.
    case fsr(FSRDivider)

    /// Counts for `newtons` on the channel, before noise and clipping.
    public func counts(_ newtons: Double) -> Double {
        switch self {
        case .linear(let zero, let cpn): return zero + newtons * cpn
        case .fsr(let divider): return divider.counts(newtons)
        }
    }

    /// Counts per newton around `newtons`, to express artefacts given in newtons.
    public func slope(at newtons: Double) -> Double {
        switch self {
        case .linear(_, let cpn): return cpn
        case .fsr: return (counts(newtons + 0.01) - counts(newtons)) / 0.01
        }
    }
}

/// An FSR between the supply and the ADC input, with a fixed resistor to
/// ground. The FSR's conductance grows roughly as a power of the force, so
/// the output is strongly non-linear: steep at first, flattening towards
/// the supply.
public struct FSRDivider: Sendable {
    /// Supply of the divider, volts.
    public var supplyVolts: Double
    /// The fixed resistor, ohms.
    public var measureOhms: Double
    /// The FSR's resistance at 1 N, ohms.
    public var ohmsAtOneNewton: Double
    /// Exponent of the conductance law, G ~ F^exponent.
    public var exponent: Double
    /// The unloaded FSR's resistance (leakage), ohms.
    public var openOhms: Double
    /// ADC counts per volt at the chosen full scale.
    public var countsPerVolt: Double

    /// Counts for `newtons` (negative force reads as none).
    public func counts(_ newtons: Double) -> Double {
        let f = max(0, newtons)
        let conductance = 1 / openOhms + Foundation.pow(f, exponent) / ohmsAtOneNewton
        let fsr = 1 / conductance
        return supplyVolts * measureOhms / (measureOhms + fsr) * countsPerVolt
    }

    /// The force that gives `counts`, by bisection (the curve is monotone).
    public func newtons(atCounts target: Double) -> Double {
        var low = 0.0
        var high = 1000.0
        if counts(high) <= target { return high }
        for _ in 0..<80 {
            let mid = (low + high) / 2
            if counts(mid) < target { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }
}

/// One manufactured unit of a supported panel: its channels, the physics
/// that maps force to counts, its calibration, its noise and its levels.
/// Unit-to-unit spread (zero offsets, gains, FSR parts) comes from the seed.
public struct PanelModel: Sendable {
    public var kind: PanelKind
    /// The IIO device name, as the real driver reports it.
    public var deviceName: String
    /// The nominal scans per second written to the metadata.
    public var sampleRateHz: Double
    /// The converter's clock error: the true rate is `sampleRateHz * (1 + clockError)`.
    public var clockError: Double
    /// Every channel in a scan (force channels first, then the timestamp).
    public var channels: [RecordingChannel]
    /// One transducer per force channel, in the order of `channels`.
    public var transducers: [Transducer]
    /// The calibration written with the recording.
    public var calibration: RecordingCalibration
    /// White noise per force channel, counts rms.
    public var noiseCounts: [Double]
    /// Mains hum amplitude per force channel, counts.
    public var humCounts: [Double]
    /// Mains frequency, Hz.
    public var mainsHz: Double
    /// Amplitude bound of the thermal drift per force channel, counts.
    public var driftCounts: [Double]
    /// Spike height range per force channel, counts.
    public var spikeCounts: [ClosedRange<Double>]
    /// Latency of the timestamp after the conversion, nanoseconds (mean and rms jitter).
    public var timestampLatencyNs: Double
    public var timestampJitterNs: Double

    /// The peek level, newtons.
    public var peekNewtons: Double { calibration.peekNewtons }
    /// The pop level, newtons.
    public var popNewtons: Double { calibration.popNewtons }
    /// The number of force channels.
    public var cellCount: Int { transducers.count }

    /// Where each cell holds the plate, in channel order (plate units): the
    /// core's ``CellPositions/standard(forCells:)`` (a bar, the triangle, the
    /// corners), so the model and the classifier agree; empty for one cell.
    public var cellPositions: [(x: Double, y: Double)] {
        guard let standard = CellPositions.standard(forCells: cellCount) else { return [] }
        return (0..<standard.count).map { (Double(standard[$0].x), Double(standard[$0].y)) }
    }

    /// The share of a press at `position` (x, y in 0...1 across the plate)
    /// carried by each force channel; the shares sum to 1.
    ///
    /// Statics of a rigid plate bonded to its cells:
    /// - two cells (a bar, cells at x 0 and 1): the lever rule, `[1 - x, x]`;
    ///   the bar is narrow, so `y` plays no part;
    /// - three cells (the triangle): the press's barycentric coordinates in the
    ///   triangle of the cells, the only shares that balance both the force and
    ///   its two moments. Outside the triangle one of them is negative: that
    ///   cell is pulled (down to -50 % of the press at the plate's free front
    ///   corners), which a bonded plate does and a resting one would answer by
    ///   tipping. The synthesizer's presses land inside the triangle
    ///   (``pressSpot(drawn:)``), so none of its cells is ever pulled;
    /// - four cells (the corners): bilinear.
    public func shares(at position: (x: Double, y: Double)) -> [Double] {
        let x = position.x, y = position.y
        switch cellCount {
        case 2:
            return [1 - x, x]
        case 3:
            let c = cellPositions
            let (a, b, t) = (c[0], c[1], c[2])
            let area = (b.x - a.x) * (t.y - a.y) - (t.x - a.x) * (b.y - a.y)
            let wb = ((x - a.x) * (t.y - a.y) - (t.x - a.x) * (y - a.y)) / area
            let wt = ((b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)) / area
            return [1 - wb - wt, wb, wt]
        case 4:
            // Cells at the corners (0,0), (1,0), (0,1), (1,1): a rigid plate on
            // four supports shares a point load bilinearly.
            return [(1 - x) * (1 - y), x * (1 - y), (1 - x) * y, x * y]
        default:
            return [1]
        }
    }

    /// Where a press drawn at (`u`, `v`) of the unit square lands on this
    /// panel: the same point on a plate of one or four cells; on the bar, `u`
    /// along its middle line (`y` 0.5: a finger on a bar presses on the bar);
    /// on the triangle, the square folded into it (each row `v` narrowed to
    /// the triangle's width there), so a draw in 0.1...0.9 lands inside with
    /// every cell taking at least 1 % (the least a corner cell takes on four cells).
    public func pressSpot(drawn p: (x: Double, y: Double)) -> (x: Double, y: Double) {
        switch cellCount {
        case 2: return (p.x, 0.5)
        case 3: return (0.5 + (p.x - 0.5) * (1 - p.y), p.y)
        default: return p
        }
    }

    /// `p` moved onto the area ``pressSpot(drawn:)`` maps 0.1...0.9 onto (a
    /// convex area: a square, a segment, a trapezoid), so a slide's bend stays where presses land.
    public func clampToPressArea(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) {
        switch cellCount {
        case 2:
            return (min(0.9, max(0.1, p.x)), 0.5)
        case 3:
            let y = min(0.9, max(0.1, p.y))
            let half = 0.4 * (1 - y)
            return (min(0.5 + half, max(0.5 - half, p.x)), y)
        default:
            return (min(0.9, max(0.1, p.x)), min(0.9, max(0.1, p.y)))
        }
    }

    /// The smallest total force at `position` that drives some channel onto
    /// its upper rail.
    public func railForce(at position: (x: Double, y: Double)) -> Double {
        let w = shares(at: position)
        var best = Double.infinity
        for (c, transducer) in transducers.enumerated() where w[c] > 0.05 {
            let rail = Double(channels[c].format.maximumRaw)
            let onCell: Double
            switch transducer {
            case .linear(let zero, let cpn): onCell = (rail - zero) / cpn
            case .fsr(let divider): onCell = divider.newtons(atCounts: rail)
            }
            best = min(best, onCell / w[c])
        }
        return best
    }

    /// A unit of `kind`, drawn from `random`.
    public static func make(_ kind: PanelKind, random: inout SeededRandom) -> PanelModel {
        // Levels: a light press and a firm one, far enough apart that a
        // held peek with 15 % tremor stays clear of both.
        let peek = (random.uniform(0.9, 1.6) * 100).rounded() / 100
        let pop = (peek * random.uniform(1.9, 2.6) * 100).rounded() / 100
        let timestamp = RecordingChannel(id: "timestamp", index: kind.cellCount > 1 ? 4 : (kind == .fsrADS1115 ? 8 : 2),
                                         format: try! ChannelFormat(bigEndian: false, signed: true, realBits: 64, storageBits: 64, shift: 0),
                                         role: .timestamp)
        switch kind {
        case .hx711at10, .hx711at80:
            // A 1 kg bridge cell, 2.0 +- 0.1 mV/V, excited from AVDD = 3.3 V;
            // the HX711 at gain 128 spans +-0.5 AVDD / 128 over 2^24 counts.
            let scaleMillivolts = 3300.0 / 128 / 16_777_216
            let sensitivity = random.uniform(1.9, 2.1)  // mV/V
            let countsPerNewton = sensitivity * 3.3 / 9.80665 / scaleMillivolts
            let imbalance = random.gaussian() * 60_000
            let preload = random.uniform(0.8, 2.5) * countsPerNewton  // the glass resting on the cell
            let zero = (8_388_608 + imbalance + preload).rounded()
            let fast = kind == .hx711at80
            let noiseN = random.uniform(0.004, 0.010) * (fast ? 1 : 0.6)
            let format = try! ChannelFormat(bigEndian: false, signed: false, realBits: 24, storageBits: 32, shift: 0)
            let channel = RecordingChannel(id: "voltage0", index: 0, format: format, scale: scaleMillivolts, offset: 0, role: .force)
            return PanelModel(
                kind: kind, deviceName: "hx711", sampleRateHz: fast ? 80 : 10,
                clockError: random.uniform(-0.004, 0.004),
                channels: [channel, timestamp],
                transducers: [.linear(zero: zero, countsPerNewton: countsPerNewton)],
                calibration: RecordingCalibration(
                    force: [ForceChannelCalibration(channel: "voltage0", mapping: .linear(zeroRaw: zero, newtonsPerCount: significant(1 / countsPerNewton, 6)))],
                    peekNewtons: peek, popNewtons: pop),
                noiseCounts: [noiseN * countsPerNewton],
                humCounts: [random.uniform(0.002, 0.006) * countsPerNewton],
                mainsHz: random.chance(0.5) ? 50 : 60,
                driftCounts: [random.uniform(0.05, 0.15) * peek * countsPerNewton],
                spikeCounts: [(1.5 * pop * countsPerNewton)...(4 * pop * countsPerNewton)],
                timestampLatencyNs: random.uniform(40_000, 200_000), timestampJitterNs: fast ? 60_000 : 300_000)

        case .fsrADS1115:
            // ADS1115 at +-4.096 V full scale (0.125 mV a count) reading a
            // divider fed from 5 V: a very hard press pushes the output past
            // 4.096 V and the converter clips at 0x7FFF.
            let divider = FSRDivider(supplyVolts: 5.0, measureOhms: 10_000 * random.uniform(0.99, 1.01),
                                     ohmsAtOneNewton: random.uniform(25_000, 40_000), exponent: random.uniform(0.85, 0.95),
                                     openOhms: random.uniform(5e6, 20e6), countsPerVolt: 8000)
            let format = try! ChannelFormat(bigEndian: false, signed: true, realBits: 16, storageBits: 16, shift: 0)
            let channel = RecordingChannel(id: "voltage0", index: 4, format: format, scale: 0.125, offset: 0, role: .force)
            return PanelModel(
                kind: kind, deviceName: "ads1015", sampleRateHz: 860,
                clockError: random.uniform(-0.01, 0.01),  // the ADS1115's internal oscillator is +-10 %; most parts are closer
                channels: [channel, timestamp],
                transducers: [.fsr(divider)],
                calibration: RecordingCalibration(
                    force: [ForceChannelCalibration(channel: "voltage0", mapping: .curve(fsrCurve(divider, peek: peek, pop: pop)))],
                    peekNewtons: peek, popNewtons: pop),
                noiseCounts: [random.uniform(8, 16)],
                humCounts: [random.uniform(8, 25)],
                mainsHz: random.chance(0.5) ? 50 : 60,
                driftCounts: [random.uniform(10, 40)],
                spikeCounts: [4000...26000],
                timestampLatencyNs: random.uniform(30_000, 120_000), timestampJitterNs: 12_000)

        case .panel2, .panel3, .panel4:
            // Two to four 500 g bridge cells, 2 mV/V, on the AD7124-4's differential
            // inputs (its timestamp stays at index 4 whichever are wired), excited by
            // its 2.5 V reference (ratiometric), gain 128: 2.5 V / 128 over 2^23 counts.
            let scaleMillivolts = 2500.0 / 128 / 8_388_608
            let format = try! ChannelFormat(bigEndian: true, signed: true, realBits: 24, storageBits: 32, shift: 8)
            var channels: [RecordingChannel] = []
            var transducers: [Transducer] = []
            var force: [ForceChannelCalibration] = []
            var noise: [Double] = []
            var hum: [Double] = []
            var drift: [Double] = []
            var spikes: [ClosedRange<Double>] = []
            let humN = random.uniform(0.0005, 0.002)
            for cell in 0..<kind.cellCount {
                let id = "voltage\(2 * cell)-voltage\(2 * cell + 1)"
                let sensitivity = random.uniform(1.9, 2.1)
                let countsPerNewton = sensitivity * 2.5 / (0.5 * 9.80665) / scaleMillivolts
                let zero = (random.gaussian() * 150_000 + random.uniform(0.3, 1.0) * countsPerNewton).rounded()
                channels.append(RecordingChannel(id: id, index: cell, format: format, scale: scaleMillivolts, offset: 0, role: .force))
                transducers.append(.linear(zero: zero, countsPerNewton: countsPerNewton))
                force.append(ForceChannelCalibration(channel: id, mapping: .linear(zeroRaw: zero, newtonsPerCount: significant(1 / countsPerNewton, 6))))
                noise.append(random.uniform(0.0012, 0.0025) * countsPerNewton)
                hum.append(humN * countsPerNewton)
                drift.append(random.uniform(0.01, 0.05) * peek * countsPerNewton)
                spikes.append((1.0 * pop * countsPerNewton)...(3.0 * pop * countsPerNewton))
            }
            channels.append(timestamp)
            return PanelModel(
                kind: kind, deviceName: "ad7124-4", sampleRateHz: 500,
                clockError: random.uniform(-0.002, 0.002),
                channels: channels, transducers: transducers,
                calibration: RecordingCalibration(force: force, peekNewtons: peek, popNewtons: pop),
                noiseCounts: noise, humCounts: hum, mainsHz: random.chance(0.5) ? 50 : 60,
                driftCounts: drift, spikeCounts: spikes,
                timestampLatencyNs: random.uniform(20_000, 80_000), timestampJitterNs: 15_000)
        }
    }

    /// The calibration a technician would measure for an FSR: about 16 weighed
    /// points, denser where the curve bends, with the two levels among them so
    /// that the interpolated force is exact where decisions are made.
    static func fsrCurve(_ divider: FSRDivider, peek: Double, pop: Double) -> [CurvePoint] {
        let rail = 32767.0
        let top = divider.newtons(atCounts: rail - 1)
        var forces = [0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.5, 6.5, 9.0, 13.0]
            .filter { $0 < top * 0.97 && abs($0 - peek) > 0.06 && abs($0 - pop) > 0.06 }
        forces.append(contentsOf: [peek, pop, top])
        forces.sort()
        var points: [CurvePoint] = []
        for f in forces {
            let raw = divider.counts(f).rounded()
            if let last = points.last, raw <= last.raw { continue }
            points.append(CurvePoint(raw: raw, newtons: (f * 1000).rounded() / 1000))
        }
        return points
    }
}

/// `value` rounded to `digits` significant digits, as a measured number is written.
func significant(_ value: Double, _ digits: Int) -> Double {
    guard value != 0, value.isFinite else { return value }
    let magnitude = Foundation.pow(10, Double(digits) - Foundation.ceil(Foundation.log10(abs(value))))
    return (value * magnitude).rounded() / magnitude
}
