import Foundation
import ForceStageCore
import ForceStageFormats

/// What the emulator pretends to be: a driver's sysfs names and attributes,
/// read from `hardware/sensors/*.json`.
public struct SensorDescription: Sendable {
    /// How the driver exposes its rate.
    public enum SamplingFrequency: String, Sendable {
        /// No attribute (hx711: a pin sets the rate).
        case none
        /// A device-level `sampling_frequency`.
        case device
        /// `in_<channel>_sampling_frequency` per channel.
        case perChannel = "per-channel"
    }

    /// One data channel of the driver.
    public struct Channel: Sendable {
        public var id: String
        public var index: Int
        public var format: ChannelFormat
        public var scale: Double?
        public var offset: Double?
        /// The value `in_<id>_raw` reads, and what a scan carries for a channel the recording lacks.
        public var raw: Int64
    }

    /// The description's own name (`hx711`, `ads1115`, `ad7124-4`).
    public var sensor: String
    /// The IIO device name the driver reports (`ads1015` for an ADS1115).
    public var name: String
    /// The board's label, if any.
    public var label: String?
    /// The rate when no recording says otherwise.
    public var defaultRateHz: Double
    public var samplingFrequency: SamplingFrequency
    /// The timestamp's scan index, if the driver has one.
    public var timestampIndex: Int?
    public var channels: [Channel]
    /// Extra files under the device directory (relative path, content).
    public var files: [(String, String)]

    /// Reads one description.
    public static func load(_ url: URL) throws(InputError) -> SensorDescription {
        func fail(_ key: String?, _ problem: String) -> InputError {
            InputError(file: url.path, key: key, problem: problem, hint: "see hardware/sensors/hx711.json for the shape")
        }
        guard let data = try? Data(contentsOf: url), data.count <= Limits.maximumMetadataBytes else { throw fail(nil, "cannot read (or larger than \(Limits.maximumMetadataBytes) bytes)") }
        let root: JSON
        do { root = try JSON.parse(Array(data)) } catch {
            throw InputError(file: url.path, line: error.line, problem: error.message, hint: "see hardware/sensors/hx711.json for the shape")
        }
        guard root.members != nil else { throw fail(nil, "not a JSON object") }
        guard let sensor = root["sensor"]?.string, let name = root["name"]?.string else { throw fail("sensor", "sensor and name are required strings") }
        let rate = root["defaultRateHz"]?.number ?? 100
        let sf = SamplingFrequency(rawValue: root["samplingFrequency"]?.string ?? "none") ?? .none
        var channels: [Channel] = []
        for (i, c) in (root["channels"]?.elements ?? []).enumerated() {
            guard let id = c["id"]?.string, let index = c["index"]?.integer.flatMap({ Int(exactly: $0) }),
                  let text = c["format"]?.string else { throw fail("channels[\(i)]", "needs id, index and format") }
            let format: ChannelFormat
            do { format = try ChannelFormat(parsing: text) } catch { throw fail("channels[\(i)].format", error.message) }
            channels.append(Channel(id: id, index: index, format: format, scale: c["scale"]?.number,
                                    offset: c["offset"]?.number, raw: c["raw"]?.integer ?? 0))
        }
        let files = (root["files"]?.members ?? []).compactMap { k, v in v.string.map { (k, $0) } }.sorted { $0.0 < $1.0 }
        return SensorDescription(sensor: sensor, name: name, label: root["label"]?.string, defaultRateHz: rate,
                                 samplingFrequency: sf, timestampIndex: root["timestampIndex"]?.integer.flatMap { Int(exactly: $0) },
                                 channels: channels, files: files)
    }

