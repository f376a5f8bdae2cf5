import ForceStageHost
import Foundation

/// Prints a one-line error and exits with `code`: what is wrong and what to do.
func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("forcestage-bench: error: \(message)\n".utf8))
    exit(code)
}

/// Writes a line to standard output.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Where the bundled demo recording lives: beside the sources, found from the
/// working directory or from the executable's location inside a checkout.
func bundledDemoRecording() -> URL? {
    let relative = "hardware/recordings/demo-hx711.json"
    var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative)]
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<6 {
        candidates.append(dir.appendingPathComponent(relative))
        dir = dir.deletingLastPathComponent()
    }
    return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
}

/// Loads a recording or exits with its one-line error.
func loadRecording(_ path: String) -> Recording {
    do { return try Recording.load(URL(fileURLWithPath: path)) } catch { fail(error.description) }
}

/// Builds the setup for a recording, from its own calibration or a profile.
func makeSetup(for recording: Recording, path: String, profile: String?) -> PanelSetup {
    do {
        if let profile {
            let loaded = try Profile.load(URL(fileURLWithPath: profile))
            return try loaded.setup(for: recording.metadata, file: path)
        }
        return try PanelSetup(metadata: recording.metadata, file: path)
    } catch {
        fail(error.description)
    }
}
