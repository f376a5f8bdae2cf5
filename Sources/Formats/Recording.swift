#if canImport(Glibc)
import Glibc
#endif
import ForceStageCore

/// The role of a channel in a recording.
public enum ChannelRole: String, Sendable, CaseIterable {
    /// Summed into the panel's force.
    case force
    /// Nanosecond timestamps.
    case timestamp
    /// Carried, ignored.
    case other
}

/// One channel of a `forcestage-recording/1` recording.
public struct RecordingChannel: Equatable, Sendable {
    public var id: String
    public var index: Int
    public var format: ChannelFormat
    public var scale: Double?
    public var offset: Double?
    public var role: ChannelRole

    public init(id: String, index: Int, format: ChannelFormat, scale: Double? = nil, offset: Double? = nil, role: ChannelRole) {
        self.id = id
        self.index = index
        self.format = format
        self.scale = scale
        self.offset = offset
        self.role = role
    }
}

/// How one force channel's raw counts map to newtons, with the numbers kept
/// exactly as written (the core works in Float; files keep Double).
public enum ForceMapping: Equatable, Sendable {
    /// `(raw - zeroRaw) * newtonsPerCount`.
    case linear(zeroRaw: Double, newtonsPerCount: Double)
    /// A monotone piecewise-linear curve of `[raw, newtons]` points.
    case curve([CurvePoint])

    /// The core's form of the mapping.
    public func core() throws(CalibrationError) -> ChannelCalibration {
        switch self {
        case .linear(let zero, let scale):
            guard zero.isFinite, scale.isFinite else { throw .notFinite }
            guard abs(zero) <= Limits.maximumRawMagnitude else { throw .outOfRange }
            guard scale != 0 else { throw .zeroScale }
            guard Limits.newtonsPerCountMagnitude.contains(abs(scale)) else { throw .outOfRange }
            let c = ChannelCalibration.linear(zeroRaw: Int64(zero.rounded()), newtonsPerCount: Float(scale))
            try c.validate()
            return c
        case .curve(let points):
            for p in points where !p.raw.isFinite || !p.newtons.isFinite { throw .notFinite }
            guard points.count <= Limits.maximumCurvePoints else { throw .tooManyPoints(points.count) }
            for p in points where abs(p.raw) > Limits.maximumRawMagnitude || abs(p.newtons) > Limits.maximumNewtons { throw .outOfRange }
            return .curve(try ForceCurve(points.map { (raw: Int64($0.raw.rounded()), newtons: Float($0.newtons)) }))
        }
    }
}

/// One `[raw, newtons]` point of a curve.
public struct CurvePoint: Equatable, Sendable {
    public var raw: Double
    public var newtons: Double

    public init(raw: Double, newtons: Double) {
        self.raw = raw
        self.newtons = newtons
    }
}

/// The calibration of one force channel, by channel id.
public struct ForceChannelCalibration: Equatable, Sendable {
    public var channel: String
    public var mapping: ForceMapping
    /// Where the cell supports the plate (plate units), when the panel says.
    public var position: PlatePoint?

    public init(channel: String, mapping: ForceMapping, position: PlatePoint? = nil) {
        self.channel = channel
        self.mapping = mapping
        self.position = position
    }
}

/// The panel's calibration at recording time.
public struct RecordingCalibration: Equatable, Sendable {
    public var force: [ForceChannelCalibration]
    public var peekNewtons: Double
    public var popNewtons: Double
    /// The sensor's creep, where the calibration states it: the amount (a
    /// fraction; 0: it does not creep) and time constant (ms). Nil: the
    /// default for the panel (``ClassifierSettings/creepAmount``).
    public var creepAmount: Double?
    public var creepMilliseconds: Double?

    public init(force: [ForceChannelCalibration], peekNewtons: Double, popNewtons: Double,
                creepAmount: Double? = nil, creepMilliseconds: Double? = nil) {
        self.force = force
        self.peekNewtons = peekNewtons
        self.popNewtons = popNewtons
        self.creepAmount = creepAmount
        self.creepMilliseconds = creepMilliseconds
    }

