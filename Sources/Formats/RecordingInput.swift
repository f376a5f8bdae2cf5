#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A file or directory that ships beside the sources (`hardware/recordings/...`,
/// `calibration/`), found from the working directory or from the executable's
/// location inside a checkout. Shared by `forcestage` and `forcestage-bench`.
///
/// - Parameters:
///   - relative: the path inside the checkout.
///   - directory: whether it must be a directory (else a file).
public func checkoutItem(_ relative: String, directory: Bool = false) -> URL? {
    var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative)]
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<6 {
        candidates.append(dir.appendingPathComponent(relative))
        dir = dir.deletingLastPathComponent()
    }
    return candidates.first {
        // stat(2), following links as FileManager.fileExists(atPath:isDirectory:) does.
        var info = stat()
        return stat($0.path, &info) == 0 && ((info.st_mode & S_IFMT) == S_IFDIR) == directory
    }
}

/// The bundled demo recording, `hardware/recordings/demo-hx711.json`.
public func bundledDemoRecording() -> URL? { checkoutItem("hardware/recordings/demo-hx711.json") }

/// The profile library, `calibration/`.
public func profileDirectory() -> URL? { checkoutItem("calibration", directory: true) }

extension PanelSetup {
    /// The setup for `recording` (read from `path`) by the rule of
    /// ``CalibrationChoice``: `--profile`, else `--calibration`, else the
    /// recording's own calibration.
    ///
    /// - Throws: ``InputError`` naming the file, the key and what to do.
    public static func forRecording(_ recording: Recording, path: String, profilePath: String?,
                                    calibrationPath: String? = nil) throws(InputError) -> PanelSetup {
        var candidates = CalibrationChoice.Candidates(profilePath: profilePath, calibrationPath: calibrationPath)
        candidates.recording = (path, recording.metadata)
        guard let choice = try CalibrationChoice.choose(candidates) else {
            // No calibration anywhere: the recording's own setup says so, naming the key.
            return try PanelSetup(metadata: recording.metadata, file: path)
        }
        return try choice.setup(for: recording.metadata, file: path)
    }
}
