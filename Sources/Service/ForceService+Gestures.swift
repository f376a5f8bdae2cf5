import ForceStageCore
import ForceStageGestures
import ForceStageFormats

extension ForceService {
    // MARK: - The gesture layer's sinks

    /// The regions the gesture layer runs with, or nil when it is off. It runs
    /// on a panel with press positions whose profile has regions, or with
    /// `--gestures` / `--progress-hz`; those two on a panel without positions are refused.
    static func gestureRegions(_ configuration: ServiceConfiguration, _ source: PanelSource, setup: PanelSetup,
                               device: String) throws(ServiceStartError) -> [Region]? {
        let asked = configuration.gestures || configuration.progressHz != nil
        guard setup.positions != nil else {
            if asked {
                throw ServiceStartError("--gestures: \(device) has no press positions (a single-cell panel, or cells without positions); give the profile's [[channel]] tables position = [x, y]", status: .badInput)
            }
            return nil
        }
        return asked || !source.regions.isEmpty ? source.regions : nil
    }

    /// The JSON line of a classifier event (with its region when the gesture layer named one).
    func eventLine(_ se: ServiceEvent) -> String {
        if let g = se.gesture, let regions = gestureRegions {
            return gestureJSON(g.gestureEvent(regions: regions), sampleRateHz: sampleRateHz).rendered() + "\n"
        }
        return eventJSON(se.event, sampleRateHz: sampleRateHz).rendered() + "\n"
    }

    /// A gesture layer event of its own (actions, open, dismiss, move, spring,
    /// progress) to standard output and the clients whose subscriptions take it.
    func deliverGesture(_ se: ServiceEvent, _ sink: inout SinkState) {
        var line: String?
        if configuration.stdoutSink && !sink.stdoutBroken && stdoutSubscription.accepts(se) {
            line = eventLine(se)
            if !writeAll(1, line!) {
                sink.stdoutBroken = true
                logger.error("standard output closed; events go to socket clients only")
            }
        }
        server?.broadcast(se) { line ?? eventLine(se) }
        sink.delivered += 1
    }

    /// A client's `subscribe`: validated against the loaded profile; the reply line (without LF).
    func subscribe(_ c: EventClient, _ words: [UInt8]) -> String {
        switch Subscription.parse(words, regions: gestureRegions ?? [], gestures: gestureRegions != nil, sampleRateHz: sampleRateHz) {
        case .success(let s):
            c.subscription = s
            if gestureRegions != nil { updateProgressDemand() }
            return s.replyJSON(regions: gestureRegions ?? []).rendered()
        case .failure(let refusal):
            return errorJSON(refusal.message, hint: refusal.hint)
        }
    }

    /// Tells the scan thread the fastest progress rate anyone asks for (none: no progress computed).
    func updateProgressDemand() {
        let asked = [configuration.progressHz, server?.progressDemandHz].compactMap { $0 }.max()
        gestureControl.requestProgress(hz: asked)
    }
}
