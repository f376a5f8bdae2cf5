import ForceStageCore
import ForceStageFormats
import ForceStageIIO

/// The one validation of a panel source against the stream, at start and on
/// every reload: the setup, the budget (bounded, finite) and the worst case
/// that must fit it. Throws the reason instead of trapping. `Sendable`, so a
/// reload thread can use it while the scan thread streams.
struct ServicePlanner: Sendable {
    let configuration: ServiceConfiguration
    /// The scan's layout and which slot each enabled channel id sits in.
    let layout: ScanLayout
    let slotIDs: [String]
    let timestampSlot: Int?
    /// The device's IIO name and label, for matching profiles on reload.
    let deviceName: String?
    let deviceLabel: String?

    /// What a source resolves to at a rate: the setup and the budget it meets, all checked.
    struct Plan {
        var setup: PanelSetup
        var budget: LatencyBudget
        var budgetNs: Int64
        var worstCaseNs: Int64
    }

    init(configuration: ServiceConfiguration, stream: IIOStreamChannels, deviceName: String?, deviceLabel: String?) {
        self.configuration = configuration
        layout = stream.layout
        slotIDs = stream.channels.map(\.id)
        timestampSlot = stream.timestampSlot
        self.deviceName = deviceName
        self.deviceLabel = deviceLabel
    }

    func plan(_ source: PanelSource, rate: Double, scansPerRefill fixed: Int?) throws(ServiceStartError) -> Plan {
        guard rate >= ForceService.minimumRateHz, rate <= ForceService.maximumRateHz else {
            throw ServiceStartError("a sample rate of \(formatG(rate)) scans/s is outside \(ForceService.minimumRateHz) to \(Int(ForceService.maximumRateHz)); check the device's sampling_frequency, the calibration's rate or --rate")
        }
        let setup = try makeSetup(source, rate: rate)
        let budgetMs = configuration.budgetMs ?? source.budgetMs
            ?? ServiceConfiguration.defaultBudgetMs(parameters: setup.parameters, sampleRateHz: rate, kernelBuffers: configuration.kernelBuffers)
        guard budgetMs > 0, budgetMs <= ForceService.maximumBudgetMs else {
            let origin = configuration.budgetMs != nil ? "--budget-ms" : source.budgetMs != nil ? "\(source.name): [latency] budget_ms" : "the budget"
            throw ServiceStartError("\(origin) = \(formatG(budgetMs)) is outside the accepted range above 0 to \(Int(ForceService.maximumBudgetMs)) ms; state the press-to-event time you need, e.g. 25", status: .badInput)
        }
        let spr = fixed ?? LatencyBudget.scansPerRefill(parameters: setup.parameters, sampleRateHz: rate,
                                                         kernelBuffers: configuration.kernelBuffers, budgetMs: budgetMs)
        let b = LatencyBudget(parameters: setup.parameters, sampleRateHz: rate, scansPerRefill: spr,
                              kernelBuffers: configuration.kernelBuffers, budgetMs: budgetMs)
        if let refusal = b.refusal { throw ServiceStartError(refusal) }
        // Fits, so the worst case is at most the (bounded) budget: both convert to nanoseconds without overflow.
        guard b.worstCaseMs.isFinite, b.worstCaseMs >= 0 else { throw ServiceStartError("the latency budget's worst case is not a number; check the profile's times") }
        return Plan(setup: setup, budget: b, budgetNs: Int64(budgetMs * 1_000_000), worstCaseNs: Int64(b.worstCaseMs * 1_000_000))
    }

    /// The setup for the stream's layout from `source`, at `rate`.
    func makeSetup(_ source: PanelSource, rate: Double) throws(ServiceStartError) -> PanelSetup {
        let ids = slotIDs
        do {
            return try PanelSetup(layout: layout, forceChannels: source.forceChannelIDs,
                                  slot: { id in ids.firstIndex(of: id) },
                                  forceCalibration: source.forceCalibration, settings: source.settings,
                                  sampleRateHz: rate, timestampSlot: timestampSlot)
        } catch {
            let what: String
            switch error {
            case .uncalibrated(let id): what = "force channel \(id) has no calibration"
            case .notInScan(let id): what = "force channel \(id) is not in the scan"
            case .badCalibration(let id, let e): what = "force channel \(id): \(e.message)"
            case .panel(let e): what = e.message
            case .settings(let e): what = e.message
            case .positions(let e): what = "cell positions: \(e.message)"
            }
            throw ServiceStartError("\(source.name): \(what); fix the calibration or profile", status: .badInput)
        }
    }
}

/// `%g` without Foundation's `String(format:)`: integers without a fraction, else Swift's shortest form.
func formatG(_ x: Double) -> String {
    if x.isFinite, x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    return String(x)
}

