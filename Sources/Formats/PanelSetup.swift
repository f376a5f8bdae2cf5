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
    /// Where the cells are: the calibration's positions, else the standard
    /// ones for two, three or four force channels (a bar, a triangle, the
    /// spec's corners: ``CellPositions/standard(forCells:)``), else nil (no press positions).
    public var positions: CellPositions?

    /// A fresh pipeline for this setup.
    public func makePipeline() -> ForcePipeline {
        ForcePipeline(layout: layout, calibration: calibration, parameters: parameters, timestampSlot: timestampSlot,
                      positions: positions)
    }

    /// Why a setup could not be built from a layout and a calibration.
    public enum Problem: Error, Sendable {
        /// A force channel has no calibration entry.
        case uncalibrated(channel: String)
        /// A force channel is not in the scan layout.
        case notInScan(channel: String)
        /// A force channel's calibration is unusable.
        case badCalibration(channel: String, CalibrationError)
        /// The channels do not form a panel.
        case panel(CalibrationError)
        /// The settings cannot be resolved at the sample rate.
        case settings(SettingsError)
        /// The cell positions cannot locate a press.
        case positions(PositionError)
    }

    /// Builds the setup for a scan layout: the one place a calibration
    /// becomes a pipeline, for recordings and live devices alike.
    ///
    /// - Parameters:
    ///   - layout: the layout of the channels actually in each scan.
    ///   - forceChannels: the ids of the channels summed into the panel's force, in any order (cells follow the scan).
    ///   - slot: the layout slot of a channel id, `nil` when it is not in the scan.
    ///   - forceCalibration: per-channel calibration by channel id.
    ///   - settings: classifier settings.
    ///   - sampleRateHz: scans per second.
    ///   - timestampSlot: the slot of the timestamp channel, if any.
    public init(layout: ScanLayout, forceChannels: [String], slot: (String) -> Int?,
                forceCalibration: [ForceChannelCalibration], settings: ClassifierSettings,
                sampleRateHz: Double, timestampSlot: Int?) throws(Problem) {
        var cells: [(slot: Int, entry: ForceChannelCalibration)] = []
        for id in forceChannels {
            guard let entry = forceCalibration.first(where: { $0.channel == id }) else { throw .uncalibrated(channel: id) }
            guard let s = slot(id) else { throw .notInScan(channel: id) }
            cells.append((s, entry))
        }
        // Cells in scan order (a layout's slots ascend with the scan index), whatever order the
        // caller lists the channels in: the standard corner positions are given in that order.
        cells.sort { $0.slot < $1.slot }
        var pairs: [(slot: Int, calibration: ChannelCalibration)] = []
        var points: [PlatePoint] = []
        for cell in cells {
            do { pairs.append((cell.slot, try cell.entry.mapping.core())) } catch { throw .badCalibration(channel: cell.entry.channel, error) }
            if let p = cell.entry.position { points.append(p) }
        }
        do { calibration = try PanelCalibration(pairs, layout: layout) } catch { throw .panel(error) }
        // The creep allowance and compensation the settings leave open come
        // from the calibration: a curve is an FSR, which creeps under a
        // constant load; a line is not.
        var settings = settings
        let fsr = pairs.contains { if case .curve = $0.calibration { return true } else { return false } }
        if settings.creepAllowance == nil { settings.creepAllowance = fsr ? ClassifierSettings.fsrCreepAllowance : 0 }
        if settings.creepAmount == nil { settings.creepAmount = fsr ? ClassifierSettings.fsrCreepAmount : 0 }
        // A curve holds its end values outside its range: a panel read only
        // through curves never reads below the sum of their lowest forces.
        if settings.baseline.floorNewtons == nil {
            var floor: Float? = 0
            for pair in pairs {
                if case .curve(let curve) = pair.calibration, let sum = floor {
                    floor = sum + Swift.min(curve[0].newtons, curve[curve.count - 1].newtons)
                } else {
                    floor = nil
                }
            }
            settings.baseline.floorNewtons = floor
        }
        if points.isEmpty {
            positions = CellPositions.standard(forCells: pairs.count)
        } else {
            guard points.count == pairs.count else { throw .positions(.tooFewCells(points.count)) }
            do { positions = try CellPositions(points) } catch { throw .positions(error) }
        }
        do { parameters = try ClassifierParameters(settings, sampleRateHz: Float(sampleRateHz)) } catch { throw .settings(error) }
        self.layout = layout
        self.settings = settings
        self.timestampSlot = timestampSlot
        self.sampleRateHz = sampleRateHz
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
        let layout: ScanLayout
        do { layout = try metadata.layout() } catch {
            throw InputError(file: file, key: "channels", problem: error.message, hint: "fix the channel list")
        }
        guard let forceCalibration = forceCalibration ?? metadata.calibration?.force else {
            throw InputError(file: file, key: "calibration", problem: "the recording has no calibration and no profile was given",
                             hint: "pass --profile PROFILE.toml, or add a calibration block to the recording")
        }
        let resolved: ClassifierSettings
        if let settings {
            resolved = settings
        } else if let cal = metadata.calibration {
            resolved = cal.classifierSettings
        } else {
            throw InputError(file: file, key: "calibration", problem: "no peek and pop levels", hint: "pass --profile or add calibration.peekNewtons/popNewtons")
        }
        let channels = metadata.channels
        func slot(_ id: String) -> Int? { channels.first { $0.id == id }.flatMap { layout.slot(forIndex: $0.index) } }
        do {
            try self.init(layout: layout, forceChannels: metadata.forceChannels.map(\.id), slot: slot,
                          forceCalibration: forceCalibration, settings: resolved, sampleRateHz: metadata.sampleRateHz,
                          timestampSlot: metadata.timestampChannel.flatMap { layout.slot(forIndex: $0.index) })
        } catch {
            switch error {
            case .uncalibrated(let id):
                throw InputError(file: file, key: "calibration.force", problem: "force channel \"\(id)\" has no calibration",
                                 hint: "calibrate every force channel")
            case .notInScan(let id):
                throw InputError(file: file, key: "channels", problem: "force channel \"\(id)\" is not in the scan", hint: "fix the channel list")
            case .badCalibration(let id, let e):
                throw InputError(file: file, key: "calibration.force", problem: e.message, hint: "fix the calibration of \"\(id)\"")
            case .panel(let e):
                throw InputError(file: file, key: "calibration.force", problem: e.message, hint: "fix the force channels")
            case .settings(let e):
                throw InputError(file: file, problem: e.message, hint: "fix the settings")
            case .positions(let e):
                throw InputError(file: file, key: "calibration.force[].position", problem: e.message,
                                 hint: "give every force cell its [x, y] on the plate, at least three not in a line")
            }
        }
    }
}
