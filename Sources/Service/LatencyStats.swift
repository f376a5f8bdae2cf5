import ForceStageFormats
/// The most recent latencies, kept in a fixed window, for percentiles on demand.
/// Recording is O(1) with no allocation; percentiles sort a copy (status requests only).
public struct LatencyStats: Sendable {
    private var samples: [Int64]
    private var next = 0
    /// Latencies recorded since start (the window holds the most recent).
    public private(set) var total: Int64 = 0
    /// The largest latency seen since start.
    public private(set) var maximum: Int64 = 0

    /// A window of `window` latencies.
    public init(window: Int = 8192) {
        samples = []
        samples.reserveCapacity(window)
        self.window = window
    }
    private let window: Int

    /// Adds one latency, nanoseconds.
    public mutating func record(_ ns: Int64) {
        if samples.count < window { samples.append(ns) } else { samples[next] = ns }
        next = (next + 1) % window
        total += 1
        if ns > maximum { maximum = ns }
    }

    /// The `p`-th percentile (0...100) of the window by the nearest-rank rule, or `nil` when empty.
    public func percentiles(_ ps: [Double]) -> [Int64]? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        return ps.map { percentile(sorted, $0 / 100)! }
    }
}
