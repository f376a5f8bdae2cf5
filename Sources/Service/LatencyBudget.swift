import ForceStageCore

/// The worst-case press-to-event time a configuration can guarantee, and
/// whether it meets the stated budget.
///
/// Terms, each in scan periods (1 / sample rate):
/// - sampling: the press can begin just after a conversion, so one period passes before a scan sees it;
/// - refill: libiio's local backend sets the kernel watermark to the scans per refill, so the
///   first scan of a refill waits for the others (`scansPerRefill - 1` periods);
/// - filter and debounce: the spike filter's one scan plus a deferred debounce's extra scans,
///   whichever of press and release is longer (``ClassifierParameters`` resolves them);
/// - kernel buffering: the kernel queues `kernelBuffers` refills; they add nothing while the
///   service keeps up, but are how late it may fall before scans are lost. That margin is
///   printed, not added: when it is used, the measured latency shows it as a violation.
///
/// The host's own share (scan arrival to the event line leaving) is measured at
/// run time, not assumed; the product's target for it is well under 1 ms.
public struct LatencyBudget: Equatable, Sendable {
    /// Scans per second.
    public var sampleRateHz: Double
    /// Scans per refill.
    public var scansPerRefill: Int
    /// Kernel buffers queued.
    public var kernelBuffers: Int
    /// Scans of spike filter (0 or 1).
    public var filterScans: Int
    /// Extra scans a deferred press debounce waits.
    public var pressDebounceScans: Int
    /// Extra scans a deferred release debounce waits.
    public var releaseDebounceScans: Int
    /// The stated budget, milliseconds.
    public var budgetMs: Double

    /// Builds the accounting from classifier parameters.
    public init(parameters p: ClassifierParameters, sampleRateHz: Double, scansPerRefill: Int, kernelBuffers: Int, budgetMs: Double) {
        self.sampleRateHz = sampleRateHz
        self.scansPerRefill = max(1, scansPerRefill)
        self.kernelBuffers = max(1, kernelBuffers)
        filterScans = p.spikeRejection ? 1 : 0
        pressDebounceScans = Int(max(0, p.pressScans - 1))
        releaseDebounceScans = Int(max(0, p.releaseScans - 1))
        self.budgetMs = budgetMs
    }

    /// Milliseconds per scan.
    public var periodMs: Double { 1000 / sampleRateHz }
    /// The sampling term, ms.
    public var samplingMs: Double { periodMs }
    /// The refill term, ms.
    public var refillMs: Double { Double(scansPerRefill - 1) * periodMs }
    /// The spike filter's term, ms.
    public var filterMs: Double { Double(filterScans) * periodMs }
    /// The deferred debounce term (the longer of press and release), ms.
    public var debounceMs: Double { Double(max(pressDebounceScans, releaseDebounceScans)) * periodMs }
    /// How long the kernel's queue lets the service fall behind before scans are lost, ms.
    public var kernelQueueMs: Double { Double(kernelBuffers * scansPerRefill) * periodMs }
    /// The worst case, ms.
    public var worstCaseMs: Double { samplingMs + refillMs + filterMs + debounceMs }
    /// Whether the worst case fits the budget (a microsecond of rounding allowed).
    public var fits: Bool { worstCaseMs <= budgetMs + 0.001 }

    /// One line for the start-up log: the terms and the total against the budget.
    public var summary: String {
        "worst case \(ms(worstCaseMs)) ms = sampling \(ms(samplingMs)) + refill \(ms(refillMs)) (\(scansPerRefill) scans) + spike filter \(ms(filterMs)) + debounce \(ms(debounceMs)); budget \(ms(budgetMs)) ms; kernel queue \(kernelBuffers) x \(scansPerRefill) scans = \(ms(kernelQueueMs)) ms of slack before scans are lost"
    }

    /// Why the configuration cannot meet the budget, naming the knob to turn; `nil` when it fits.
    public var refusal: String? {
        guard !fits else { return nil }
        let rate = rateText
        var advice: [String] = []
        let over = worstCaseMs - budgetMs
        if debounceMs > 0 {
            let which = pressDebounceScans >= releaseDebounceScans ? "press" : "release"
            let scans = max(pressDebounceScans, releaseDebounceScans) + 1
            advice.append("the \(scans)-scan deferred \(which) debounce adds \(ms(debounceMs)) ms: set [debounce] \(which) = \"eager\" or lower \(which)_ms" + (debounceMs >= over ? "" : " (not enough alone)"))
        }
        if refillMs > 0 {
            advice.append("\(scansPerRefill) scans per refill add \(ms(refillMs)) ms: lower --scans-per-refill" + (refillMs >= over ? "" : " (not enough alone)"))
        }
        if filterMs > 0 && filterMs >= over {
            advice.append("the spike filter adds \(ms(filterMs)) ms: [health] spike_rejection = false (spikes may then cause false events)")
        }
        if samplingMs + filterMs > budgetMs {
            advice.append("at \(rate) one scan alone takes \(ms(periodMs)) ms: raise the sample rate (sampling_frequency, or the HX711's RATE pin)")
        }
        advice.append("or raise --budget-ms / [latency] budget_ms to at least \(ms(worstCaseMs))")
        return "a sensor at \(rate) cannot meet the \(ms(budgetMs)) ms latency budget: worst case \(ms(worstCaseMs)) ms (sampling \(ms(samplingMs)) + refill \(ms(refillMs)) + spike filter \(ms(filterMs)) + debounce \(ms(debounceMs))); " + advice.joined(separator: "; ")
    }

    private var rateText: String {
        let r = sampleRateHz.rounded() == sampleRateHz ? String(Int(sampleRateHz)) : ms(sampleRateHz)
        return "\(r) scans/s"
    }

    /// The most scans per refill (1 to 4) whose budget still fits and whose first scan waits
    /// at most `maximumWaitMs` (fewer syscalls without giving up latency); 1 when none fits.
    public static func scansPerRefill(parameters: ClassifierParameters, sampleRateHz: Double, kernelBuffers: Int,
                                      budgetMs: Double, maximumWaitMs: Double = 5) -> Int {
        var best = 1
        for n in 1...4 {
            let b = LatencyBudget(parameters: parameters, sampleRateHz: sampleRateHz, scansPerRefill: n,
                                  kernelBuffers: kernelBuffers, budgetMs: budgetMs)
            if b.fits && b.refillMs <= maximumWaitMs + 0.001 { best = n }
        }
        return best
    }
}

/// Milliseconds with up to two decimals, trailing zeros dropped.
func ms(_ value: Double) -> String {
    let r = (value * 100).rounded() / 100
    if r == r.rounded() { return String(Int64(r)) }
    var s = String(r)
    if let dot = s.firstIndex(of: "."), s.distance(from: dot, to: s.endIndex) > 3 { s = String(s[..<s.index(dot, offsetBy: 3)]) }
    return s
}
