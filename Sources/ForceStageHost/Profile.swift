import Foundation
import ForceStageCore

/// A panel profile (`calibration/*.toml`): which devices it applies to, each
/// force channel's calibration, and the classifier's levels and tuning.
public struct Profile: Sendable {
    /// The schema this reader understands.
    public static let schema: Int64 = 1

    public var name: String
    /// IIO device name pattern (`*` and `?` wildcards); nil matches any.
    public var matchName: String?
    /// Panel label pattern; nil matches any.
    public var matchLabel: String?
    /// Per force channel calibration by channel id.
    public var channels: [ForceChannelCalibration]
    public var settings: ClassifierSettings
    /// The stated press-to-event budget, ms.
    public var budgetMilliseconds: Double?
    /// Where it was read from.
    public var file: String

    /// Creates a profile from its parts (calibrate builds one from a session).
    public init(name: String, matchName: String?, matchLabel: String?, channels: [ForceChannelCalibration],
                settings: ClassifierSettings, budgetMilliseconds: Double?, file: String) {
        self.name = name
        self.matchName = matchName
        self.matchLabel = matchLabel
        self.channels = channels
        self.settings = settings
        self.budgetMilliseconds = budgetMilliseconds
        self.file = file
    }

    /// Reads and validates a profile; errors name the file, line and key.
    public static func load(_ url: URL) throws(InputError) -> Profile {
        let bytes = try readBounded(url, limit: Limits.maximumProfileBytes, what: "profile",
                                    hint: "check the path; profiles live in calibration/")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InputError(file: url.path, problem: "is not UTF-8 text", hint: "save the profile as UTF-8")
        }
        return try parse(text, file: url.path)
    }

    /// Parses a profile's text.
    public static func parse(_ text: String, file: String) throws(InputError) -> Profile {
        guard text.utf8.count <= Limits.maximumProfileBytes else {
            throw InputError(file: file, problem: "is \(text.utf8.count) bytes, more than the \(Limits.maximumProfileBytes)-byte limit for a profile",
                             hint: "a profile is a few kilobytes; is this the right file?")
        }
        let doc: TOMLDocument
        do { doc = try TOMLDocument(parsing: text) } catch {
            throw InputError(file: file, line: error.line, problem: error.message, hint: "fix the TOML syntax")
        }
        var reader = ProfileReader(file: file)
        return try reader.read(doc)
    }

    /// How specifically this profile names a device: 0 when it does not match;
    /// more for an exact name or label than for a wildcard.
    public func specificity(deviceName: String, label: String?) -> Int {
        var score = 1
        if let matchName {
            guard wildcardMatch(matchName, deviceName) else { return 0 }
            score += matchName.contains(where: { $0 == "*" || $0 == "?" }) ? 2 : 4
        }
        if let matchLabel {
            guard let label, wildcardMatch(matchLabel, label) else { return 0 }
            score += matchLabel.contains(where: { $0 == "*" || $0 == "?" }) ? 8 : 16
        }
        return score
    }

    /// The setup for a recording or device with these channels.
    public func setup(for metadata: RecordingMetadata, file: String) throws(InputError) -> PanelSetup {
        for channel in metadata.forceChannels where !channels.contains(where: { $0.channel == channel.id }) {
            throw InputError(file: self.file, key: "channel", problem: "no [[channel]] with id = \"\(channel.id)\", a force channel of \(file)",
                             hint: "add a [[channel]] table for it, or use a profile made for this panel")
        }
        return try PanelSetup(metadata: metadata, forceCalibration: channels, settings: settings, file: file)
    }
}

/// `*` matches any run of characters, `?` any one.
public func wildcardMatch(_ pattern: String, _ text: String) -> Bool {
    let p = Array(pattern), t = Array(text)
    var pi = 0, ti = 0, star = -1, mark = 0
    while ti < t.count {
        if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) { pi += 1; ti += 1 }
        else if pi < p.count && p[pi] == "*" { star = pi; mark = ti; pi += 1 }
        else if star >= 0 { pi = star + 1; mark += 1; ti = mark }
        else { return false }
    }
    while pi < p.count && p[pi] == "*" { pi += 1 }
    return pi == p.count
}

/// Reads the typed fields out of a TOML document, naming line and key on error.
struct ProfileReader {
    let file: String