    /// The block for `force` classified with `settings`: its two levels and its creep
    /// (the other settings are not part of a recording's calibration).
    public init(force: [ForceChannelCalibration], settings s: ClassifierSettings) {
        self.init(force: force, peekNewtons: Double(s.peekNewtons), popNewtons: Double(s.popNewtons),
                  creepAmount: s.creepAmount.map(Double.init), creepMilliseconds: s.creepAmount == nil ? nil : Double(s.creepMilliseconds))
    }

    /// The classifier settings the calibration implies: its two levels and
    /// the creep it states, the rest at their defaults.
    public var classifierSettings: ClassifierSettings {
        var s = ClassifierSettings(peekNewtons: Float(peekNewtons), popNewtons: Float(popNewtons))
        if let creepAmount { s.creepAmount = Float(creepAmount) }
        if let creepMilliseconds { s.creepMilliseconds = Float(creepMilliseconds) }
        return s
    }
}

/// A ground-truth label.
public struct Label: Equatable, Sendable {
    /// `peek`, `pop` or `release`.
    public var event: EventKind
    /// Scan index where the noise-free force crossed the level.
    public var sample: Int
    /// For `release`: where the force last fell below the peek level.
    public var windowStart: Int?
    /// Where the finger pressed at that scan (plate units), on a multi-cell panel.
    public var x: Double?
    public var y: Double?

    public init(event: EventKind, sample: Int, windowStart: Int? = nil, x: Double? = nil, y: Double? = nil) {
        self.event = event
        self.sample = sample
        self.windowStart = windowStart
        self.x = x
        self.y = y
    }
}

/// The `STEM.json` half of a recording.
public struct RecordingMetadata: Equatable, Sendable {
    public static let formatName = "forcestage-recording/1"

    public var deviceName: String
    public var deviceLabel: String?
    public var sampleRateHz: Double
    public var timestampClock: String?
    public var channels: [RecordingChannel]
    public var calibration: RecordingCalibration?
    public var labels: [Label]

    public init(deviceName: String, deviceLabel: String? = nil, sampleRateHz: Double, timestampClock: String? = nil,
                channels: [RecordingChannel], calibration: RecordingCalibration? = nil, labels: [Label] = []) {
        self.deviceName = deviceName
        self.deviceLabel = deviceLabel
        self.sampleRateHz = sampleRateHz
        self.timestampClock = timestampClock
        self.channels = channels
        self.calibration = calibration
        self.labels = labels
    }

    /// The scan layout of the channels.
    public func layout() throws(LayoutError) -> ScanLayout {
        try ScanLayout(channels.map { (index: $0.index, format: $0.format) })
    }

    /// The channels with role `force` in scan order (ascending `index`), whatever
    /// order `channels` lists them in: the panel's cells are numbered so, and the
    /// standard positions of its corners follow that order (the spec's position section).
    public var forceChannels: [RecordingChannel] { channels.filter { $0.role == .force }.sorted { $0.index < $1.index } }
    /// The timestamp channel, if any.
    public var timestampChannel: RecordingChannel? { channels.first { $0.role == .timestamp } }
}

/// A recording: metadata plus the raw scans, byte for byte as the kernel gave them.
public struct Recording: Sendable {
    public var metadata: RecordingMetadata
    /// The raw scans.
    public var scans: [UInt8]
    /// The scan layout.
    public let layout: ScanLayout

    /// The number of whole scans.
    public var scanCount: Int { scans.count / layout.scanSize }

    public init(metadata: RecordingMetadata, scans: [UInt8]) throws(LayoutError) {
        self.metadata = metadata
        self.scans = scans
        self.layout = try metadata.layout()
    }

    /// The `.iio` file beside a `.json` (same stem).
    public static func dataPath(forMetadata path: String) -> String {
        PathText.deletingExtension(PathText.absolute(path)) + ".iio"
    }

