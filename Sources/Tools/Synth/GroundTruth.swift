import ForceStageFormats
/// The labels of `forcestage-recording/1`, derived from a noise-free force.
public enum GroundTruth {
    /// Labels for the force at each scan present in a recording.
    ///
    /// `peek` at the first scan at or above the peek level; `pop` at the
    /// first scan at or above the pop level while peeking (a jump past both
    /// gives peek then pop at the same scan); `release` at the first scan
    /// below half the peek level, with `windowStart` the scan where the force
    /// last fell below the peek level.
    /// - Complexity: O(n).
    public static func labels(force: [Double], peek: Double, pop: Double) -> [Label] {
        var labels: [Label] = []
        var pressed = false
        var popped = false
        var fellBelowPeek: Int?
        for (i, f) in force.enumerated() {
            if !pressed {
                guard f >= peek else { continue }
                labels.append(Label(event: .peek, sample: i))
                pressed = true
                popped = false
                fellBelowPeek = nil
            }
            if !popped && f >= pop {
                labels.append(Label(event: .pop, sample: i))
                popped = true
            }
            if f >= peek {
                fellBelowPeek = nil
            } else if fellBelowPeek == nil {
                fellBelowPeek = i
            }
            if f < peek / 2 {
                labels.append(Label(event: .release, sample: i, windowStart: fellBelowPeek ?? i))
                pressed = false
            }
        }
        return labels
    }
}
