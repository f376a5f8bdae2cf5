import ForceStageEmulator
import ForceStageFormats
import ForceStageIIO
import ForceStageService
import Foundation

extension PanelOptions {
    /// The calibration for a live device by ``CalibrationChoice``'s rule:
    /// --profile, --calibration, the recording `forcestage emulate` plays when it
    /// names this device, the best match in calibration/.
    ///
    /// - Returns: `nil` when none applies.
    func choice(for device: IIODevice) throws(CommandFailure) -> CalibrationChoice? {
        var candidates = calibration.candidates
        candidates.device = (device.name ?? device.id, device.label)
        candidates.emulatedPath = ProcessInfo.processInfo.environment[EmulatorEnvironment.recording]
        candidates.library = profileDirectory()
        do { return try CalibrationChoice.choose(candidates) } catch { throw badInput(error) }
    }
}

extension PanelSource {
    /// The service's source for a chosen calibration.
    init(_ choice: CalibrationChoice) {
        switch choice {
        case .profile(let profile): self.init(profile: profile)
        case .recording(let path, let metadata, let calibration):
            self.init(name: path, calibration: calibration, sampleRateHz: metadata.sampleRateHz)
        }
    }
}
