// Over 300 lines: the recording metadata schema: every key read and bounded in one place, beside its writer.
#if canImport(Glibc)
import Glibc
#endif
import ForceStageCore

/// Typed access to parsed JSON that reports the file and key path on error.
struct JSONFields {
    let file: String
    let path: String
    let value: [(String, JSON)]

    func fail(_ key: String, _ problem: String, _ hint: String) -> InputError {
        InputError(file: file, key: path.isEmpty ? key : "\(path).\(key)", problem: problem, hint: hint)
    }

    subscript(_ key: String) -> JSON? { value.first { $0.0 == key }?.1 }

    func has(_ key: String) -> Bool {
        guard let v = self[key] else { return false }
        return v != .null
    }

    /// The value at `key`: nil when absent and optional, an error when absent and required.
    private func present(_ key: String, _ required: Bool) throws(InputError) -> JSON? {
        guard let raw = self[key], raw != .null else {
            if required { throw fail(key, "missing", "add the key; see the forcestage-recording/1 spec") }
            return nil
        }
        return raw
    }

    func string(_ key: String, required: Bool = true) throws(InputError) -> String? {
        guard let raw = try present(key, required) else { return nil }
        guard case .string(let s) = raw else { throw fail(key, "must be a string", "quote the value") }
        guard s.utf8.count <= Limits.maximumStringBytes else {
            throw fail(key, "is \(s.utf8.count) bytes long, more than \(Limits.maximumStringBytes)", "shorten it")
        }
        return s
    }

    func number(_ key: String, required: Bool = true) throws(InputError) -> Double? {
        guard let raw = try present(key, required) else { return nil }
        guard let n = JSONFields.double(raw) else { throw fail(key, "must be a number", "write a plain number") }
        return n
    }

    func integer(_ key: String, required: Bool = true) throws(InputError) -> Int64? {
        guard let raw = try present(key, required) else { return nil }
        guard let n = JSONFields.integer(raw) else { throw fail(key, "must be a whole number", "write an integer") }
        return n
    }

    func array(_ key: String, required: Bool = true) throws(InputError) -> [JSON]? {
        guard let raw = try present(key, required) else { return nil }
        guard case .array(let a) = raw else { throw fail(key, "must be an array", "write [ ... ]") }
        return a
    }

    func object(_ key: String, required: Bool = true) throws(InputError) -> JSONFields? {
        guard let raw = try present(key, required) else { return nil }
        guard case .object(let o) = raw else { throw fail(key, "must be an object", "write { ... }") }
        return JSONFields(file: file, path: path.isEmpty ? key : "\(path).\(key)", value: o)
    }

    func element(_ array: [JSON], _ i: Int, of key: String) throws(InputError) -> JSONFields {
        guard case .object(let o) = array[i] else { throw fail("\(key)[\(i)]", "must be an object", "write { ... }") }
        return JSONFields(file: file, path: path.isEmpty ? "\(key)[\(i)]" : "\(path).\(key)[\(i)]", value: o)
    }

