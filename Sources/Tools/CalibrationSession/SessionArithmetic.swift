import ForceStageCore
import ForceStageFormats

// The calibration session's arithmetic, kept apart from its state machine:
// pure functions of measured counts, each testable on its own numbers.

extension UnloadedMeasurement {
    /// Why an unloaded stretch cannot be the panel's zero.
    enum Refusal: Error {
        /// The reading moved by `span` counts, far more than its scan-to-scan `spread`: a touch.
        case touched(span: Double, spread: Double)
    }

    /// Measures the unloaded panel from each channel's raw values: the median
    /// is each channel's zero; the summed channels' scan-to-scan spread says
    /// what a spike is (counted, then left out); a straight line through the
    /// rest gives the noise and the drift.
    static func measure(_ raw: [[Double]], sampleRateHz: Double) -> Result<UnloadedMeasurement, Refusal> {
        let have = raw[0].count
        let zeros = raw.map { values -> Double in
            let s = values.sorted()
            return s[s.count / 2]
        }
        let sum = (0..<have).map { i in raw.indices.reduce(0.0) { $0 + raw[$1][i] - zeros[$1] } }
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
        // A panel that is being touched moves by far more than its noise.
        let span = (smooth.max() ?? 0) - (smooth.min() ?? 0)
        if span > 40 * spread + abs(fit.slope) * Double(have) { return .failure(.touched(span: span, spread: spread)) }
        return .success(UnloadedMeasurement(zeroRaw: zeros, noiseCounts: max(fit.residualStd, 0.5),
                                            driftCountsPerSecond: fit.slope * sampleRateHz, spikes: spikes,
                                            seconds: Double(have) / sampleRateHz))
    }
}

/// A load that rested on the panel: each channel's counts above its zero.
struct RestingLoad {
    /// Per channel, counts above the channel's zero and its share of the resting level.
    var deltas: [Double]
    /// How steady the plateau was, counts rms around a line.
    var residual: Double

    /// Why a stretch of activity is not a resting load.
    enum Refusal: Error {
        /// It stayed on the panel only this long, seconds.
        case brief(seconds: Double)
        /// It wavered by `residual` counts rms around `mean`.
        case unsteady(residual: Double, mean: Double)
        /// No plateau at all.
        case none
    }

    /// Finds the plateau of a load (the middle half of the stretch at or above
    /// 90 % of its top) and measures each channel over it.
    ///
    /// - Parameters:
    ///   - sums: the summed counts above the resting level, per scan of the activity.
    ///   - channels: each channel's raw values over the same scans.
    ///   - zeros: each channel's zero (the unloaded step's median).
    ///   - restShares: each channel's share of the resting level around the load (drift), counts, in the
    ///     direction its raw counts run.
    ///   - noise: the summed channels' noise, counts rms.
    static func measure(sums: [Double], channels: [[Double]], zeros: [Double], restShares: [Double], noise: Double,
                        sampleRateHz: Double) -> Result<RestingLoad, Refusal> {
        let smooth = medianOfThree(sums)
        guard let top = smooth.max(), let first = smooth.firstIndex(where: { $0 >= 0.9 * top }),
              let last = smooth.lastIndex(where: { $0 >= 0.9 * top }) else { return .failure(.none) }
        let quarter = (last - first) / 4
        let range = (first + quarter)...(last - quarter)
        let seconds = Double(range.count) / sampleRateHz
        guard seconds >= 0.75 else { return .failure(.brief(seconds: seconds)) }
        let fit = lineFit(Array(smooth[range]))
        guard fit.residualStd < max(6 * noise, 0.01 * abs(fit.mean)) else {
            return .failure(.unsteady(residual: fit.residualStd, mean: fit.mean))
        }
        // Each channel through a median of three first: a spike while the mass rests
        // would otherwise move the mean (one 4 N spike in 160 scans is 0.6 %).
        let deltas = channels.indices.map { c in
            medianOfThree(channels[c])[range].reduce(0, +) / Double(range.count) - zeros[c] - restShares[c]
        }
        return .success(RestingLoad(deltas: deltas, residual: fit.residualStd))
    }
}

