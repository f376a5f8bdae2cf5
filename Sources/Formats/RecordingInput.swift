import Foundation

/// Where the bundled demo recording lives: beside the sources, found from the
/// working directory or from the executable's location inside a checkout.
/// Shared by `forcestage` and `forcestage-bench`.
public func bundledDemoRecording() -> URL? {
    let relative = "hardware/recordings/demo-hx711.json"
    var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative)]
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<6 {
        candidates.append(dir.appendingPathComponent(relative))
        dir = dir.deletingLastPathComponent()
    }
    return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
}

extension PanelSetup {
    /// The setup for `recording` (read from `path`): from the profile at
    /// `profilePath` when one is given, else from the recording's own calibration.
    ///
    /// - Throws: ``InputError`` naming the file, the key and what to do.
    public static func forRecording(_ recording: Recording, path: String, profilePath: String?) throws(InputError) -> PanelSetup {
        if let profilePath {
            let loaded = try Profile.load(URL(fileURLWithPath: profilePath))
            return try loaded.setup(for: recording.metadata, file: path)
        }
        return try PanelSetup(metadata: recording.metadata, file: path)
    }
}
