import Foundation
import ForceStageFormats

/// Which sensor artefacts a synthesized recording carries. None of them
/// changes the ground truth: labels come from the noise-free press force.
public struct ArtefactSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// White noise of the sensor and its ADC.
    public static let noise = ArtefactSet(rawValue: 1 << 0)
    /// Mains hum (50 or 60 Hz), aliased at the sample rate.
    public static let hum = ArtefactSet(rawValue: 1 << 1)
    /// Single-scan spikes (ESD, a loose connector).
    public static let spikes = ArtefactSet(rawValue: 1 << 2)
    /// Slow thermal drift of the unloaded panel's zero.
    public static let drift = ArtefactSet(rawValue: 1 << 3)
    /// A slowly decaying positive residual after each release.
    public static let relaxation = ArtefactSet(rawValue: 1 << 4)
    /// One very hard press that clips at the ADC's rail for a few scans.
    public static let saturation = ArtefactSet(rawValue: 1 << 5)
    /// Scans lost between the kernel and the reader: absent from the file, timestamps jump.
    public static let drops = ArtefactSet(rawValue: 1 << 6)

    /// Every artefact.
    public static let all: ArtefactSet = [.noise, .hum, .spikes, .drift, .relaxation, .saturation, .drops]

    /// The names used on the command line, in a fixed order.
    public static let names: [(String, ArtefactSet)] = [
        ("noise", .noise), ("hum", .hum), ("spikes", .spikes), ("drift", .drift),
        ("relaxation", .relaxation), ("saturation", .saturation), ("drops", .drops),
    ]

    /// Parses `all`, `none` or a comma-separated list of names.
    /// - Returns: the set, or the offending word when a name is unknown.
    public static func parse(_ text: String) -> Result<ArtefactSet, UnknownArtefact> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "all" { return .success(.all) }
        if trimmed == "none" { return .success([]) }
        var set: ArtefactSet = []
        for word in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingCharacters(in: .whitespaces)
            guard let match = names.first(where: { $0.0 == name }) else {
                return .failure(UnknownArtefact(word: name))
            }
            set.insert(match.1)
        }
        return .success(set)
    }

    /// The comma-separated names, `all` or `none`.
    public var text: String {
        if self == .all { return "all" }
        if isEmpty { return "none" }
        return ArtefactSet.names.filter { contains($0.1) }.map(\.0).joined(separator: ",")
    }
}

/// An artefact name that is not one of ``ArtefactSet/names``.
public struct UnknownArtefact: Error, Equatable, Sendable {
    public var word: String
}