/// One gain for every channel through the weighed masses: least squares
/// through zero of newtons on summed counts, to six significant digits.
func sharedGain(_ points: [(deltas: [Double], grams: Double)]) -> Double {
    var sxy = 0.0, sxx = 0.0
    for m in points {
        let counts = m.deltas.reduce(0, +)
        sxy += counts * m.grams / 1000 * standardGravity
        sxx += counts * counts
    }
    return significant(sxy / sxx, 6)
}

/// A monotone curve from the zero through each weighed mass, carried on to
/// the rail along the last segment's slope (a press harder than the heaviest
/// mass still reads higher). Where a load lowers the counts (a sensor wired
/// with negative gain) the curve runs down to `floor`, the lower rail, and is
/// returned in ascending raw order, as a curve is written.
func massCurve(zero: Double, _ points: [(deltas: [Double], grams: Double)], rail: Double, floor: Double) -> [CurvePoint] {
    var curve = [CurvePoint(raw: zero.rounded(), newtons: 0)]
    for m in points {
        curve.append(CurvePoint(raw: (zero + m.deltas[0]).rounded(), newtons: (m.grams / 1000 * standardGravity * 1000).rounded() / 1000))
    }
    let a = curve[curve.count - 2], b = curve[curve.count - 1]
    let down = b.raw < a.raw
    let end = down ? floor : rail
    if down ? end < b.raw - 1 : end > b.raw + 1 {
        let slope = (b.newtons - a.newtons) / (b.raw - a.raw)
        curve.append(CurvePoint(raw: end, newtons: ((b.newtons + slope * (end - b.raw)) * 1000).rounded() / 1000))
    }
    return down ? curve.reversed() : curve
}

/// Each cell's own gain from one known force set down at as many spots as
/// there are cells: wherever it rests, the cells' calibrated forces sum to it,
/// so `deltas · gains = newtons` for every placement. Solved by Gaussian
/// elimination with partial pivoting.
///
/// - Returns: newtons per count per cell (six significant digits), or `nil`
///   when the placements do not tell the cells apart (a pivot under 1 % of
///   the largest reading: placements on the marks near each cell give pivots
///   of about half of it) or a gain comes out with the wrong sign: each cell
///   must read its own placement as a load, so its gain has the sign of its
///   reading there (negative for a cell wired with negative gain).
func cellGains(_ placements: [[Double]], newtons: Double) -> [Double]? {
    let n = placements.count
    guard n > 0, placements.allSatisfy({ $0.count == n }) else { return nil }
    var a = placements.map { $0 + [newtons] }
    let scale = placements.flatMap { $0 }.map(abs).max() ?? 0
    guard scale > 0 else { return nil }
    for col in 0..<n {
        guard let pivot = (col..<n).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }),
              abs(a[pivot][col]) > 1e-2 * scale else { return nil }
        a.swapAt(col, pivot)
        for row in 0..<n where row != col {
            let f = a[row][col] / a[col][col]
            if f != 0 { for k in col...n { a[row][k] -= f * a[col][k] } }
        }
    }
    let gains = (0..<n).map { a[$0][n] / a[$0][$0] }
    guard (0..<n).allSatisfy({ gains[$0].isFinite && gains[$0] * placements[$0][$0] > 0 }) else { return nil }
    return gains.map { significant($0, 6) }
}

/// The centre of pressure of per-cell forces at cell positions, `nil` when
/// they sum to nothing.
func centre(of forces: [Double], at positions: [PlatePoint]) -> (x: Double, y: Double)? {
    let total = forces.reduce(0, +)
    guard total > 0 else { return nil }
    var x = 0.0, y = 0.0
    for (f, p) in zip(forces, positions) {
        x += f * Double(p.x)
        y += f * Double(p.y)
    }
    return (x / total, y / total)
}
