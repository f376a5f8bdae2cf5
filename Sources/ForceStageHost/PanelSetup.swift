import ForceStageCore

/// Everything needed to classify a stream: layout, calibration and settings
/// resolved at a sample rate. Built from a recording's metadata and either
/// its own calibration or a profile's.
public struct PanelSetup: Sendable {
    public var layout: ScanLayout
    public var calibration: PanelCalibration
    public var settings: ClassifierSettings
    public var parameters: ClassifierParameters
    public var timestampSlot: Int?
    public var sampleRateHz: Double

    /// A fresh pipeline for this setup.
    public func makePipeline() -> ForcePipeline {
        ForcePipeline(layout: layout, calibration: calibration, parameters: parameters, timestampSlot: timestampSlot)
    }

    /// Builds the setup for `metadata`.
    ///
    /// - Parameters:
    ///   - metadata: channels, rate and (optionally) calibration.
    ///   - forceCalibration: per-channel calibration by channel id; defaults to the recording's.
    ///   - settings: classifier settings; defaults to the recording's levels with default tuning.
    ///   - file: named in errors.
    public init(metadata: RecordingMetadata, forceCalibration: [ForceChannelCalibration]? = nil,
                settings: ClassifierSettings? = nil, file: String) throws(InputError) {
        do { layout = try metadata.layout() } catch {
            throw InputError(file: file, key: "channels", problem: error.message, hint: "fix the channel list")
        }
        guard let forceCalibration = forceCalibration ?? metadata.calibration?.force else {
            throw InputError(file: file, key: "calibration", problem: "the recording has no calibration and no profile was given",
                             hint: "pass --profile PROFILE.toml, or add a calibration block to the recording")
        }
        var pairs: [(slot: Int, calibration: ChannelCalibration)] = []
        for channel in metadata.forceChannels {
            guard let entry = forceCalibration.first(where: { $0.channel == channel.id }) else {
                throw InputError(file: file, key: "calibration.force", problem: "force channel \"\(channel.id)\" has no calibration",
                                 hint: "calibrate every force channel")
            }
            do {
                pairs.append((layout.slot(forIndex: channel.index)!, try entry.mapping.core()))
            } catch {
                throw InputError(file: file, key: "calibration.force", problem: error.message, hint: "fix the calibration of \"\(channel.id)\"")
            }
        }
        do { calibration = try PanelCalibration(pairs, layout: layout) } catch {
            throw InputError(file: file, key: "calibration.force", problem: error.message, hint: "fix the force channels")
        }
        if let settings {
            self.settings = settings
        } else if let cal = metadata.calibration {
            self.settings = ClassifierSettings(peekNewtons: Float(cal.peekNewtons), popNewtons: Float(cal.popNewtons))
        } else {
            throw InputError(file: file, key: "calibration", problem: "no peek and pop levels", hint: "pass --profile or add calibration.peekNewtons/popNewtons")
        }
        do { parameters = try ClassifierParameters(self.settings, sampleRateHz: Float(metadata.sampleRateHz)) } catch {
            throw InputError(file: file, problem: error.message, hint: "fix the settings")
        }
        let layout = self.layout
        timestampSlot = metadata.timestampChannel.flatMap { layout.slot(forIndex: $0.index) }
        sampleRateHz = metadata.sampleRateHz
    }
}
