import ForceStageFormats
/// What one press measured during calibration looked like, in newtons above
/// the panel's resting force just before it.
public struct PressStatistics: Equatable, Sendable {
    /// The highest force (after median-of-three, so a spike does not count).
    public var maximum: Double
    /// The hold: the middle of the stretch where the force stayed near its top.
    public var holdMedian: Double
    public var holdMinimum: Double
    public var holdMaximum: Double
    /// Seconds of hold.
    public var holdSeconds: Double
    /// The first and last scan of the press (session scan indices).
    public var firstScan: Int
    public var lastScan: Int

    /// Half the hold's peak-to-peak, as a fraction of its median: the tremor.
    public var tremor: Double { holdMedian > 0 ? (holdMaximum - holdMinimum) / 2 / holdMedian : 0 }

    /// Measures a press from its force (newtons above rest), one value per scan.
    ///
    /// The hold is the stretch between the first and the last scan at or
    /// above 80 % of the top, less 15 % at each end where the finger is still
    /// settling. Returns nil when there is no hold of at least two scans.
    public static func measure(_ force: [Double], firstScan: Int, sampleRateHz: Double) -> PressStatistics? {
        let f = medianOfThree(force)
        guard let top = f.max(), top > 0 else { return nil }
        guard let first = f.firstIndex(where: { $0 >= 0.8 * top }), let last = f.lastIndex(where: { $0 >= 0.8 * top }) else { return nil }
        let trim = (last - first) * 15 / 100
        let hold = Array(f[(first + trim)...(last - trim)])
        guard hold.count >= 2 else { return nil }
        let sorted = hold.sorted()
        return PressStatistics(maximum: top, holdMedian: sorted[sorted.count / 2], holdMinimum: sorted.first!,
                               holdMaximum: sorted.last!, holdSeconds: Double(hold.count) / sampleRateHz,
                               firstScan: firstScan, lastScan: firstScan + force.count - 1)
    }
}

/// Each value replaced by the median of itself and its neighbours: single-scan spikes go.
func medianOfThree(_ x: [Double]) -> [Double] {
    guard x.count >= 3 else { return x }
    var out = x
    for i in 1..<(x.count - 1) {
        let a = x[i - 1], b = x[i], c = x[i + 1]
        out[i] = max(min(a, b), min(max(a, b), c))
    }
    return out
}

/// Mean, standard deviation and slope (per index) of a least-squares line
/// through `y`: ``lineFit(scans:levels:)`` at the indices, and the residuals' spread.
func lineFit(_ y: [Double]) -> (mean: Double, residualStd: Double, slope: Double) {
    guard y.count >= 2 else { return (y.first ?? 0, 0, 0) }
    let fit = lineFit(scans: Array(y.indices), levels: y)
    var ss = 0.0
    for (i, v) in y.enumerated() {
        let r = v - (fit.meanLevel + fit.slope * (Double(i) - fit.meanScan))
        ss += r * r
    }
    return (fit.meanLevel, (ss / max(1, Double(y.count) - 2)).squareRoot(), fit.slope)
}
