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
public func checkoutItemPath(_ relative: String, directory: Bool = false) -> String? {
    var candidates = [PathText.appending(PathText.currentDirectory(), relative)]
    // The executable as `URL(fileURLWithPath:).resolvingSymlinksInPath()` finds it: links resolved where it exists.
    let program = PathText.absolute(CommandLine.arguments[0])
    var dir = PathText.deletingLastComponent(resolvedPath(program) ?? program)
    for _ in 0..<6 {
        candidates.append(PathText.appending(dir, relative))
        dir = PathText.deletingLastComponent(dir)
    }
    return candidates.first {
        // stat(2), following links as FileManager.fileExists(atPath:isDirectory:) does.
        var info = stat()
        return stat($0, &info) == 0 && ((info.st_mode & S_IFMT) == S_IFDIR) == directory
    }
}

/// `realpath(3)`: `nil` when `path` does not exist.
private func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// The bundled demo recording, `hardware/recordings/demo-hx711.json`.
public func bundledDemoRecordingPath() -> String? { checkoutItemPath("hardware/recordings/demo-hx711.json") }

/// The profile library, `calibration/`.
public func profileDirectoryPath() -> String? { checkoutItemPath("calibration", directory: true) }

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
