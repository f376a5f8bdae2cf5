import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

/// What each fuzz target does with one input: the product's own readers,
/// then the work a command would do with what they accept. A trap, hang or
/// unbounded allocation here is a finding; a thrown InputError is the
/// expected answer to bad input.
public enum FuzzInputs {
    /// Recording input: the metadata JSON, a 0 byte, then the raw scans.
    public static func recording(_ bytes: UnsafeRawBufferPointer) {
        let all = [UInt8](bytes)
        let split = all.firstIndex(of: 0) ?? all.count
        let json = Data(all[0..<split])
        let scans = split < all.count ? Array(all[(split + 1)...]) : []
        guard let metadata = try? RecordingMetadata.parse(bytes: [UInt8](json), file: "fuzz.json") else { return }
        // What `record`/`synth` would write must read back the same.
        let rendered = Data(metadata.json().rendered(indent: 2).utf8)
        guard let again = try? RecordingMetadata.parse(bytes: [UInt8](rendered), file: "fuzz-rendered.json") else {
            fatalError("rendered metadata does not read back:\n\(String(decoding: rendered, as: UTF8.self))")
        }
        precondition(again == metadata, "metadata changed through render and parse")
        guard let recording = try? Recording.validated(metadata: metadata, scans: scans, jsonFile: "fuzz.json", dataFile: "fuzz.iio"),
              let setup = try? PanelSetup(metadata: recording.metadata, file: "fuzz.json") else { return }
        let result = replay(recording, setup: setup)
        for e in result.events.prefix(64) {
            let line = eventJSON(e, sampleRateHz: setup.sampleRateHz).rendered()
            precondition(!line.contains("null"), "an event printed a non-finite number: \(line)")
            _ = eventText(e, sampleRateHz: setup.sampleRateHz)
        }
        if !recording.metadata.labels.isEmpty {
            _ = score(events: result.events, labels: recording.metadata.labels, sampleRateHz: setup.sampleRateHz)
        }
        _ = traceScans(recording, setup: setup, from: 0, to: Int.max)
    }

    /// Channel format input: the text of a `scan_elements/*_type` file.
    public static func channelFormat(_ bytes: UnsafeRawBufferPointer) {
        guard let format = try? ChannelFormat(parsing: bytes) else { return }
        // Its canonical text reads back as the same format.
        guard let again = try? ChannelFormat(parsing: Array(format.text.utf8)) else {
            fatalError("\(format.text) does not read back")
        }
        precondition(again == format, "\(format.text) changed through text and parse")
        // Decoding and encoding any bytes stays within the format's storage.
        var storage = [UInt8](repeating: 0, count: 8)
        for k in 0..<min(8, bytes.count) { storage[k] = bytes[k] }
        storage.withUnsafeMutableBytes { raw in
            let v = format.decode(raw.baseAddress!)
            format.encode(v, to: raw.baseAddress!)
            precondition(format.decode(raw.baseAddress!) == v, "\(format.text): decode(encode(v)) != v")
        }
    }

    /// The metadata of a one-channel HX711 recording, for profiles to apply to.
    static let panel: RecordingMetadata = {
        let format = try! ChannelFormat(parsing: Array("le:u24/32>>0".utf8))
        let ts = try! ChannelFormat(parsing: Array("le:s64/64>>0".utf8))
        return RecordingMetadata(deviceName: "hx711", sampleRateHz: 80, channels: [
            RecordingChannel(id: "voltage0", index: 0, format: format, role: .force),
            RecordingChannel(id: "timestamp", index: 2, format: ts, role: .timestamp),
        ])
    }()

    /// A short synthetic press on that panel: rest, a ramp up, a hold, a ramp down.
    static let scans: [UInt8] = {
        var out: [UInt8] = []
        for i in 0..<400 {
            let load = i < 100 ? 0 : i < 150 ? (i - 100) * 40_000 : i < 300 ? 2_000_000 : max(0, 2_000_000 - (i - 300) * 40_000)
            let raw = UInt32(8_000_000 + load + (i * 7919) % 13)
            out += withUnsafeBytes(of: raw.littleEndian) { Array($0) }
            out += [0, 0, 0, 0]
            out += withUnsafeBytes(of: (Int64(i) * 12_500_000).littleEndian) { Array($0) }
        }
        return out
    }()

    /// Profile input: a profile's TOML text.
    public static func profile(_ bytes: UnsafeRawBufferPointer) {
        guard let text = String(validating: bytes, as: UTF8.self),
              let profile = try? Profile.parse(text, file: "fuzz.toml") else { return }
        for rate in [Limits.sampleRateHz.lowerBound, 80, Limits.sampleRateHz.upperBound] {
            _ = try? ClassifierParameters(profile.settings, sampleRateHz: Float(rate))
        }
        guard let setup = try? profile.setup(for: panel, file: "fuzz.json"),
              let recording = try? Recording(metadata: panel, scans: scans) else { return }
        let result = replay(recording, setup: setup)
        for e in result.events.prefix(64) {
            let line = eventJSON(e, sampleRateHz: setup.sampleRateHz).rendered()
            precondition(!line.contains("null"), "an event printed a non-finite number: \(line)")
        }
    }
}
