// Over 300 lines: the profile schema: every key read, bounded and given its error in one place.
#if canImport(Glibc)
import Glibc
#endif
import ForceStageCore
import ForceStageGestures

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
    /// `sample_rate_hz`: the scans per second the panel was calibrated at, the rate live
    /// commands stream a device at when it states none (an HX711 has no
    /// `sampling_frequency`); `nil` when the profile does not say.
    public var sampleRateHz: Double?
    /// `[uinput]`: the keys and pressure scale of `run --uinput` (`nil`: the defaults).
    public var uinput: UInputSettings?
    /// `[haptics]`: the actuator a pop (and optionally a peek) taps (`nil`: none).
    public var haptics: HapticsSettings?
    /// Where it was read from.
    public var file: String
    /// Named regions of the plate (`[[region]]`), validated: inside the plate, not overlapping.
    public var regions: [Region] = []

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
    ///
    /// - Parameter path: the file; messages name it made absolute (``PathText/absolute(_:)``).
    public static func load(path: String) throws(InputError) -> Profile {
        let path = PathText.absolute(path)
        let bytes = try readBounded(path: path, limit: Limits.maximumProfileBytes, what: "profile",
                                    hint: "check the path; profiles live in calibration/")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InputError(file: path, problem: "is not UTF-8 text", hint: "save the profile as UTF-8")
        }
        // Editors that add one show nothing, so "expected a key" on line 1 would not say what is wrong.
        if text.unicodeScalars.first == "\u{FEFF}" {
            throw InputError(file: path, line: 1, problem: "starts with a byte-order mark (U+FEFF), which is not TOML",
                             hint: "save the profile as UTF-8 without a BOM")
        }
        return try parse(text, file: path)
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
            throw fail(path, t?[key]?.line, "must be at most \(JSON.format(maximum)), got \(JSON.format(n))", "see the limits in docs/getting-started.md")
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
        let known = ["match", "levels", "debounce", "baseline", "health", "latency", "uinput", "haptics"]
        for t in doc.tables where !known.contains(t.name) {
            throw fail("[\(t.name)]", t.line, "is not a profile table", "tables are \(known.map { "[\($0)]" }.joined(separator: ", ")) and [[channel]]")
        }
        for t in doc.arrays where t.name != "channel" && t.name != "region" {
            throw fail("[[\(t.name)]]", t.line, "is not a profile table", "per-channel calibration goes in [[channel]]")
        }
        // An array of tables written inline is read as its tables (TOMLDocument); an empty one is no tables.
        for name in ["channel", "region"] {
            guard let (value, line) = doc.root[name] else { continue }
            guard case .array(let items) = value, items.isEmpty else {
                throw fail(name, line, "must be an array of tables", "write [[\(name)]] tables, or \(name) = [{ ... }, { ... }]")
            }
        }
        try unknownKeys(doc.root, allowed: ["schema", "name", "sample_rate_hz", "channel", "region"], prefix: "")
        guard let (schemaValue, schemaLine) = doc.root["schema"] else {
            throw fail("schema", nil, "missing", "start the profile with schema = \(Profile.schema)")
        }
        guard case .integer(let schema) = schemaValue, schema == Profile.schema else {
            throw fail("schema", schemaLine, "must be \(Profile.schema)", "this forcestage reads profile schema \(Profile.schema)")
        }
        let name = try string(doc.root, "name", "name") ?? PathText.lastComponent(PathText.deletingExtension(PathText.absolute(file)))
        let rate = try number(doc.root, "sample_rate_hz", "sample_rate_hz")
        if let rate, !Limits.sampleRateHz.contains(rate) {
            throw fail("sample_rate_hz", doc.root["sample_rate_hz"]?.line,
                       "must be \(JSON.format(Limits.sampleRateHz.lowerBound)) to \(JSON.format(Limits.sampleRateHz.upperBound)) scans per second, got \(JSON.format(rate))",
                       "write the rate the panel streams at, e.g. sample_rate_hz = 80 for an HX711 with RATE high")
        }

        let match = doc.table("match")
        try unknownKeys(match, allowed: ["name", "label"], prefix: "match")
        let matchName = try string(match, "name", "match.name")
        let matchLabel = try string(match, "label", "match.label")

        let levels = doc.table("levels")
        try unknownKeys(levels, allowed: ["sensitivity", "peek_newtons", "pop_newtons", "release_fraction", "hold_ms",
                                                "hold_settle_ms", "creep_allowance", "creep_amount", "creep_ms"], prefix: "levels")
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
                throw fail("levels.release_fraction", levels?["release_fraction"]?.line, "must be between 0 and 1", "0.5 releases at half the peek level (the recording spec's rule)")
            }
            settings.releaseFraction = Float(r)
        }
        if let hold = try positive(levels, "hold_ms", "levels.hold_ms") { settings.holdMilliseconds = hold }
        if let v = try positive(levels, "hold_settle_ms", "levels.hold_settle_ms") { settings.holdSettleMilliseconds = v }
        if let v = try number(levels, "creep_allowance", "levels.creep_allowance") {
            guard v >= 0 && v < 1 else {
                throw fail("levels.creep_allowance", levels?["creep_allowance"]?.line, "must be from 0 up to (not including) 1",
                           "0.15 lets an FSR creep 15 % under a held peek without popping; 0 for a load cell")
            }
            settings.creepAllowance = Float(v)
        }
        if let v = try number(levels, "creep_amount", "levels.creep_amount") {
            guard v >= 0 && v <= Double(ClassifierSettings.maximumCreepAmount) else {
                throw fail("levels.creep_amount", levels?["creep_amount"]?.line, "must be from 0 to \(JSON.format(Double(ClassifierSettings.maximumCreepAmount)))",
                           "0.08 compensates an FSR that creeps 5-15 % under a constant load; 0 turns the compensation off")
            }
            settings.creepAmount = Float(v)
        }
        if let v = try number(levels, "creep_ms", "levels.creep_ms") {
            guard v > 0 && v <= Double(ClassifierSettings.maximumCreepMilliseconds) else {
                throw fail("levels.creep_ms", levels?["creep_ms"]?.line, "must be above 0 and at most \(JSON.format(Double(ClassifierSettings.maximumCreepMilliseconds))) ms",
                           "the creep's time constant: an FSR's is some 1000-3000 ms")
            }
            settings.creepMilliseconds = Float(v)
        }

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
        try unknownKeys(baseline, allowed: ["enabled", "rise_ms", "fall_ms", "smoothing_ms", "touch_fraction", "warmup_ms",
                                                  "settle_ms", "undershoot_ms"], prefix: "baseline")
        if let b = try bool(baseline, "enabled", "baseline.enabled") { settings.baseline.enabled = b }
        if let v = try positive(baseline, "rise_ms", "baseline.rise_ms") { settings.baseline.riseMilliseconds = v }
        if let v = try positive(baseline, "fall_ms", "baseline.fall_ms") { settings.baseline.fallMilliseconds = v }
        if let v = try positive(baseline, "smoothing_ms", "baseline.smoothing_ms") { settings.baseline.smoothingMilliseconds = v }
        if let v = try positive(baseline, "warmup_ms", "baseline.warmup_ms") { settings.baseline.warmupMilliseconds = v }
        if let v = try positive(baseline, "settle_ms", "baseline.settle_ms") { settings.baseline.settleMilliseconds = v }
        if let v = try positive(baseline, "undershoot_ms", "baseline.undershoot_ms") { settings.baseline.undershootMilliseconds = v }
        if let v = try number(baseline, "touch_fraction", "baseline.touch_fraction") {
            guard v > 0 && v < 1 else {
                throw fail("baseline.touch_fraction", baseline?["touch_fraction"]?.line, "must be between 0 and 1", "0.3 freezes the baseline above 30 % of the peek level")
            }
            settings.baseline.touchFraction = Float(v)
        }

        let health = doc.table("health")
        try unknownKeys(health, allowed: ["stuck_ms", "saturation_scans", "spike_rejection", "spike_max_ms", "vibration_holdoff_ms",
                                         "vibration_rise_ms", "vibration_confirm_ms", "vibration_curve_ms",
                                         "vibration_curve_wait_ms", "stuck_step_fraction"], prefix: "health")
        if let v = try positive(health, "stuck_ms", "health.stuck_ms") { settings.stuckMilliseconds = v }
        if let v = try positive(health, "saturation_scans", "health.saturation_scans", allowZero: false,
                                maximum: Limits.saturationScans.upperBound) {
            guard v == v.rounded() else {
                throw fail("health.saturation_scans", health?["saturation_scans"]?.line, "must be a whole number of scans", "write e.g. saturation_scans = 2")
            }
            settings.saturationScans = Int(v)
        }
        if let v = try bool(health, "spike_rejection", "health.spike_rejection") { settings.spikeRejection = v }
        if let v = try positive(health, "spike_max_ms", "health.spike_max_ms") { settings.spikeMaximumMilliseconds = v }
        if let v = try positive(health, "vibration_holdoff_ms", "health.vibration_holdoff_ms") { settings.vibrationHoldoffMilliseconds = v }
        if let v = try positive(health, "vibration_rise_ms", "health.vibration_rise_ms") { settings.vibrationRiseMilliseconds = v }
        if let v = try positive(health, "vibration_confirm_ms", "health.vibration_confirm_ms") { settings.vibrationConfirmMilliseconds = v }
        if let v = try positive(health, "vibration_curve_ms", "health.vibration_curve_ms") { settings.vibrationCurveMilliseconds = v }
        if let v = try positive(health, "vibration_curve_wait_ms", "health.vibration_curve_wait_ms") { settings.vibrationCurveWaitMilliseconds = v }
        if let v = try number(health, "stuck_step_fraction", "health.stuck_step_fraction") {
            guard v >= 0 && v < 1 else {
                throw fail("health.stuck_step_fraction", health?["stuck_step_fraction"]?.line, "must be from 0 up to (not including) 1",
                           "0.01 calls a noise-free reading frozen mid-press stuck where one count is at most 1 % of the force; 0 turns it off")
            }
            settings.stuckStepFraction = Float(v)
        }

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
        var curvePoints = 0
        for (i, t) in channelTables.enumerated() {
            let path = "channel[\(i)]"
            try unknownKeys(t, allowed: ["id", "zero_raw", "newtons_per_count", "curve", "position"], prefix: path)
            guard let id = try string(t, "id", "\(path).id") else {
                throw fail("\(path).id", t.line, "missing", "name the IIO channel, e.g. id = \"voltage0\"")
            }
            if let problem = ChannelID.problem(id) { throw fail("\(path).id", t["id"]?.line, problem, ChannelID.hint) }
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
                // The panel keeps every curve's points in one pool: a profile past it is refused here, not first by replay or run.
                curvePoints += points.count
                guard curvePoints <= PanelCalibration.maximumCurvePoints else {
                    throw fail("\(path).curve", line, CalibrationError.tooManyCurvePoints(curvePoints).message, "use fewer points per curve")
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
            var position: PlatePoint?
            if let (value, line) = t["position"] {
                guard case .array(let items) = value, items.count == 2, let x = items[0].number, let y = items[1].number else {
                    throw fail("\(path).position", line, "must be an [x, y] pair of numbers", "write position = [0.0, 1.0] (plate units)")
                }
                guard x >= 0, x <= 1, y >= 0, y <= 1 else {
                    throw fail("\(path).position", line, "[\(JSON.format(x)), \(JSON.format(y))] lies outside the plate",
                               "each coordinate is within 0..1, across each side of the plate")
                }
                position = PlatePoint(x: Float(x), y: Float(y))
            }
            channels.append(ForceChannelCalibration(channel: id, mapping: mapping, position: position))
        }
        guard !channels.isEmpty else {
            throw fail("channel", nil, "no [[channel]] table", "calibrate at least one force channel")
        }
        let tables = doc.array("channel")
        if let i = channels.indices.first(where: { channels[$0].position != nil }) {
            if channels.count == 1 {
                throw fail("channel[0].position", tables[0]["position"]?.line, "a single-cell panel cannot locate a press",
                           "remove position, or calibrate every cell of a multi-cell panel")
            }
            if let j = channels.indices.first(where: { channels[$0].position == nil }) {
                throw fail("channel[\(j)].position", tables[j].line, "missing while channel[\(i)] has one",
                           "give every [[channel]] a position = [x, y], or none (four cells default to the corners)")
            }
            // The check a recording or device makes of the same positions (PanelSetup), so `profile check` agrees with it.
            do { _ = try CellPositions(channels.compactMap(\.position)) } catch {
                throw fail("channel[].position", tables[i]["position"]?.line ?? tables[i].line, error.message, "give the cells positions that span the plate, at least three not in a line")
            }
        }
        do { try settings.validate() } catch {
            throw fail("levels", levels?.line, error.message, "fix the profile")
        }
        var profile = Profile(name: name, matchName: matchName, matchLabel: matchLabel, channels: channels, settings: settings,
                              budgetMilliseconds: budget, file: file)
        profile.sampleRateHz = rate
        profile.uinput = try readUInput(doc.table("uinput"))
        profile.haptics = try readHaptics(doc.table("haptics"))
        profile.regions = try readRegions(doc, channels: channels, settings: settings)
        return profile
    }

    /// `[uinput]`: key names from ``InputCodes/keyNames`` (or a number up to KEY_MAX), each used once.
    func readUInput(_ t: TOMLTable?) throws(InputError) -> UInputSettings? {
        guard let t else { return nil }
        try unknownKeys(t, allowed: ["name", "peek", "pop", "hold", "max_newtons", "fuzz_newtons"], prefix: "uinput")
        var u = UInputSettings()
        if let name = try string(t, "name", "uinput.name") {
            guard !name.isEmpty, name.utf8.count < 80, !name.contains(where: { $0.isNewline }) else {
                throw fail("uinput.name", t["name"]?.line, "must be 1 to 79 bytes on one line", "write e.g. name = \"Kiosk force panel\"")
            }
            u.name = name
        }
        func key(_ k: String) throws(InputError) -> UInt16?? {
            guard let (v, line) = t[k] else { return .none }
            let known = "e.g. KEY_ENTER, BTN_LEFT, or \"none\"; known names: \(InputCodes.keyNames.map(\.name).joined(separator: " "))"
            switch v {
            case .string(let name):
                if name.lowercased() == "none" { return .some(nil) }
                guard let code = InputCodes.code(named: name) else {
                    throw fail("uinput.\(k)", line, "\"\(name)\" is not a key name ForceStage knows", known)
                }
                return .some(code)
            case .integer(let n):
                guard n > 0, n <= Int64(InputCodes.keyMax), n != Int64(InputCodes.btnTouch) else {
                    throw fail("uinput.\(k)", line, "key code \(n) is out of range", "use 1 to \(InputCodes.keyMax) (not BTN_TOUCH, which ForceStage sends itself), or a name: \(known)")
                }
                return .some(UInt16(n))
            default:
                throw fail("uinput.\(k)", line, "must be a key name or code", known)
            }
        }
        if let v = try key("peek") { u.peek = v }
        if let v = try key("pop") { u.pop = v }
        if let v = try key("hold") { u.hold = v }
        // The default pop key gives way to a peek or hold that names it (peek = "BTN_LEFT" alone works).
        if t["pop"] == nil, let p = u.pop, p == u.peek || p == u.hold { u.pop = nil }
        let used = [("peek", u.peek), ("pop", u.pop), ("hold", u.hold)].compactMap { k, c in c.map { (k, $0) } }
        for (i, a) in used.enumerated() {
            for b in used[(i + 1)...] where a.1 == b.1 {
                throw fail("uinput.\(b.0)", t[b.0]?.line, "presses \(InputCodes.name(of: b.1)), as uinput.\(a.0) does",
                           "give each gesture its own key, or \"none\"")
            }
        }
        u.maxNewtons = try positive(t, "max_newtons", "uinput.max_newtons", allowZero: false)
        u.fuzzNewtons = try positive(t, "fuzz_newtons", "uinput.fuzz_newtons")
        if let m = u.maxNewtons, m > 10_000 {
            throw fail("uinput.max_newtons", t["max_newtons"]?.line, "is above 10000 N", "use the panel's full-scale force")
        }
        return u
    }

    /// `[haptics]`: the evdev force-feedback device and the tap.
    func readHaptics(_ t: TOMLTable?) throws(InputError) -> HapticsSettings? {
        guard let t else { return nil }
        try unknownKeys(t, allowed: ["device", "effect", "peek", "duration_ms", "strength", "period_ms"], prefix: "haptics")
        guard let device = try string(t, "device", "haptics.device"), device.hasPrefix("/") else {
            throw fail("haptics.device", t["device"]?.line ?? t.line, "missing or not an absolute path",
                       "name the actuator's evdev node, e.g. device = \"/dev/input/by-path/platform-haptic-event\"")
        }
        var h = HapticsSettings(device: device)
        if let e = try string(t, "effect", "haptics.effect") {
            guard let effect = HapticsSettings.Effect(rawValue: e) else {
                throw fail("haptics.effect", t["effect"]?.line, "\"\(e)\" is not an effect", "use rumble (FF_RUMBLE) or periodic (FF_PERIODIC sine)")
            }
            h.effect = effect
        }
        if let v = try bool(t, "peek", "haptics.peek") { h.onPeek = v }
        if let v = try positive(t, "duration_ms", "haptics.duration_ms", allowZero: false) {
            guard v <= 1000 else { throw fail("haptics.duration_ms", t["duration_ms"]?.line, "is above 1000 ms", "a tap is 5 to 50 ms") }
            h.durationMs = UInt16(max(1, v.rounded()))
        }
        if let v = try positive(t, "period_ms", "haptics.period_ms", allowZero: false) {
            guard v <= 1000 else { throw fail("haptics.period_ms", t["period_ms"]?.line, "is above 1000 ms", "a sine of 2 to 10 ms suits most actuators") }
            h.periodMs = UInt16(max(1, v.rounded()))
        }
        if let v = try positive(t, "strength", "haptics.strength") {
            guard v <= 1 else { throw fail("haptics.strength", t["strength"]?.line, "must be 0 to 1", "1 is the actuator's full magnitude") }
            h.strength = v
        }
        return h
    }

    /// `[[region]]` tables: name, rect = [x0, y0, x1, y1] (plate units),
    /// optional peek_newtons / pop_newtons or sensitivity, up to four
    /// actions, default = true for presses outside every region.
    func readRegions(_ doc: TOMLDocument, channels: [ForceChannelCalibration], settings: ClassifierSettings) throws(InputError) -> [Region] {
        var regions: [Region] = []
        var lines: [Int] = []
        for (i, t) in doc.array("region").enumerated() {
            let path = "region[\(i)]"
            try unknownKeys(t, allowed: ["name", "rect", "peek_newtons", "pop_newtons", "sensitivity", "actions", "default"], prefix: path)
            // Panels of two to four cells have standard positions (CellPositions.standard(forCells:)).
            if channels.count < 2
                || (CellPositions.standard(forCells: channels.count) == nil && channels.contains(where: { $0.position == nil })) {
                throw fail(path, t.line, "regions need press positions, and this panel has none",
                           channels.count < 2 ? "a single-cell panel cannot tell where it is pressed; remove [[region]]"
                                              : "give every [[channel]] a position = [x, y] (only panels of 2, 3 or 4 cells have standard ones)")
            }
            guard let name = try string(t, "name", "\(path).name"), !name.isEmpty else {
                throw fail("\(path).name", t.line, "missing", "name the region, e.g. name = \"ok-button\"")
            }
            if regions.contains(where: { $0.name == name }) {
                throw fail("\(path).name", t["name"]?.line, "region \"\(name)\" is named twice", "give each region its own name")
            }
            guard let (rectValue, rectLine) = t["rect"] else {
                throw fail("\(path).rect", t.line, "missing", "write rect = [x0, y0, x1, y1] in plate units (0..1)")
            }
            guard case .array(let items) = rectValue, items.count == 4 else {
                throw fail("\(path).rect", rectLine, "must be [x0, y0, x1, y1]", "write rect = [0.0, 0.0, 0.5, 0.5]")
            }
            let numbers = items.compactMap(\.number)
            guard numbers.count == 4 else {
                throw fail("\(path).rect", rectLine, "must be four numbers", "write rect = [0.0, 0.0, 0.5, 0.5]")
            }
            guard numbers.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
                throw fail("\(path).rect", rectLine, "lies outside the plate", "every coordinate is within 0..1")
            }
            guard numbers[0] < numbers[2], numbers[1] < numbers[3] else {
                throw fail("\(path).rect", rectLine, "is empty: x0 must be below x1 and y0 below y1", "write [x0, y0, x1, y1]")
            }
            var peek = try number(t, "peek_newtons", "\(path).peek_newtons")
            var pop = try number(t, "pop_newtons", "\(path).pop_newtons")
            if let s = try string(t, "sensitivity", "\(path).sensitivity") {
                guard let preset = Sensitivity.allCases.first(where: { "\($0)" == s }) else {
                    throw fail("\(path).sensitivity", t["sensitivity"]?.line, "\"\(s)\" is not a sensitivity", "use light, medium or firm")
                }
                peek = peek ?? Double(preset.levels.peek)
                pop = pop ?? Double(preset.levels.pop)
            }
            let effectivePeek = peek ?? Double(settings.peekNewtons), effectivePop = pop ?? Double(settings.popNewtons)
            guard effectivePeek > 0, effectivePop > effectivePeek else {
                throw fail("\(path).pop_newtons", (t["pop_newtons"] ?? t["peek_newtons"])?.line ?? t.line,
                           "the region's pop level must be above its peek level, both above zero", "fix peek_newtons / pop_newtons")
            }
            var actions: [String] = []
            if let (value, line) = t["actions"] {
                guard case .array(let items) = value else { throw fail("\(path).actions", line, "must be an array of names", "write actions = [\"open\", \"share\"]") }
                for item in items {
                    guard case .string(let a) = item, !a.isEmpty else {
                        throw fail("\(path).actions", line, "must be non-empty strings", "write actions = [\"open\", \"share\"]")
                    }
                    actions.append(a)
                }
                guard actions.count <= Region.maximumActions else {
                    throw fail("\(path).actions", line, "\(actions.count) quick actions; a region has at most \(Region.maximumActions)", "keep four or fewer")
                }
            }
            let isDefault = try bool(t, "default", "\(path).default") ?? false
            if isDefault, let other = regions.firstIndex(where: \.isDefault) {
                throw fail("\(path).default", t["default"]?.line, "region[\(other)] is already the default", "keep one default region")
            }
            let region = Region(name: name, minX: numbers[0], minY: numbers[1], maxX: numbers[2], maxY: numbers[3],
                                peekNewtons: peek, popNewtons: pop, actions: actions, isDefault: isDefault)
            if let j = regions.firstIndex(where: { $0.overlaps(region) }) {
                throw fail("\(path).rect", rectLine, "overlaps region[\(j)] \"\(regions[j].name)\" (line \(lines[j]))",
                           "regions must not overlap: a press must belong to one region")
            }
            regions.append(region)
            lines.append(rectLine)
        }
        return regions
    }
}
