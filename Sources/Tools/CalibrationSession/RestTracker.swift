/// The level the panel rests at between loads and presses, followed while
/// idle, and the band an activity's end is measured against: one for
/// weighing and pressing alike.
///
/// A bridge warming up drifts by thousands of counts a second, and a panel
/// relaxes (creeps back) for a second or so after each press, so over a
/// resting mass, or a press and the pause after it, the unloaded reading
/// moves by more than the noise band the reading must come back to. While
/// idle, a line through the last two seconds' worth of idle levels gives
/// where the rest is heading; an activity is over when the reading is back
/// between the rest when it came and where that line was taking it
/// (``distance(of:sign:atScan:)``). The levels are fitted at their own scans
/// and may lie on either side of an activity up to four seconds back: the
/// pauses around a press (a second or so each) lie on one line, so a panel
/// that settles a little higher after every firm press has its rest followed
/// across them; the pauses around a resting mass, seconds apart, do not.
struct RestTracker: Sendable {
    let scansPerSecond: Double
    /// The resting level (counts), following the idle level over a second.
    private(set) var rest = 0.0
    /// How fast the resting level runs, counts per scan: the idle line's slope
    /// (the unloaded step's drift until a second of idle levels gives one).
    private(set) var rate = 0.0
    /// Where the line put the rest when the current activity came, and on which scan.
    private(set) var atStart = 0.0
    private(set) var startScan = 0
    /// The idle levels of the last `2 * fitScans` scans (and the onset before them), at their scans.
    private var levels: [(scan: Int, level: Double)] = []

    init(scansPerSecond: Double) {
        self.scansPerSecond = scansPerSecond
    }

    /// Two seconds' worth of idle levels fit the line, from at most twice as far back.
    var fitScans: Int { max(8, Int(2 * scansPerSecond)) }
    /// The last few idle levels before an activity is seen are its onset, below the threshold: left out of the line.
    private var onsetScans: Int { max(3, Int(0.02 * scansPerSecond)) }

    /// The resting level now: `rest` follows the idle level over a second, so on
    /// a drift it lags by a second of it (a bridge warming at 4000 counts/s
    /// would otherwise read as a load above a quiet converter's threshold).
    var idleRest: Double { rest + rate * (scansPerSecond - 1) }

    /// Starts again at `rest`, running at `rate` counts per scan, with no idle levels.
    mutating func reset(rest: Double, rate: Double) {
        self.rest = rest
        self.rate = rate
        levels = []
    }

    /// Forgets the idle levels (the line starts again from the next ones); the rest and its rate stand.
    mutating func forgetLevels() {
        levels = []
    }

    /// An idle scan: the rest follows `level` slowly, and the level joins the line.
    mutating func idle(_ level: Double, atScan scan: Int) {
        rest += (level - rest) / scansPerSecond
        record(level, atScan: scan)
    }

    private mutating func record(_ level: Double, atScan scan: Int) {
        levels.append((scan, level))
        let keep = 2 * fitScans + onsetScans
        if levels.count > 2 * keep, let first = levels.firstIndex(where: { $0.scan >= scan - keep }) {
            levels.removeFirst(first)
        }
    }

    /// An activity came on `scan` (the last idle scan before it `lastIdleScan`):
    /// where the rest stands now, by a line through the last two seconds' worth
    /// of idle levels before its onset (within four seconds), is `atStart`. Their mean is carried along
    /// `rate`, which the line's own slope replaces once the levels span a second
    /// (at least half a second of them: the pauses either side of a press).
    mutating func begin(atScan scan: Int, lastIdleScan: Int) {
        startScan = scan
        let last = lastIdleScan - onsetScans
        let usable = Array(levels.filter { $0.scan <= last && $0.scan > last - 2 * fitScans }.suffix(fitScans))
        guard usable.count >= 3 else {
            atStart = idleRest + rate * Double(scan - lastIdleScan)
            return
        }
        let fit = lineFit(scans: usable.map(\.scan), levels: usable.map(\.level))
        // A slope needs a second of levels; around presses, on either side of one.
        if usable.count >= Int(scansPerSecond) / 2 && usable[usable.count - 1].scan - usable[0].scan >= Int(scansPerSecond) - 1 {
            rate = fit.slope
        }
        atStart = fit.meanLevel + rate * (Double(scan) - fit.meanScan)
    }

    /// Where the line from before the activity puts the rest on `scan`.
    func heading(atScan scan: Int) -> Double { atStart + rate * Double(scan - startScan) }

    /// How far `level` is outside the band between the rest when the activity
    /// came and where the line was taking it on `scan`, in the activity's
    /// direction (`sign`, +1 or -1): positive beyond the band's far side, negative short of its near side, 0 inside.
    /// (A bridge's drift slows as it warms, so the line is the band's far end.)
    func distance(of level: Double, sign: Double, atScan scan: Int) -> Double {
        let heading = heading(atScan: scan)
        let low = min(atStart, heading), high = max(atStart, heading)
        return sign * (level - min(max(level, low), high))
    }

    /// The activity ended on `scan` and the reading settled at `tail` (its
    /// quiet scans, the last on `scan`): the levels join the line, and the rest
    /// goes on from their mean, its lag behind the drift included (`idleRest`
    /// takes it off). Returns that mean.
    mutating func settled(_ tail: [Double], endScan scan: Int) -> Double {
        for (i, level) in tail.enumerated() { record(level, atScan: scan - tail.count + 1 + i) }
        let after = tail.reduce(0, +) / Double(max(1, tail.count))
        rest = after - rate * (scansPerSecond - 1)
        return after
    }

    /// Starts the rest again at `level` after the reading left the line (it wandered): no idle levels.
    mutating func restart(at level: Double) {
        rest = level
        levels = []
    }
}

/// Mean scan, mean level and slope (counts per scan) of a least-squares line through levels at their scans.
func lineFit(scans: [Int], levels: [Double]) -> (meanScan: Double, meanLevel: Double, slope: Double) {
    let n = Double(levels.count)
    guard levels.count >= 2 else { return (Double(scans.first ?? 0), levels.first ?? 0, 0) }
    let mx = scans.reduce(0.0) { $0 + Double($1) } / n
    let my = levels.reduce(0, +) / n
    var sxy = 0.0, sxx = 0.0
    for (x, y) in zip(scans, levels) {
        sxy += (Double(x) - mx) * (y - my)
        sxx += (Double(x) - mx) * (Double(x) - mx)
    }
    return (mx, my, sxx > 0 ? sxy / sxx : 0)
}
