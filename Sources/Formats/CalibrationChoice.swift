import ForceStageCore
#if canImport(Glibc)
import Glibc
#endif

/// Where a panel's calibration and levels come from: the one place the
/// precedence is decided, for every command that classifies
/// (docs/getting-started.md, "Which calibration a command uses").
///
/// The rule, first that applies wins:
/// 1. `--profile P.toml`;
/// 2. `--calibration REC.json` (a recording's `calibration` block);
/// 3. the calibration of the recording being classified (replay, evaluate, plot, bench);
/// 4. on a live device, the best-matching profile in `calibration/`.
public enum CalibrationChoice: Sendable {
    /// A profile file.
    case profile(Profile)
    /// A recording's own calibration block (`path` for messages).
    case recording(path: String, metadata: RecordingMetadata, calibration: RecordingCalibration)

    /// What the choice may be made from; each is optional.
    public struct Candidates: Sendable {
        /// `--profile`.
        public var profilePath: String?
        /// `--calibration`.
        public var calibrationPath: String?
        /// The recording being classified, with the path it was read from.
        public var recording: (path: String, metadata: RecordingMetadata)?
        /// The live device's name and label.
        public var device: (name: String, label: String?)?
        /// The directory of profiles to pick the best match for `device` from.
        public var libraryPath: String?

        public init(profilePath: String? = nil, calibrationPath: String? = nil) {
            self.profilePath = profilePath
            self.calibrationPath = calibrationPath
        }

        /// The usage message when both `--profile` and `--calibration` are given, else `nil`.
        public var conflict: String? {
            profilePath != nil && calibrationPath != nil ? "give --profile or --calibration, not both" : nil
        }
    }

    /// Applies the rule.
    ///
    /// - Returns: the choice, or `nil` when no candidate holds a calibration.
    /// - Throws: ``InputError`` when a named file does not read or holds no calibration.
    public static func choose(_ c: Candidates) throws(InputError) -> CalibrationChoice? {
        if let path = c.profilePath { return .profile(try Profile.load(path: path)) }
        if let path = c.calibrationPath {
            let metadata = try RecordingMetadata.load(path: path)
            guard let calibration = metadata.calibration else {
                throw InputError(file: path, key: "calibration", problem: "the recording has no calibration",
                                 hint: "pass a recording with a calibration block, or --profile PROFILE.toml")
            }
            return .recording(path: path, metadata: metadata, calibration: calibration)
        }
        if let (path, metadata) = c.recording, let calibration = metadata.calibration {
            return .recording(path: path, metadata: metadata, calibration: calibration)
        }
        guard let device = c.device else { return nil }
        if let dir = c.libraryPath, let library = try? ProfileLibrary(directoryPath: dir),
           let best = library.best(deviceName: device.name, label: device.label) {
            return .profile(best.profile)
        }
        return nil
    }

    /// For messages: `profile NAME` or `calibration of FILE`.
    public var name: String {
        switch self {
        case .profile(let p): return "profile \(p.name)"
        case .recording(let path, _, _): return "calibration of \(PathText.lastComponent(PathText.absolute(path)))"
        }
    }

    /// Per force channel calibration.
    public var forceCalibration: [ForceChannelCalibration] {
        switch self {
        case .profile(let p): return p.channels
        case .recording(_, _, let c): return c.force
        }
    }

    /// The rate a calibration recording or a profile (`sample_rate_hz`) states, the
    /// fallback for a live device that states none (an HX711 has no `sampling_frequency`).
    public var sampleRateHz: Double? {
        switch self {
        case .profile(let p): return p.sampleRateHz
        case .recording(_, let metadata, _): return metadata.sampleRateHz
        }
    }

    /// Levels and tuning.
    public var settings: ClassifierSettings {
        switch self {
        case .profile(let p): return p.settings
        case .recording(_, _, let c): return c.classifierSettings
        }
    }

    /// The setup for a recording's scans (read from `file`) under this choice.
    public func setup(for metadata: RecordingMetadata, file: String) throws(InputError) -> PanelSetup {
        switch self {
        case .profile(let p): return try p.setup(for: metadata, file: file)
        case .recording(_, _, let c):
            return try PanelSetup(metadata: metadata, forceCalibration: c.force, settings: c.classifierSettings, file: file)
        }
    }
}
