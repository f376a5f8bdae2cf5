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
