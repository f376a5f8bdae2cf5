import ForceStageFormats
import ForceStageFormatsURL
import ForceStageTools
import Foundation

/// The profile in the profile directory (as `meter` finds it) that matches the device best, else nil.
func matchingProfile(deviceName: String, label: String?) -> Profile? {
    guard let dir = profileDirectory(), let library = try? ProfileLibrary(directory: dir) else { return nil }
    return library.best(deviceName: deviceName, label: label)?.profile
}

/// The channels `record` takes when no --channel is given: the force channels of
/// the profile that matches the device best, else nil (no profile: every buffered
/// voltage input, since any of them may carry force).
/// - Returns: the channel ids and where they came from, for the one line `record` prints.
func defaultRecordChannels(deviceName: String, label: String?) -> (ids: [String], source: String)? {
    if let best = matchingProfile(deviceName: deviceName, label: label), !best.channels.isEmpty {
        return (best.channels.map(\.channel), "the force channels of profile \(best.name)")
    }
    return nil
}

/// The calibration block `record` writes: the matching profile's calibration of every
/// recorded force channel and its levels, so the recording replays as it was classified.
/// `nil` without a profile, or when the profile lacks one of the recorded force channels.
func recordedCalibration(_ profile: Profile?, for metadata: RecordingMetadata) -> RecordingCalibration? {
    guard let profile else { return nil }
    let ids = metadata.forceChannels.map(\.id)
    let force = ids.compactMap { id in profile.channels.first { $0.channel == id } }
    guard !ids.isEmpty, force.count == ids.count else { return nil }
    return RecordingCalibration(force: force, settings: profile.settings)
}
