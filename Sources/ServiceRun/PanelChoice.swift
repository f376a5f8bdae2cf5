import ForceStageFormats
import ForceStageIIO
import ForceStageService

extension CalibrationChoice.Candidates {
    /// The calibration for a live device by ``CalibrationChoice``'s rule:
    /// --profile, --calibration, the best match in calibration/. An emulated
    /// device carries no calibration, as a real one does not: pass
    /// `--calibration {recording}` under `forcestage emulate`.
    ///
    /// - Returns: `nil` when none applies.
    public func choice(for device: IIODevice) throws(CommandFailure) -> CalibrationChoice? {
        var candidates = self
        candidates.device = (device.name ?? device.id, device.label)
        candidates.libraryPath = profileDirectoryPath()
        do { return try CalibrationChoice.choose(candidates) } catch { throw badInput(error) }
    }
}

extension PanelSource {
    /// The service's source for a chosen calibration.
    public init(_ choice: CalibrationChoice) {
        switch choice {
        case .profile(let profile): self.init(profile: profile)
        case .recording(let path, let metadata, let calibration):
            self.init(name: path, calibration: calibration, sampleRateHz: metadata.sampleRateHz)
        }
    }
}