    static func double(_ raw: JSON) -> Double? {
        switch raw {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    static func integer(_ raw: JSON) -> Int64? {
        switch raw {
        case .int(let i): return i
        case .double(let d):
            guard d == d.rounded(), abs(d) < 9.2e18 else { return nil }
            return Int64(d)
        default: return nil
        }
    }
}

extension RecordingMetadata {
    /// Reads and validates `STEM.json` (at most ``Limits/maximumMetadataBytes``).
    public static func load(path: String) throws(InputError) -> RecordingMetadata {
        let path = PathText.absolute(path)
        let bytes = try readBounded(path: path, limit: Limits.maximumMetadataBytes, what: "recording metadata",
                                    hint: "check the path; a recording is STEM.json plus STEM.iio side by side")
        return try parse(bytes: bytes, file: path)
    }

    /// Parses and validates the JSON text of a recording's metadata.
    public static func parse(bytes data: [UInt8], file: String) throws(InputError) -> RecordingMetadata {
        guard data.count <= Limits.maximumMetadataBytes else {
            throw InputError(file: file, problem: "is \(data.count) bytes, more than the \(Limits.maximumMetadataBytes)-byte limit for recording metadata",
                             hint: "split the recording or drop labels")
        }
        let any: JSON
        do { any = try JSON.parse(data) } catch {
            throw InputError(file: file, line: error.line, problem: "not valid JSON: \(error.message)", hint: "fix the syntax; the file must be one JSON object")
        }
        guard case .object(let root) = any else {
            throw InputError(file: file, problem: "the top level is not a JSON object", hint: "a recording's metadata is one { ... } object")
        }
        let top = JSONFields(file: file, path: "", value: root)
        let format = try top.string("format")!
        guard format == formatName else {
            throw top.fail("format", "is \"\(format)\", not \"\(formatName)\"", "this reader understands \(formatName) only")
        }
        let device = try top.object("device")!
        let name = try device.string("name")!
        let label = try device.string("label", required: false)
        let rate = try top.number("sampleRateHz")!
        guard rate.within(Limits.sampleRateHz) else {
            throw top.fail("sampleRateHz", "must be above zero, from \(JSON.format(Limits.sampleRateHz.lowerBound)) to \(JSON.format(Limits.sampleRateHz.upperBound)) scans per second, got \(JSON.format(rate))", "give the device's scans per second (e.g. 80 for an HX711)")
        }
        let clock = try top.string("timestampClock", required: false)

        let channelList = try top.array("channels")!
        guard !channelList.isEmpty else { throw top.fail("channels", "is empty", "list every channel present in each scan") }
        guard channelList.count <= Limits.maximumChannels else {
            throw top.fail("channels", "lists \(channelList.count) channels, more than \(Limits.maximumChannels)", "list only the channels present in each scan")
        }
        var channels: [RecordingChannel] = []
        for i in channelList.indices {
            let c = try top.element(channelList, i, of: "channels")
            let id = try c.string("id")!
            if let problem = ChannelID.problem(id) { throw c.fail("id", problem, ChannelID.hint) }
            let index = try c.integer("index")!
            guard index >= 0 && index <= Int64(ScanLayout.maximumIndex) else {
                throw c.fail("index", "\(index) does not fit a scan index (0...\(ScanLayout.maximumIndex))", "use the channel's scan_elements/*_index")
            }
            let text = try c.string("format")!
            let format: ChannelFormat
            do { format = try ChannelFormat(parsing: text) } catch {
                throw c.fail("format", "\"\(text)\" is not a channel format: \(error.message)", "copy scan_elements/\(id)_type")
            }
            let roleText = try c.string("role", required: false) ?? "other"
            guard let role = ChannelRole(rawValue: roleText) else {
                throw c.fail("role", "\"\(roleText)\" is not a role", "use force, timestamp or other")
            }
            if channels.contains(where: { $0.id == id }) {
                throw c.fail("id", "\"\(id)\" appears twice", "give each channel its own id")
            }
            channels.append(RecordingChannel(id: id, index: Int(index), format: format,
                                             scale: try c.number("scale", required: false),
                                             offset: try c.number("offset", required: false), role: role))
        }
        do { _ = try ScanLayout(channels.map { (index: $0.index, format: $0.format) }) } catch {
            throw top.fail("channels", error.message, "each channel needs its own scan index")
        }
        guard channels.contains(where: { $0.role == .force }) else {
            throw top.fail("channels", "no channel has role \"force\"", "mark the channels that carry force with \"role\": \"force\"")
        }
        guard channels.filter({ $0.role == .force }).count <= PanelCalibration.maximumForceChannels else {
            throw top.fail("channels", "more than \(PanelCalibration.maximumForceChannels) force channels", "a panel sums at most \(PanelCalibration.maximumForceChannels) cells")
        }
        guard channels.filter({ $0.role == .timestamp }).count <= 1 else {
            throw top.fail("channels", "more than one channel has role \"timestamp\"", "mark one timestamp channel")
        }
        if let ts = channels.first(where: { $0.role == .timestamp }), ts.format.storageBits != 64 || !ts.format.signed {
            throw top.fail("channels", "the timestamp channel \"\(ts.id)\" is \(ts.format.text), not a 64-bit signed value", "timestamps are le:s64/64>>0 nanoseconds")
        }

        var calibration: RecordingCalibration?
        if let cal = try top.object("calibration", required: false) {
            calibration = try parseCalibration(cal, channels: channels)
        }

        var labels: [Label] = []
        if let list = try top.array("labels", required: false) {
            guard list.count <= Limits.maximumLabels else {
                throw top.fail("labels", "holds \(list.count) labels, more than \(Limits.maximumLabels)", "split the recording into shorter ones")
            }
            for i in list.indices {
                let l = try top.element(list, i, of: "labels")
                let event = try l.string("event")!
                guard let kind = EventKind.allCases.first(where: { $0.isTransition && $0.name == event }) else {
                    throw l.fail("event", "\"\(event)\" is not a labelled event", "use peek, pop or release")
                }
                let sample = try l.integer("sample")!
                guard sample >= 0 else { throw l.fail("sample", "is negative", "scan indices start at 0") }
                let windowStart = try l.integer("windowStart", required: false)
                if let windowStart, windowStart < 0 || windowStart > sample {
                    throw l.fail("windowStart", "\(windowStart) is not between 0 and sample \(sample)", "windowStart is where the force last fell below the peek level, at or before sample")
                }
                let x = try l.number("x", required: false)
                let y = try l.number("y", required: false)
                guard (x == nil) == (y == nil) else {
                    throw l.fail(x == nil ? "x" : "y", "missing while \(x == nil ? "y" : "x") is given", "a label's position needs both x and y")
                }
                for (key, v) in [("x", x), ("y", y)] {
                    if let v, !v.isFinite { throw l.fail(key, "is not a finite number", "positions are in plate units, 0..1") }
                }
                labels.append(Label(event: kind, sample: Int(sample), windowStart: windowStart.map { Int($0) }, x: x, y: y))
            }
        }
        return RecordingMetadata(deviceName: name, deviceLabel: label, sampleRateHz: rate, timestampClock: clock,
                                 channels: channels, calibration: calibration, labels: labels)
    }

    private static func parseCalibration(_ cal: JSONFields, channels: [RecordingChannel]) throws(InputError) -> RecordingCalibration {
        let list = try cal.array("force")!
        var force: [ForceChannelCalibration] = []
        for i in list.indices {
            let f = try cal.element(list, i, of: "force")
            let id = try f.string("channel")!
            guard let channel = channels.first(where: { $0.id == id }), channel.role == .force else {
                throw f.fail("channel", "\"\(id)\" is not a force channel of this recording", "name a channel whose role is force")
            }
            if force.contains(where: { $0.channel == id }) {
                throw f.fail("channel", "\"\(id)\" is calibrated twice", "keep one entry per force channel")
            }
            let mapping: ForceMapping
            if f.has("curve") {
                let points = try f.array("curve")!
                guard points.count <= Limits.maximumCurvePoints else {
                    throw f.fail("curve", "has \(points.count) points, more than \(Limits.maximumCurvePoints)", "a curve needs a few points per calibration mass")
                }
                var pairs: [CurvePoint] = []
                for (j, point) in points.enumerated() {
                    guard case .array(let pair) = point, pair.count == 2,
                          let raw = JSONFields.double(pair[0]), let newtons = JSONFields.double(pair[1]) else {
                        throw f.fail("curve[\(j)]", "must be a [raw, newtons] pair of numbers", "write [12345, 1.5]")
                    }
                    pairs.append(CurvePoint(raw: raw, newtons: newtons))
                }
                mapping = .curve(pairs)
                do { _ = try mapping.core() } catch {
                    throw f.fail("curve", error.message, "a curve maps raw counts to newtons, sorted by raw value")
                }
            } else {
                let zero = try f.number("zeroRaw")!
                guard abs(zero) <= Limits.maximumRawMagnitude else {
                    throw f.fail("zeroRaw", "\(JSON.format(zero)) is beyond a raw count's range (at most 2^53 in magnitude)", "give the raw reading of the unloaded panel")
                }
                mapping = .linear(zeroRaw: zero, newtonsPerCount: try f.number("newtonsPerCount")!)
                do { _ = try mapping.core() } catch {
                    throw f.fail("newtonsPerCount", error.message, "weigh a known mass to find the scale")
                }
            }
            var position: PlatePoint?
            if let list = try f.array("position", required: false) {
                guard list.count == 2, let x = JSONFields.double(list[0]), let y = JSONFields.double(list[1]) else {
                    throw f.fail("position", "must be an [x, y] pair of numbers", "write [0.0, 1.0]: plate units across each side")
                }
                guard x >= 0, x <= 1, y >= 0, y <= 1 else {
                    throw f.fail("position", "[\(JSON.format(x)), \(JSON.format(y))] lies outside the plate", "each coordinate is within 0..1")
                }
                position = PlatePoint(x: Float(x), y: Float(y))
            }
            force.append(ForceChannelCalibration(channel: id, mapping: mapping, position: position))
        }
        if force.contains(where: { $0.position != nil }) && force.contains(where: { $0.position == nil }) {
            throw cal.fail("force", "some force channels have a position and some do not", "give every force channel a position, or none")
        }
        for channel in channels where channel.role == .force && !force.contains(where: { $0.channel == channel.id }) {
            throw cal.fail("force", "force channel \"\(channel.id)\" has no calibration", "add an entry with zeroRaw and newtonsPerCount, or a curve")
        }
        let peek = try cal.number("peekNewtons")!
        let pop = try cal.number("popNewtons")!
        guard peek > 0, peek <= Limits.maximumNewtons else { throw cal.fail("peekNewtons", "must be above zero and at most \(JSON.format(Limits.maximumNewtons)) N", "a light press is typically 0.5-2 N") }
        guard pop > peek, pop <= Limits.maximumNewtons else { throw cal.fail("popNewtons", "must be above peekNewtons (\(JSON.format(peek)))", "pop is the firmer of the two levels") }
        // The sensor's creep (an FSR's), where the calibration states it.
        let creepAmount = try cal.number("creepAmount", required: false)
        if let creepAmount {
            guard creepAmount >= 0, creepAmount <= Double(ClassifierSettings.maximumCreepAmount) else {
                throw cal.fail("creepAmount", "must be from 0 to \(JSON.format(Double(ClassifierSettings.maximumCreepAmount)))",
                               "an FSR creeps some 0.05-0.15 under a constant load; 0 for a sensor that does not creep")
            }
        }
        let creepMilliseconds = try cal.number("creepMilliseconds", required: false)
        if let creepMilliseconds {
            guard creepMilliseconds > 0, creepMilliseconds <= Double(ClassifierSettings.maximumCreepMilliseconds) else {
                throw cal.fail("creepMilliseconds", "must be above 0 and at most \(JSON.format(Double(ClassifierSettings.maximumCreepMilliseconds))) ms",
                               "the creep's time constant: an FSR's is some 1000-3000 ms")
            }
        }
        return RecordingCalibration(force: force, peekNewtons: peek, popNewtons: pop,
                                    creepAmount: creepAmount, creepMilliseconds: creepMilliseconds)
    }

    /// The metadata as JSON, keys in the spec's order.
    public func json() -> JSON {
        var device: [(String, JSON)] = [("name", .string(deviceName))]
        if let deviceLabel { device.append(("label", .string(deviceLabel))) }
        var root: [(String, JSON)] = [
            ("format", .string(RecordingMetadata.formatName)),
            ("device", .object(device)),
            ("sampleRateHz", .double(sampleRateHz)),
        ]
        if let timestampClock { root.append(("timestampClock", .string(timestampClock))) }
        root.append(("channels", .array(channels.map { c in
            var o: [(String, JSON)] = [("id", .string(c.id)), ("index", .int(Int64(c.index))), ("format", .string(c.format.text))]
            if let scale = c.scale { o.append(("scale", .double(scale))) }
            if let offset = c.offset { o.append(("offset", .double(offset))) }
            o.append(("role", .string(c.role.rawValue)))
            return .object(o)
        })))
        if let calibration {
            var block: [(String, JSON)] = [
                ("force", .array(calibration.force.map { f in
                    var o: [(String, JSON)] = [("channel", .string(f.channel))]
                    switch f.mapping {
                    case .linear(let zero, let scale):
                        o += [("zeroRaw", .double(zero)), ("newtonsPerCount", .double(scale))]
                    case .curve(let points):
                        o.append(("curve", .array(points.map { p in .array([.double(p.raw), .double(p.newtons)]) })))
                    }
                    if let p = f.position { o.append(("position", .array([.double(Double(p.x)), .double(Double(p.y))]))) }
                    return .object(o)
                })),
                ("peekNewtons", .double(calibration.peekNewtons)),
                ("popNewtons", .double(calibration.popNewtons)),
            ]
            if let a = calibration.creepAmount { block.append(("creepAmount", .double(a))) }
            if let ms = calibration.creepMilliseconds { block.append(("creepMilliseconds", .double(ms))) }
            root.append(("calibration", .object(block)))
        }
        if !labels.isEmpty {
            root.append(("labels", .array(labels.map { l in
                var o: [(String, JSON)] = [("event", .string(l.event.name)), ("sample", .int(Int64(l.sample)))]
                if let w = l.windowStart { o.append(("windowStart", .int(Int64(w)))) }
                if let x = l.x, let y = l.y { o += [("x", .double(x)), ("y", .double(y))] }
                return .object(o)
            })))
        }
        return .object(root)
    }
}
