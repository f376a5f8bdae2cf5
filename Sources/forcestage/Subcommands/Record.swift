import ArgumentParser
import ForceStageCore
import ForceStageHost
import ForceStageIIO
import Foundation

extension ForceStage {
    /// `forcestage record`: capture a live device into a `forcestage-recording/1` recording.
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a live IIO device into STEM.json + STEM.iio (raw scans as the kernel gave them).",
            discussion: "Stops after --duration, at SIGINT (Ctrl-C), or with --exit-on-timeout when the device goes quiet. Both files are written atomically.")

        @OptionGroup var source: DeviceOptions

        @Option(name: .shortAndLong, help: "The recording to write: STEM.json (STEM.iio goes beside it).")
        var output: String

        @Option(name: .customLong("channel"), help: "A channel to record (repeat; default: every buffered voltage input). The timestamp is always added when the device has one.")
        var channels: [String] = []

        @Option(help: "Scans per second, when the device has no sampling_frequency.")
        var rate: Double?

        @Option(help: "Stop after this many seconds.")
        var duration: Double?

        @Option(help: "Scans per refill (default from the rate: 1 to 4).")
        var scansPerRefill: Int?

        @Flag(help: "Stop at the first refill timeout (an exhausted emulated recording).")
        var exitOnTimeout = false

        func validate() throws {
            guard output.hasSuffix(".json") else { throw ValidationError("--output must name STEM.json; the scans go to STEM.iio beside it") }
            try checkOption(duration, "--duration", 0.001...maximumOptionSeconds, "seconds")
            try checkOption(rate, "--rate", Limits.sampleRateHz, "scans per second")
            try checkOption(scansPerRefill, "--scans-per-refill", 1...65536, "scans")
        }

        func run() throws {
            let device: IIODevice
            switch source.open() {
            case .success(let d): device = d
            case .failure(let f): throw fail("record", f.message)
            }
            let ids = channels.isEmpty ? device.forceChannels.map { $0.id } : channels
            guard !ids.isEmpty else { throw fail("record", "\(device.displayName) has no buffered voltage input; pass --channel") }
            guard let sampleRate = device.samplingFrequency ?? rate else {
                throw fail("record", "\(device.displayName) has no sampling_frequency attribute; pass --rate (e.g. 80 for an HX711 with RATE high)")
            }
            device.useMonotonicTimestamps()
            let stream: IIOStreamChannels
            do { stream = try device.enableChannels(ids, timestamp: true) } catch {
                throw fail("record", "\(device.displayName): \(error)")
            }
            var recorded: [RecordingChannel] = []
            for c in stream.channels {
                let role: ChannelRole = c.isTimestamp ? .timestamp : (c.kind == .voltage ? .force : .other)
                recorded.append(RecordingChannel(id: c.id, index: c.scanIndex, format: try! c.format(),
                                                 scale: c.isTimestamp ? nil : c.scale,
                                                 offset: c.isTimestamp ? nil : c.offset, role: role))
            }
            var clock: String?
            if device.hasAttribute("current_timestamp_clock"), case .success(let text) = device.attribute("current_timestamp_clock") {
                clock = text
            }
            let metadata = RecordingMetadata(deviceName: device.name ?? device.id, deviceLabel: device.label, sampleRateHz: sampleRate,
                                             timestampClock: clock, channels: recorded)

            let scans = scansPerRefill ?? IIOBuffer.defaultScansPerRefill(sampleRateHz: sampleRate)
            let buffer: IIOBuffer
            do { buffer = try IIOBuffer(device: device, scansPerRefill: scans) } catch {
                throw fail("record", "cannot stream from \(device.displayName): \(error)")
            }
            var pollDriven = device.context.isLocal
            if pollDriven { do { try buffer.setBlocking(false) } catch { pollDriven = false } }
            let stop = StopSignal { buffer.cancel() }
            var data = [UInt8]()
            let started = monotonicNow()
            let deadline = duration.map { started + Int64($0 * 1e9) }
            var ending: String?
            loop: while !stop.stopped {
                if let deadline, monotonicNow() >= deadline { break }
                let wait = deadline.map { Int32(max(1, min(Int64(source.timeoutMs), ($0 - monotonicNow()) / 1_000_000))) } ?? Int32(source.timeoutMs)
                let result = pollDriven ? buffer.waitAndRefill(timeoutMs: wait) : buffer.refill()
                switch result {
                case .success:
                    data.append(contentsOf: buffer.bytes)
                case .failure(let e) where e.isCancelled || stop.stopped:
                    break loop
                case .failure(let e) where e.isTimeout:
                    if exitOnTimeout { break loop }
                    if pollDriven && deadline != nil { continue }
                    if !pollDriven { continue }
                case .failure(let e):
                    ending = e.description
                    break loop
                }
            }
            let whole = data.count / stream.layout.scanSize * stream.layout.scanSize
            do {
                let recording = try Recording(metadata: metadata, scans: Array(data[0..<whole]))
                try recording.write(to: URL(fileURLWithPath: output))
            } catch {
                throw fail("record", "cannot write \(output): \(error)")
            }
            FileHandle.standardError.write(Data("forcestage record: \(whole / stream.layout.scanSize) scans written to \(output)\n".utf8))
            if let ending { throw fail("record", "stopped early: \(ending)") }
        }
    }
}
