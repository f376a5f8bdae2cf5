import Foundation
import ForceStageFormats

/// Real-sensor physics a synthesized recording can carry on top of the
/// artefacts: what real panels do that the standard mix never made.
///
/// Labels stay those of the recording spec, from the noise-free finger force:
/// sensor physics (floor, clipping, creep, hysteresis, vibration, thermal
/// ramps, noise) never move a label; press shapes (bursts, partial let-gos,
/// slow ramps, low-rate taps, long holds) are labelled like every press.
public struct ScenarioSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The unloaded sensor reads exactly its zero word (no noise, hum or drift) like an FSR at rest.
    public static let zeroFloor = ScenarioSet(rawValue: 1 << 0)
    /// Firm presses held 2.5-4 s against a mechanical stop above the pop level: the reading stays flat.
    public static let clippedHolds = ScenarioSet(rawValue: 1 << 1)
    /// Bursts of 6-12 taps at 4-7 per second, each past peek, lifting to 0-40 % of peek between taps.
    public static let tappingBursts = ScenarioSet(rawValue: 1 << 2)
    /// A held peek that dips to 55-70 % of the peek level (above half: no release) and comes back.
    public static let partialLetGos = ScenarioSet(rawValue: 1 << 3)
    /// Past peek quickly, then 1.5-3 s climbing slowly to pop (3D Touch style).
    public static let slowRamps = ScenarioSet(rawValue: 1 << 4)
    /// Taps of 120-250 ms past peek: two or three scans at 10 scans/s.
    public static let lowRateTaps = ScenarioSet(rawValue: 1 << 5)
    /// FSR physics: under load the reading creeps up 5-14 % with a 1-3 s time
    /// constant, and reads 5-10 % low while unloading. Meant for an FSR panel.
    public static let fsrCreep = ScenarioSet(rawValue: 1 << 6)
    /// Door slams and machines: zero-mean 20-60 Hz shaking of 2-5 N for
    /// 0.1-0.3 s, decaying, in the quiet gaps; each burst starts at a random
    /// phase, so its first swing is upward as often as downward.
    public static let vibration = ScenarioSet(rawValue: 1 << 7)
    /// The unloaded zero ramps by up to a third of the peek level at up to 0.03 N/s and back.
    public static let thermalRamps = ScenarioSet(rawValue: 1 << 8)
    /// Peeks held 20-40 s with slight tremor.
    public static let longHolds = ScenarioSet(rawValue: 1 << 9)
    /// Noise of about 4 % of the peek level rms (a poor panel).
    public static let lowSNR = ScenarioSet(rawValue: 1 << 10)
    /// Presses that move across the plate while held, on a panel
    /// with several cells: about two in three slide up to 0.8 plate units, at
    /// most 1 plate unit/s on average; labels carry the position at their scan.
    /// Not in `all` (the real-sensor set), so `all` writes what it always wrote.
    public static let sliding = ScenarioSet(rawValue: 1 << 11)

    /// The names used on the command line, in a fixed order.
    public static let names: [(String, ScenarioSet)] = [
        ("zero-floor", .zeroFloor), ("clipped-holds", .clippedHolds), ("tapping-bursts", .tappingBursts),
        ("partial-letgos", .partialLetGos), ("slow-ramps", .slowRamps), ("low-rate-taps", .lowRateTaps),
        ("fsr-creep", .fsrCreep), ("vibration", .vibration), ("thermal-ramps", .thermalRamps),
        ("long-holds", .longHolds), ("low-snr", .lowSNR), ("sliding", .sliding),
    ]

    /// Every real-sensor scenario: everything but `sliding`, which is asked for by name.
    public static let all = ScenarioSet(names.map(\.1)).subtracting(.sliding)

    /// The scenarios that need a panel with several cells.
    public static let multiCell: ScenarioSet = [.sliding]

    /// The scenarios that add press shapes to the script.
    public static let pressShapes: ScenarioSet = [.clippedHolds, .tappingBursts, .partialLetGos, .slowRamps, .lowRateTaps, .longHolds]

    /// Parses `all`, `none` or a comma-separated list of names (`all` may be
    /// one of them: `all,sliding`).
    public static func parse(_ text: String) -> Result<ScenarioSet, UnknownArtefact> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "all" { return .success(.all) }
        if trimmed == "none" { return .success([]) }
        var set: ScenarioSet = []
        for word in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingCharacters(in: .whitespaces)
            if name == "all" { set.formUnion(.all); continue }
            guard let match = names.first(where: { $0.0 == name }) else { return .failure(UnknownArtefact(word: name)) }
            set.insert(match.1)
        }
        return .success(set)
    }

    /// The comma-separated names, `all` or `none`.
    public var text: String {
        if self == .all { return "all" }
        if isEmpty { return "none" }
        if isSuperset(of: .all) {
            return (["all"] + ScenarioSet.names.filter { subtracting(.all).contains($0.1) }.map(\.0)).joined(separator: ",")
        }
        return ScenarioSet.names.filter { contains($0.1) }.map(\.0).joined(separator: ",")
    }
}