    func fail(_ key: String, _ line: Int?, _ problem: String, _ hint: String) -> InputError {
        InputError(file: file, key: key, line: line, problem: problem, hint: hint)
    }

    func number(_ t: TOMLTable?, _ key: String, _ path: String) throws(InputError) -> Double? {
        guard let t, let (v, line) = t[key] else { return nil }
        guard let n = v.number else { throw fail(path, line, "must be a number", "write e.g. \(key) = 1.5") }
        return n
    }

    /// A number of zero or more (above zero without `allowZero`) and at most
    /// `maximum`: durations default to ``Limits/maximumMilliseconds``.
    func positive(_ t: TOMLTable?, _ key: String, _ path: String, allowZero: Bool = true,
                  maximum: Double = Limits.maximumMilliseconds) throws(InputError) -> Float? {
        guard let n = try number(t, key, path) else { return nil }
        guard allowZero ? n >= 0 : n > 0 else {
            throw fail(path, t?[key]?.line, "must be \(allowZero ? "zero or more" : "above zero"), got \(JSON.format(n))", "use a positive value")
        }
        guard n <= maximum else {
            throw fail(path, t?[key]?.line, "must be at most \(JSON.format(maximum)), got \(JSON.format(n))", "see the README's Limits table")
        }
        return Float(n)
    }

    func string(_ t: TOMLTable?, _ key: String, _ path: String) throws(InputError) -> String? {
        guard let t, let (v, line) = t[key] else { return nil }
        guard case .string(let s) = v else { throw fail(path, line, "must be a string", "quote it: \(key) = \"...\"") }
        return s
    }

    func bool(_ t: TOMLTable?, _ key: String, _ path: String) throws(InputError) -> Bool? {
        guard let t, let (v, line) = t[key] else { return nil }
        guard case .bool(let b) = v else { throw fail(path, line, "must be true or false", "write \(key) = true") }
        return b
    }

    func unknownKeys(_ t: TOMLTable?, allowed: [String], prefix: String) throws(InputError) {
        guard let t else { return }
        for e in t.entries where !allowed.contains(e.key) {
            throw fail(prefix.isEmpty ? e.key : "\(prefix).\(e.key)", e.line, "is not a profile key",
                       "known keys here: \(allowed.joined(separator: ", "))")
        }
    }

