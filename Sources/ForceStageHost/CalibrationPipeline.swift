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
        var channels: [(slot: Int, calibration: ChannelCalibration)] = []
        for f in force {
            guard let s = slot(f.channel) else { return .failure(PipelineSetupError("force channel \(f.channel) is not in the scan")) }
            do { channels.append((s, try f.mapping.core())) } catch {
                return .failure(PipelineSetupError("force channel \(f.channel): \(error.message)"))
            }
        }
        let panel: PanelCalibration
        do { panel = try PanelCalibration(channels, layout: layout) } catch {
            return .failure(PipelineSetupError(error.message))
        }
        let parameters: ClassifierParameters
        do { parameters = try ClassifierParameters(classifierSettings, sampleRateHz: Float(sampleRateHz)) } catch {
            return .failure(PipelineSetupError(error.message))
        }
        return .success(ForcePipeline(layout: layout, calibration: panel, parameters: parameters, timestampSlot: timestampSlot))
    }
}

extension Recording {
    /// The pipeline for replaying this recording with its own calibration.
    public func pipeline() -> Result<ForcePipeline, PipelineSetupError> {
        guard let calibration = metadata.calibration else {
            return .failure(PipelineSetupError("the recording has no calibration"))
        }
        let ids = metadata.channels.sorted { $0.index < $1.index }.map { $0.id }
        return calibration.pipeline(layout: layout, sampleRateHz: metadata.sampleRateHz,
                                    slot: { id in ids.firstIndex(of: id) },
                                    timestampSlot: metadata.timestampChannel.flatMap { ts in ids.firstIndex(of: ts.id) })
    }
}

/// Why a pipeline could not be built from a calibration.
public struct PipelineSetupError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
