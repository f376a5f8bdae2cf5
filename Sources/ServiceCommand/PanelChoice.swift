import ForceStageCommandLine
import ForceStageFormats
import ForceStageIIO
import ForceStageServiceRun

extension PanelOptions {
    /// The calibration for a live device (``CalibrationChoice/Candidates/choice(for:)``).
    ///
    /// - Returns: `nil` when none applies.
    public func choice(for device: IIODevice) throws(CommandFailure) -> CalibrationChoice? {
        try calibration.candidates.choice(for: device)
    }
}