    mutating func read(_ doc: TOMLDocument) throws(InputError) -> Profile {
        let known = ["match", "levels", "debounce", "baseline", "health", "latency"]
        for t in doc.tables where !known.contains(t.name) {
            throw fail("[\(t.name)]", t.line, "is not a profile table", "tables are \(known.map { "[\($0)]" }.joined(separator: ", ")) and [[channel]]")
        }
        for t in doc.arrays where t.name != "channel" {
            throw fail("[[\(t.name)]]", t.line, "is not a profile table", "per-channel calibration goes in [[channel]]")
        }
        try unknownKeys(doc.root, allowed: ["schema", "name"], prefix: "")
        guard let (schemaValue, schemaLine) = doc.root["schema"] else {
            throw fail("schema", nil, "missing", "start the profile with schema = \(Profile.schema)")
        }
        guard case .integer(let schema) = schemaValue, schema == Profile.schema else {
            throw fail("schema", schemaLine, "must be \(Profile.schema)", "this forcestage reads profile schema \(Profile.schema)")
        }
        let name = try string(doc.root, "name", "name") ?? URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent

        let match = doc.table("match")
        try unknownKeys(match, allowed: ["name", "label"], prefix: "match")
        let matchName = try string(match, "name", "match.name")
        let matchLabel = try string(match, "label", "match.label")

        let levels = doc.table("levels")
        try unknownKeys(levels, allowed: ["sensitivity", "peek_newtons", "pop_newtons", "release_fraction", "hold_ms"], prefix: "levels")
        var settings: ClassifierSettings
        if let preset = try string(levels, "sensitivity", "levels.sensitivity") {
            guard let s = Sensitivity.allCases.first(where: { $0.name == preset }) else {
                throw fail("levels.sensitivity", levels?["sensitivity"]?.line, "\"\(preset)\" is not a sensitivity", "use light, medium or firm")
            }
            settings = ClassifierSettings(sensitivity: s)
        } else {
            settings = ClassifierSettings(sensitivity: .medium)
        }
        if let peek = try positive(levels, "peek_newtons", "levels.peek_newtons", allowZero: false, maximum: Limits.maximumNewtons) { settings.peekNewtons = peek }
        if let pop = try positive(levels, "pop_newtons", "levels.pop_newtons", allowZero: false, maximum: Limits.maximumNewtons) { settings.popNewtons = pop }
        if levels?["sensitivity"] == nil && (levels?["peek_newtons"] == nil || levels?["pop_newtons"] == nil) {
            throw fail("levels", levels?.line, "needs peek_newtons and pop_newtons, or a sensitivity", "e.g. peek_newtons = 1.0 and pop_newtons = 2.5")
        }
        guard settings.popNewtons > settings.peekNewtons else {
            throw fail("levels.pop_newtons", levels?["pop_newtons"]?.line ?? levels?.line, "must be above peek_newtons (\(settings.peekNewtons))", "pop is the firmer level")
        }
        if let r = try number(levels, "release_fraction", "levels.release_fraction") {
            guard r > 0 && r < 1 else {
                throw fail("levels.release_fraction", levels?["release_fraction"]?.line, "must be between 0 and 1", "0.6 releases at 60 % of the peek level")
            }
            settings.releaseFraction = Float(r)
        }
        if let hold = try positive(levels, "hold_ms", "levels.hold_ms") { settings.holdMilliseconds = hold }

        let debounce = doc.table("debounce")
        try unknownKeys(debounce, allowed: ["press", "press_ms", "release", "release_ms"], prefix: "debounce")
        func mode(_ key: String) throws(InputError) -> DebounceMode? {
            guard let m = try string(debounce, key, "debounce.\(key)") else { return nil }
            switch m {
            case "eager": return .eager
            case "deferred", "defer": return .deferred
            default: throw fail("debounce.\(key)", debounce?[key]?.line, "\"\(m)\" is not a debounce mode", "use eager or deferred")
            }
        }
        if let m = try mode("press") { settings.pressDebounce.mode = m }
        if let ms = try positive(debounce, "press_ms", "debounce.press_ms") { settings.pressDebounce.milliseconds = ms }
        if let m = try mode("release") { settings.releaseDebounce.mode = m }
        if let ms = try positive(debounce, "release_ms", "debounce.release_ms") { settings.releaseDebounce.milliseconds = ms }

        let baseline = doc.table("baseline")
        try unknownKeys(baseline, allowed: ["enabled", "rise_ms", "fall_ms", "smoothing_ms", "touch_fraction", "warmup_ms"], prefix: "baseline")
        if let b = try bool(baseline, "enabled", "baseline.enabled") { settings.baseline.enabled = b }
        if let v = try positive(baseline, "rise_ms", "baseline.rise_ms") { settings.baseline.riseMilliseconds = v }
        if let v = try positive(baseline, "fall_ms", "baseline.fall_ms") { settings.baseline.fallMilliseconds = v }
        if let v = try positive(baseline, "smoothing_ms", "baseline.smoothing_ms") { settings.baseline.smoothingMilliseconds = v }
        if let v = try positive(baseline, "warmup_ms", "baseline.warmup_ms") { settings.baseline.warmupMilliseconds = v }
        if let v = try number(baseline, "touch_fraction", "baseline.touch_fraction") {
            guard v > 0 && v < 1 else {
                throw fail("baseline.touch_fraction", baseline?["touch_fraction"]?.line, "must be between 0 and 1", "0.3 freezes the baseline above 30 % of the peek level")
            }
            settings.baseline.touchFraction = Float(v)
        }

        let health = doc.table("health")
        try unknownKeys(health, allowed: ["stuck_ms", "saturation_scans", "spike_rejection"], prefix: "health")
        if let v = try positive(health, "stuck_ms", "health.stuck_ms") { settings.stuckMilliseconds = v }
        if let v = try positive(health, "saturation_scans", "health.saturation_scans", allowZero: false,
                                maximum: Limits.saturationScans.upperBound) {
            guard v == v.rounded() else {
                throw fail("health.saturation_scans", health?["saturation_scans"]?.line, "must be a whole number of scans", "write e.g. saturation_scans = 2")
            }
            settings.saturationScans = Int(v)
        }
        if let v = try bool(health, "spike_rejection", "health.spike_rejection") { settings.spikeRejection = v }

        let latency = doc.table("latency")
        try unknownKeys(latency, allowed: ["budget_ms"], prefix: "latency")
        let budget = try positive(latency, "budget_ms", "latency.budget_ms", allowZero: false,
                                  maximum: Limits.budgetMilliseconds.upperBound).map(Double.init)

        var channels: [ForceChannelCalibration] = []
        let channelTables = doc.array("channel")
        guard channelTables.count <= Limits.maximumChannels else {
            throw fail("channel", channelTables[Limits.maximumChannels].line, "more than \(Limits.maximumChannels) [[channel]] tables",
                       "calibrate only the panel's force channels")
        }
        for (i, t) in channelTables.enumerated() {
            let path = "channel[\(i)]"
            try unknownKeys(t, allowed: ["id", "zero_raw", "newtons_per_count", "curve"], prefix: path)
            guard let id = try string(t, "id", "\(path).id") else {
                throw fail("\(path).id", t.line, "missing", "name the IIO channel, e.g. id = \"voltage0\"")
            }
            if channels.contains(where: { $0.channel == id }) {
                throw fail("\(path).id", t["id"]?.line, "channel \"\(id)\" is calibrated twice", "keep one [[channel]] per channel")
            }
            let mapping: ForceMapping
            if let (curveValue, line) = t["curve"] {
                guard case .array(let items) = curveValue else {
                    throw fail("\(path).curve", line, "must be an array of [raw, newtons] pairs", "write curve = [[0, 0.0], [1200, 0.5]]")
                }
                let itemLines = t.itemLines["curve"] ?? []
                func pointLine(_ j: Int) -> Int { j < itemLines.count ? itemLines[j] : line }
                var points: [CurvePoint] = []
                for (j, item) in items.enumerated() {
                    guard case .array(let pair) = item, pair.count == 2, let raw = pair[0].number, let n = pair[1].number else {
                        throw fail("\(path).curve[\(j)]", pointLine(j), "must be a [raw, newtons] pair", "write [1200, 0.5]")
                    }
                    points.append(CurvePoint(raw: raw, newtons: n))
                }
                mapping = .curve(points)
                do { _ = try mapping.core() } catch {
                    // Name the point at fault, on its own line, when there is one.
                    switch error {
                    case .rawNotIncreasing(let j), .newtonsNotMonotone(let j):
                        throw fail("\(path).curve[\(j)]", pointLine(j), error.message, "a curve maps raw counts to newtons, raw strictly increasing, newtons monotone")
                    default:
                        throw fail("\(path).curve", line, error.message, "a curve maps raw counts to newtons")
                    }
                }
            } else {
                guard let zero = try number(t, "zero_raw", "\(path).zero_raw") else {
                    throw fail("\(path).zero_raw", t.line, "missing", "give zero_raw and newtons_per_count, or a curve")
                }
                guard let scale = try number(t, "newtons_per_count", "\(path).newtons_per_count") else {
                    throw fail("\(path).newtons_per_count", t.line, "missing", "weigh a known mass: newtons / (raw - zero_raw)")
                }
                guard abs(zero) <= Limits.maximumRawMagnitude else {
                    throw fail("\(path).zero_raw", t["zero_raw"]?.line, "\(JSON.format(zero)) is beyond a raw count's range (at most 2^53 in magnitude)", "give the raw reading of the unloaded panel")
                }
                mapping = .linear(zeroRaw: zero, newtonsPerCount: scale)
                do { _ = try mapping.core() } catch {
                    throw fail("\(path).newtons_per_count", t["newtons_per_count"]?.line, error.message, "weigh a known mass to find the scale")
                }
            }
            channels.append(ForceChannelCalibration(channel: id, mapping: mapping))
        }
        guard !channels.isEmpty else {
            throw fail("channel", nil, "no [[channel]] table", "calibrate at least one force channel")
        }
        do { try settings.validate() } catch {
            throw fail("levels", levels?.line, error.message, "fix the profile")
        }
        return Profile(name: name, matchName: matchName, matchLabel: matchLabel, channels: channels, settings: settings,
                       budgetMilliseconds: budget, file: file)
    }
}
