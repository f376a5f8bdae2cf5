import ForceStageFormats
import ForceStageFormatsURL
import ForceStageTools
import Foundation

/// The channels `record` takes when no --channel is given: the force channels of
/// the profile (in the profile directory, as `meter` finds it) that matches the
/// device best, else nil (no profile: every buffered voltage input, since any of them may carry force).
/// - Returns: the channel ids and where they came from, for the one line `record` prints.
func defaultRecordChannels(deviceName: String, label: String?) -> (ids: [String], source: String)? {
    if let dir = profileDirectory(), let library = try? ProfileLibrary(directory: dir),
       let best = library.best(deviceName: deviceName, label: label), !best.profile.channels.isEmpty {
        return (best.profile.channels.map(\.channel), "the force channels of profile \(best.profile.name)")
    }
    return nil
}
