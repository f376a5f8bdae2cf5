import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ForceStageFormats
import ForceStageFormatsURL

/// The panel's calibration on the command line: `--profile` or `--calibration`,
/// declared once for every command that classifies. Which one wins over a
/// recording's own calibration, an emulated recording or the profile library
/// is ``CalibrationChoice``'s rule, not the command's.
public struct CalibrationOptions: ParsableArguments, Sendable {
    @Option(help: "The panel's profile (TOML; see docs/profiles.md). Wins over every other calibration.")
    public var profile: String?

    @Option(help: ArgumentHelp("A recording whose calibration block to use instead of a profile.", valueName: "REC.json"))
    public var calibration: String?

    public init() {}

    public func validate() throws {
        if let problem = candidates.conflict { throw ValidationError(problem) }
    }

    /// The command-line part of ``CalibrationChoice/Candidates``.
    public var candidates: CalibrationChoice.Candidates {
        CalibrationChoice.Candidates(profilePath: profile, calibrationPath: calibration)
    }
}

/// `--rate` of the commands that make a recording or a profile (`record`, `calibrate`):
/// scans per second when the device states none.
public struct RateOption: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp(RateHelp.device, valueName: "HZ"), transform: DecimalNumber.argument)
    public var rate: Double?

    public init() {}

    public func validate() throws {
        try checkOption(rate, "--rate", Limits.sampleRateHz, "scans per second")
    }
}

/// `--rate` of the commands that classify with a calibration (`run`, `meter`), whose
/// rate is the chosen calibration's.
public struct CalibratedRateOption: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp(RateHelp.calibrated, valueName: "HZ"), transform: DecimalNumber.argument)
    public var rate: Double?

    public init() {}

    public func validate() throws {
        try checkOption(rate, "--rate", Limits.sampleRateHz, "scans per second")
    }
}

/// Everything that names a live panel: where the sensor is, how it is
/// calibrated, its rate. `run` and `meter` take it whole; `record` and
/// `calibrate` take its device and rate parts (they make, not use, a
/// calibration); `replay`, `evaluate`, `plot` and `forcestage-bench` its
/// calibration part. Each option is declared once, with one default and help.
public struct PanelOptions: ParsableArguments {
    @OptionGroup public var device: DeviceOptions
    @OptionGroup public var calibration: CalibrationOptions
    @OptionGroup public var rate: CalibratedRateOption

    public init() {}
}

/// Checks one numeric option against its bounds (finite, inside `range`);
/// the message names the flag, the range and the unit. Called from each
/// command's `validate()`, so no unchecked number reaches a computation.
public func checkOption(_ value: Double?, _ flag: String, _ range: ClosedRange<Double>, _ unit: String) throws {
    if let problem = OptionBounds.problem(value, flag, range, unit) { throw ValidationError(problem) }
}

/// The same for an integer option.
public func checkOption(_ value: Int?, _ flag: String, _ range: ClosedRange<Int>, _ unit: String) throws {
    if let problem = OptionBounds.problem(value, flag, range, unit) { throw ValidationError(problem) }
}

/// Loads a recording; a bad one is a ``CommandFailure`` with status bad input.
public func loadRecording(_ path: String) throws(CommandFailure) -> Recording {
    do { return try Recording.load(URL(fileURLWithPath: path)) } catch { throw badInput(error) }
}

/// The setup for a recording read from `path`, by ``CalibrationChoice``'s rule
/// (--profile, --calibration, the recording's own calibration).
public func makeSetup(for recording: Recording, path: String, calibration: CalibrationOptions) throws(CommandFailure) -> PanelSetup {
    do {
        return try PanelSetup.forRecording(recording, path: path, profilePath: calibration.profile,
                                           calibrationPath: calibration.calibration)
    } catch { throw badInput(error) }
}
