import ForceStageClock
import Foundation
import ForceStageCore
import ForceStageFormats

/// A synthetic recording for latency measurement: an ADS1115 at a fixed
/// rate with a press every 60 scans, so every press yields peek, pop and
/// release (three measurements) within 70 ms.
public enum LatencyRecording {
    /// Makes the recording: `voltage0` (`le:s16/16>>0`, index 4) plus timestamp (index 8).
    public static func make(sampleRateHz: Double, seconds: Double) -> Recording {
        let format16 = try! ChannelFormat(parsing: "le:s16/16>>0")
        let format64 = try! ChannelFormat(parsing: "le:s64/64>>0")
        let metadata = RecordingMetadata(
            deviceName: "ads1015", deviceLabel: "latency-synthetic", sampleRateHz: sampleRateHz, timestampClock: "monotonic",
            channels: [RecordingChannel(id: "voltage0", index: 4, format: format16, scale: 0.125, offset: 0, role: .force),
                       RecordingChannel(id: "timestamp", index: 8, format: format64, role: .timestamp)],
            calibration: RecordingCalibration(force: [ForceChannelCalibration(channel: "voltage0", mapping: .linear(zeroRaw: 0, newtonsPerCount: 0.0002))],
                                              peekNewtons: 1.0, popNewtons: 2.5))
        let layout = try! metadata.layout()
        let count = Int(sampleRateHz * seconds)
        var bytes = [UInt8](repeating: 0, count: count * layout.scanSize)
        let period = 1e9 / sampleRateHz
        var noise: UInt32 = 12345
        bytes.withUnsafeMutableBytes { out in
            for i in 0..<count {
                noise = noise &* 1_103_515_245 &+ 12345
                let jitter = Int64((noise >> 16) % 41) - 20
                // 0.3 s of rest for the baseline's warm-up, then 25 scans pressed at 3.5 N, 35 at rest.
                let pressed = i >= 300 && (i - 300) % 60 < 25
                let raw = (pressed ? 17_500 : 0) + jitter
                let scan = out.baseAddress! + i * layout.scanSize
                format16.encode(raw, to: scan + layout[0].offset)
                format64.encode(Int64(Double(i) * period), to: scan + layout[1].offset)
            }
        }
        return try! Recording(metadata: metadata, scans: bytes)
    }
}

/// Reads event lines and measures now (monotonic) minus each event's
/// `timestampNs`, which the driver stamped with the scan's write time.
final class LatencyMeter: @unchecked Sendable {
    private var samples: [Int64] = []
    private var otherLines = 0
    let finished = DispatchSemaphore(value: 0)

    func consume(_ handle: FileHandle) {
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            let now = monotonicNanoseconds()
            pending.append(chunk)
            while let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...nl)
                guard line.contains("\"event\":\"peek\"") || line.contains("\"event\":\"pop\"") || line.contains("\"event\":\"release\""),
                      let r = line.range(of: "\"timestampNs\":") else { otherLines += 1; continue }
                let digits = line[r.upperBound...].prefix { $0 == "-" || $0.isNumber }
                if let t = Int64(digits) { samples.append(now - t) }
            }
        }
        finished.signal()
    }

    func report(rateHz: Double) -> String {
        guard !samples.isEmpty else { return "latency: no events measured" }
        let sorted = samples.sorted()
        func pct(_ p: Double) -> String {
            let i = min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)
            return String(format: "%.1f", Double(sorted[max(0, i)]) / 1000)
        }
        return "latency scan-write -> event line, \(sorted.count) events at \(JSON.format(rateHz)) scans/s: " +
            "p50 \(pct(50)) us, p99 \(pct(99)) us, p99.9 \(pct(99.9)) us, max \(pct(100)) us"
    }
}
