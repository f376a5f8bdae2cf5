import ArgumentParser
import Foundation
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import ForceStageService

/// How to print events.
enum EventFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, text
}

/// Writes a line to standard output, unbuffered enough for pipes.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Loads a recording; a bad one is a ``CommandFailure`` with status bad input.
func loadRecording(_ path: String) throws(CommandFailure) -> Recording {
    do { return try Recording.load(URL(fileURLWithPath: path)) } catch { throw badInput(error) }
}

/// Builds the setup for a recording, from its own calibration or a profile.
func makeSetup(for recording: Recording, path: String, profile: String?) throws(CommandFailure) -> PanelSetup {
    do { return try PanelSetup.forRecording(recording, path: path, profilePath: profile) } catch { throw badInput(error) }
}

/// Checks one numeric option against its bounds (finite, inside `range`);
/// the message names the flag, the range and the unit. Called from each
/// command's `validate()`, so no unchecked number reaches a computation.
func checkOption(_ value: Double?, _ flag: String, _ range: ClosedRange<Double>, _ unit: String) throws {
    guard let value else { return }
    guard value.isFinite, range.contains(value) else {
        throw ValidationError("\(flag) must be a number from \(JSON.format(range.lowerBound)) to \(JSON.format(range.upperBound)) \(unit), got \(value)")
    }
}

/// The same for an integer option.
func checkOption(_ value: Int?, _ flag: String, _ range: ClosedRange<Int>, _ unit: String) throws {
    guard let value else { return }
    guard range.contains(value) else {
        throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound) \(unit), got \(value)")
    }
}

/// Longest span of recording time any option may name: one year, in seconds.
let maximumOptionSeconds: Double = 366 * 86_400

/// `FROM:TO` scan indices, both at least 0, FROM <= TO.
struct ScanRange {
    var from: Int
    var to: Int

    init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, a <= b else { return nil }
        from = a
        to = b
    }
}

/// Fails (exit 1) when a profile's [match] names another device than the recording's,
/// with the same words `run` uses for a live device.
func refuseForeignProfile(_ profilePath: String, for metadata: RecordingMetadata, path: String) throws(CommandFailure) {
    let loaded: Profile
    do { loaded = try Profile.load(URL(fileURLWithPath: profilePath)) } catch { throw badInput(error) }
    if let why = PanelSource(profile: loaded).mismatch(deviceName: metadata.deviceName, label: metadata.deviceLabel) {
        throw CommandFailure(.deviceFault, "\(why) (\(path)); pass a profile made for this panel")
    }
}