    /// Reads `STEM.json` and `STEM.iio`.
    ///
    /// - Throws: ``InputError`` naming the file, the key and what to do.
    public static func load(path: String) throws(InputError) -> Recording {
        let jsonPath = PathText.absolute(path)
        let metadata = try RecordingMetadata.load(path: jsonPath)
        let dataPath = dataPath(forMetadata: jsonPath)
        let bytes = try readBounded(path: dataPath, limit: Limits.maximumScanBytes, what: "raw scans",
                                    hint: "a recording is STEM.json plus STEM.iio side by side; record one with `forcestage record` or `iio_readdev`")
        return try validated(metadata: metadata, scans: bytes, jsonFile: jsonPath, dataFile: dataPath)
    }

    /// Checks raw scans against validated metadata (whole scans, labels inside
    /// the recording) and builds the recording: the one path from bytes to a
    /// ``Recording``, used by ``load(path:)`` and the fuzzers.
    public static func validated(metadata: RecordingMetadata, scans bytes: [UInt8], jsonFile: String, dataFile: String) throws(InputError) -> Recording {
        let layout: ScanLayout
        do { layout = try metadata.layout() } catch {
            throw InputError(file: jsonFile, key: "channels", problem: error.message, hint: "fix the channel list to match the device's scan_elements")
        }
        if bytes.count % layout.scanSize != 0 {
            let whole = bytes.count / layout.scanSize
            throw InputError(
                file: dataFile,
                problem: "truncated: \(bytes.count) bytes is not a whole number of \(layout.scanSize)-byte scans (the last scan has \(bytes.count % layout.scanSize) bytes)",
                hint: "the channels in \(PathText.lastComponent(jsonFile)) must match the data; if they do, cut the file to \(whole * layout.scanSize) bytes (\(whole) scans)")
        }
        let scans = bytes.count / layout.scanSize
        for (i, label) in metadata.labels.enumerated() where label.sample >= scans {
            throw InputError(file: jsonFile, key: "labels[\(i)].sample",
                             problem: "scan \(label.sample) is beyond the recording's \(scans) scans",
                             hint: "labels index scans from 0; fix or remove the label")
        }
        do { return try Recording(metadata: metadata, scans: bytes) } catch {
            throw InputError(file: jsonFile, key: "channels", problem: error.message, hint: "fix the channel list")
        }
    }

    /// Writes `STEM.json` and `STEM.iio` so that a `STEM.json` is only ever
    /// beside the `STEM.iio` written with it: both halves are written in full
    /// to temporary files and synced first (a failure there, a full disk,
    /// leaves the older pair as it was); then the older `STEM.json` is
    /// removed, the scans renamed into place, and the metadata last. A crash
    /// or a failed rename in between leaves a `STEM.iio` without its
    /// `STEM.json` (no recording, which `load` says), never new scans beside
    /// old metadata.
    /// Nothing is written when either half's path is a directory.
    public func write(toPath jsonPath: String) throws {
        let dataPath = Recording.dataPath(forMetadata: jsonPath)
        let metadataPath = PathText.absolute(jsonPath)
        for path in [metadataPath, dataPath] {
            var st = stat()
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                throw POSIXFailure(operation: "write the recording over", path: path, code: EISDIR)
            }
        }
        let data = try AtomicFile.prepare(scans, toPath: dataPath)
        let meta = try AtomicFile.prepare(Array((metadata.json().rendered(indent: 2) + "\n").utf8), toPath: metadataPath)
        if unlink(metadataPath) != 0 && errno != ENOENT {
            throw POSIXFailure(operation: "remove the older metadata", path: metadataPath)
        }
        // The removal reaches the disk before the scans' rename does (a power cut keeps the order).
        let dfd = open(PathText.deletingLastComponent(metadataPath), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); close(dfd) }
        try data.commit()
        try meta.commit()
    }
}
