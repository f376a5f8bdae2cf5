#if canImport(Glibc)
import Glibc
#endif

/// How one profile fares against a device: its score (0 when it does not
/// match) and the reason for each part of it.
public struct ProfileMatch: Sendable {
    public var profile: Profile
    /// ``Profile/specificity(deviceName:label:)``.
    public var score: Int
    /// One reason per `[match]` key, in the spirit of libinput's `quirks list`.
    public var reasons: [String]
    public var matches: Bool { score > 0 }
}

/// The profiles of a directory and which one applies to a device: the most
/// specific match wins (an exact label over a wildcard label over any label;
/// then an exact name over a wildcard over any name); ties go to the first
/// file by name, and are reported.
public struct ProfileLibrary: Sendable {
    public var profiles: [Profile]
    /// Files that did not read, each with its one-line error.
    public var problems: [InputError]

    /// Reads every `*.toml` in `directory`, in file-name order.
    public init(directoryPath: String) throws(InputError) {
        let directory = PathText.absolute(directoryPath)
        guard let names = PathText.directoryEntries(directory) else {
            throw InputError(file: directory, problem: "cannot list profiles: not a readable directory",
                             hint: "give the directory that holds the *.toml profiles (calibration/)")
        }
        profiles = []
        problems = []
        for name in names.filter({ $0.hasSuffix(".toml") }).sorted() {
            do { profiles.append(try Profile.load(path: PathText.appending(directory, name))) } catch { problems.append(error) }
        }
    }

    public init(profiles: [Profile]) {
        self.profiles = profiles
        problems = []
    }

    /// Every profile scored against the device, best first (ties in file order).
    public func rank(deviceName: String, label: String?) -> [ProfileMatch] {
        let all = profiles.map { ProfileLibrary.explain($0, deviceName: deviceName, label: label) }
        return all.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }.map(\.element)
    }

    /// The profile that applies, if any.
    public func best(deviceName: String, label: String?) -> ProfileMatch? {
        rank(deviceName: deviceName, label: label).first { $0.matches }
    }

    /// The score and its reasons for one profile.
    public static func explain(_ p: Profile, deviceName: String, label: String?) -> ProfileMatch {
        var reasons: [String] = []
        func wild(_ s: String) -> Bool { s.contains { $0 == "*" || $0 == "?" } }
        if let m = p.matchName {
            if wildcardMatch(m, deviceName) {
                reasons.append("name \"\(m)\" matches \"\(deviceName)\" \(wild(m) ? "by wildcard (+2)" : "exactly (+4)")")
            } else {
                reasons.append("name \"\(m)\" does not match \"\(deviceName)\"")
            }
        } else {
            reasons.append("no match.name: any device name (+0)")
        }
        if let m = p.matchLabel {
            if let label, wildcardMatch(m, label) {
                reasons.append("label \"\(m)\" matches \"\(label)\" \(wild(m) ? "by wildcard (+8)" : "exactly (+16)")")
            } else {
                reasons.append(label.map { "label \"\(m)\" does not match \"\($0)\"" } ?? "label \"\(m)\" needs a device label; the device has none")
            }
        } else {
            reasons.append("no match.label: any label (+0)")
        }
        return ProfileMatch(profile: p, score: p.specificity(deviceName: deviceName, label: label), reasons: reasons)
    }
}
