/// The value at quantile `q` (0...1) of `sorted` (ascending) by the
/// nearest-rank rule, or `nil` when it is empty: the one percentile the
/// scores, the evaluation report, the benchmark and the service's latency
/// statistics all use.
public func percentile<T: Comparable>(_ sorted: [T], _ q: Double) -> T? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((q * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
