import ForceStageFormats
import ForceStageTools
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

/// Loads a recording or exits with its one-line error.
func loadRecording(_ path: String) -> Recording {
    do { return try Recording.load(URL(fileURLWithPath: path)) } catch { fail(error.description) }
}

/// Builds the setup for a recording, from its own calibration or a profile.
func makeSetup(for recording: Recording, path: String, profile: String?) -> PanelSetup {
    do { return try PanelSetup.forRecording(recording, path: path, profilePath: profile) } catch { fail(error.description) }
}
