import Foundation
import ForceStageCore
import TestSupport
import ForceStageFormats
import ForceStageTools

/// The built `forcestage` binary.
let forcestage: String? = builtExecutable("forcestage")?.path

/// The shared recordings that exist here (none on a machine without shared/).
func sharedRecordingPaths() -> [URL] {
    let names = ["hx711-80hz-sample", "fsr-ads1115-860hz-sample", "panel4-500hz-sample"]
    return names.map { sharedRecordings.appendingPathComponent("\($0).json") }.filter { FileManager.default.fileExists(atPath: $0.path) }
}

/// Replays a recording straight through ForcePipeline (what `forcestage replay`
/// prints): what `forcestage run` must match.
func directReplay(_ recording: Recording) -> [String] {
    let setup = try! PanelSetup(metadata: recording.metadata, file: "recording")
    return replay(recording, setup: setup).events.map { eventJSON($0, sampleRateHz: setup.sampleRateHz).rendered() }
}

/// A small recording the tests write themselves: an ADS1115 at 250 scans/s,
/// quiet, then a press past pop held for 1 s, quiet, a light press past peek only.
func writeTestRecording(in dir: URL) throws -> URL {
    let f16 = try ChannelFormat(parsing: "le:s16/16>>0"), f64 = try ChannelFormat(parsing: "le:s64/64>>0")
    let metadata = RecordingMetadata(
        deviceName: "ads1015", deviceLabel: "test-panel", sampleRateHz: 250, timestampClock: "monotonic",
        channels: [RecordingChannel(id: "voltage0", index: 4, format: f16, scale: 0.125, offset: 0, role: .force),
                   RecordingChannel(id: "timestamp", index: 8, format: f64, role: .timestamp)],
        calibration: RecordingCalibration(force: [ForceChannelCalibration(channel: "voltage0", mapping: .linear(zeroRaw: 100, newtonsPerCount: 0.0005))],
                                          peekNewtons: 1.0, popNewtons: 2.5))
    let layout = try metadata.layout()
    let count = 1500
    var bytes = [UInt8](repeating: 0, count: count * layout.scanSize)
    bytes.withUnsafeMutableBytes { out in
        for i in 0..<count {
            let newtons: Double
            switch i {
            case 250..<270: newtons = Double(i - 250) / 20 * 3.5    // ramp to 3.5 N over 80 ms
            case 270..<520: newtons = 3.5                          // held 1 s
            case 520..<540: newtons = 3.5 - Double(i - 520) / 20 * 3.5
            case 900..<910: newtons = Double(i - 900) / 10 * 1.6
            case 910..<1100: newtons = 1.6                          // a peek only
            default: newtons = 0
            }
            let raw = 100 + Int64((newtons / 0.0005).rounded()) + Int64((i * 7919) % 9) - 4
            let scan = out.baseAddress! + i * layout.scanSize
            f16.encode(raw, to: scan + layout[0].offset)
            f64.encode(1_000_000_000 + Int64(i) * 4_000_000, to: scan + layout[1].offset)
        }
    }
    let url = dir.appendingPathComponent("test-panel.json")
    try Recording(metadata: metadata, scans: bytes).write(to: url)
    return url
}

func temporaryDirectory() throws -> URL { try makeTemporaryDirectory(prefix: "fs-iio") }

/// A port for iiod unlikely to be in use (the emulator gives iiod its own network namespace anyway).
func iiodPort() -> Int { 31000 + Int(getpid() % 2000) }
