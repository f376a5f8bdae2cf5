import ForceStageCore

extension RecordingCalibration {
    /// The classifier settings the calibration implies: its two levels, the
    /// rest at their defaults.
    public var classifierSettings: ClassifierSettings {
        ClassifierSettings(peekNewtons: Float(peekNewtons), popNewtons: Float(popNewtons))
    }

    /// Builds the pipeline for a scan layout, locating each force channel by id.
    ///
    /// - Parameters:
    ///   - layout: the layout of the channels actually in each scan.
    ///   - sampleRateHz: scans per second.
    ///   - slot: the layout slot of a channel id, `nil` when the channel is not in the scan.
    ///   - timestampSlot: the slot of the timestamp channel, if any.
    /// - Returns: the pipeline, or a one-line reason it cannot be built.
    public func pipeline(layout: ScanLayout, sampleRateHz: Double, slot: (String) -> Int?,
                         timestampSlot: Int?) -> Result<ForcePipeline, PipelineSetupError> {
        do {
            let setup = try PanelSetup(layout: layout, forceChannels: force.map(\.channel), slot: slot,
                                       forceCalibration: force, settings: classifierSettings,
                                       sampleRateHz: sampleRateHz, timestampSlot: timestampSlot)
            return .success(setup.makePipeline())
        } catch {
            switch error {
            case .uncalibrated(let id): return .failure(PipelineSetupError("force channel \(id) has no calibration"))
            case .notInScan(let id): return .failure(PipelineSetupError("force channel \(id) is not in the scan"))
            case .badCalibration(let id, let e): return .failure(PipelineSetupError("force channel \(id): \(e.message)"))
            case .panel(let e): return .failure(PipelineSetupError(e.message))
            case .settings(let e): return .failure(PipelineSetupError(e.message))
            case .positions(let e): return .failure(PipelineSetupError("cell positions: \(e.message)"))
            }
        }
    }
}

/// Why a pipeline could not be built from a calibration.
public struct PipelineSetupError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