    /// Where the descriptions live: `explicit`, `$FORCESTAGE_SENSORS_DIR`, or
    /// `hardware/sensors` above the executable or the working directory.
    public static func directory(explicit: String? = nil) -> URL? {
        if let explicit { return URL(fileURLWithPath: explicit) }
        if let env = ProcessInfo.processInfo.environment["FORCESTAGE_SENSORS_DIR"] { return URL(fileURLWithPath: env) }
        let starts = [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent(),
                      URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        for start in starts {
            var dir = start
            for _ in 0..<8 {
                let candidate = dir.appendingPathComponent("hardware/sensors")
                if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Every description in `directory`.
    public static func all(in directory: URL) throws(InputError) -> [SensorDescription] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        var out: [SensorDescription] = []
        for n in names { out.append(try load(directory.appendingPathComponent(n))) }
        return out
    }

    /// A bare description made from the recording alone: its channels, no extra attributes.
    public static func generic(for metadata: RecordingMetadata) -> SensorDescription {
        SensorDescription(sensor: "generic", name: metadata.deviceName, label: metadata.deviceLabel,
                          defaultRateHz: metadata.sampleRateHz, samplingFrequency: .device,
                          timestampIndex: metadata.timestampChannel?.index,
                          channels: metadata.channels.filter { $0.role != .timestamp }.map {
                              Channel(id: $0.id, index: $0.index, format: $0.format, scale: $0.scale, offset: $0.offset, raw: 0)
                          }, files: [])
    }

    /// The description with the recording's channels laid over it: the
    /// recording's formats, indices, scales and label win, because its bytes
    /// must come out unchanged.
    /// - Returns: the merged description and notes about what differed.
    public func merged(with metadata: RecordingMetadata) -> (SensorDescription, [String]) {
        var out = self
        var notes: [String] = []
        if metadata.deviceName != name {
            notes.append("sensor \(sensor) reports name \(name) but the recording says \(metadata.deviceName); using the recording's")
            out.name = metadata.deviceName
        }
        out.label = metadata.deviceLabel ?? label
        for rc in metadata.channels {
            if rc.role == .timestamp {
                out.timestampIndex = rc.index
                continue
            }
            if let i = out.channels.firstIndex(where: { $0.id == rc.id }) {
                if out.channels[i].format != rc.format {
                    notes.append("\(rc.id): recording format \(rc.format.text) replaces \(out.channels[i].format.text)")
                    out.channels[i].format = rc.format
                }
                if out.channels[i].index != rc.index {
                    notes.append("\(rc.id): recording index \(rc.index) replaces \(out.channels[i].index)")
                    out.channels[i].index = rc.index
                }
                // The driver decides which attributes exist; the recording only gives their values.
                if let s = rc.scale, out.channels[i].scale != nil { out.channels[i].scale = s }
                if let o = rc.offset, out.channels[i].offset != nil { out.channels[i].offset = o }
            } else {
                notes.append("\(rc.id): not a channel of \(sensor); added from the recording")
                out.channels.append(Channel(id: rc.id, index: rc.index, format: rc.format, scale: rc.scale, offset: rc.offset, raw: 0))
            }
        }
        // Channels the sensor has that now collide with a recorded index are dropped.
        let recordedIDs = Set(metadata.channels.map { $0.id })
        let recordedIndices = Set(metadata.channels.map { $0.index })
        out.channels.removeAll { !recordedIDs.contains($0.id) && (recordedIndices.contains($0.index) || $0.index == out.timestampIndex) }
        out.channels.sort { $0.index < $1.index }
        return (out, notes)
    }

    /// Picks the description for a recording: by `--sensor` name (the
    /// description's `sensor` or file stem), else the first whose IIO name
    /// matches the recording's device, else a generic one.
    public static func choose(named: String?, for metadata: RecordingMetadata, directory: URL?) throws(InputError) -> SensorDescription {
        let available = directory.map { (try? all(in: $0)) ?? [] } ?? []
        if let named {
            guard let found = available.first(where: { $0.sensor == named }) else {
                throw InputError(file: directory?.path ?? "hardware/sensors", key: nil,
                                 problem: "no sensor description \"\(named)\"",
                                 hint: "use one of: \(available.map { $0.sensor }.joined(separator: ", ")) (or --sensors-dir)")
            }
            return found
        }
        return available.first { $0.name == metadata.deviceName } ?? generic(for: metadata)
    }
}
