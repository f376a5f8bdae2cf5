import ArgumentParser
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import ForceStageIIO
import Foundation

extension ForceStage {
    /// `forcestage record`: capture a live device into a `forcestage-recording/1` recording.
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a live IIO device into STEM.json + STEM.iio (raw scans as the kernel gave them).",
            discussion: "Stops after --duration, at SIGINT (Ctrl-C), or with --exit-on-timeout when the device goes quiet. Both files are written atomically.")

        @OptionGroup var source: DeviceOptions

        @OptionGroup var triggerOptions: TriggerOptions

        @Option(name: .shortAndLong, help: "The recording to write: STEM.json (STEM.iio goes beside it).")
        var output: String

        @Option(name: .customLong("channel"), help: "A channel to record (repeat; default: the force channels of the profile matching the device, or of the emulated recording; without either, every buffered voltage input). The timestamp is always added when the device has one.")
        var channels: [String] = []

        @OptionGroup var rateOption: RateOption
        var rate: Double? { rateOption.rate }

        @Option(help: "Stop after this many seconds.")
        var duration: Double?

        @Option(help: "Scans per refill (default from the rate: 1 to 4).")
        var scansPerRefill: Int?

        @Flag(help: "Stop at the first refill timeout (an exhausted emulated recording).")
        var exitOnTimeout = false

        func validate() throws {
            guard output.hasSuffix(".json") else { throw ValidationError("--output must name STEM.json; the scans go to STEM.iio beside it") }
            try checkOption(duration, "--duration", 0.001...maximumOptionSeconds, "seconds")
            try checkOption(scansPerRefill, "--scans-per-refill", 1...65536, "scans")
        }

        func run() throws {
            let device: IIODevice
            switch source.open() {
            case .success(let d): device = d
            case .failure(let f): throw CommandFailure(.deviceFault, f.message)
            }
            var ids = channels
            if ids.isEmpty {
                // Only force (and the timestamp): the profile's channels, not every input the converter has.
                if let chosen = defaultRecordChannels(deviceName: device.name ?? device.id, label: device.label) {
                    ids = chosen.ids
                    FileHandle.standardError.write(Data("forcestage record: recording \(ids.joined(separator: ", ")) and the timestamp (\(chosen.source); --channel to choose)\n".utf8))
                } else {
                    ids = device.forceChannels.map { $0.id }
                    if ids.count > 1 {
                        FileHandle.standardError.write(Data("forcestage record: no profile for \(device.displayName): recording all \(ids.count) buffered voltage inputs; --channel (or a profile in calibration/) records only the force channels\n".utf8))
                    }
                }
            }
            guard !ids.isEmpty else { throw CommandFailure(.deviceFault, "\(device.displayName) has no buffered voltage input; pass --channel") }
            let attachment: IIOTriggerAttachment?
            switch triggerOptions.prepare(device) {
            case .success(let a): attachment = a
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            defer { attachment?.restore() }
            let triggerRate: Double?
            switch TriggerOptions.scanRate(attachment, device, fallback: rate) {
            case .success(let r): triggerRate = r
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            guard let sampleRate = triggerRate ?? device.samplingFrequency ?? rate else {
                throw CommandFailure(.deviceFault, "\(device.displayName) has no sampling_frequency attribute; pass --rate (e.g. 80 for an HX711 with RATE high)")
            }
            device.useMonotonicTimestamps()
            let stream: IIOStreamChannels
            do { stream = try device.enableChannels(ids, timestamp: true) } catch {
                throw CommandFailure(.deviceFault, "\(device.displayName): \(error)")
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

            // The buffer lives only inside capture(), so it is disabled before the trigger is put back.
            let (data, ending) = try capture(device, sampleRate: sampleRate)
            let whole = data.count / stream.layout.scanSize * stream.layout.scanSize
            do {
                let recording = try Recording(metadata: metadata, scans: Array(data[0..<whole]))
                try recording.write(to: URL(fileURLWithPath: output))
            } catch {
                throw CommandFailure(.deviceFault, "cannot write \(output): \(error)")
            }
            let count = whole / stream.layout.scanSize
            FileHandle.standardError.write(Data("forcestage record: \(count) scans written to \(output)\(Self.pacing(data, count: count, metadata: metadata, layout: stream.layout))\n".utf8))
            if let ending { throw CommandFailure(.deviceFault, "stopped early: \(ending)") }
        }

        /// Streams until the duration, a signal or (with --exit-on-timeout) a quiet device.
        /// - Returns: the raw scans and, when the stream broke, why.
        private func capture(_ device: IIODevice, sampleRate: Double) throws -> ([UInt8], String?) {
            let scans = scansPerRefill ?? IIOBuffer.defaultScansPerRefill(sampleRateHz: sampleRate)
            let buffer: IIOBuffer
            do { buffer = try IIOBuffer(device: device, scansPerRefill: scans) } catch {
                throw CommandFailure(.deviceFault, "cannot stream from \(device.displayName): \(error)")
            }
            var pollDriven = device.context.isLocal
            if pollDriven { do { try buffer.setBlocking(false) } catch { pollDriven = false } }
            let stop = StopSignal { buffer.cancel() }
            var data = [UInt8]()
            defer { stop.end() }
            let started = monotonicNanoseconds()
            let deadline = duration.map { started + Int64($0 * 1e9) }
            var ending: String?
            loop: while !stop.stopped {
                if let deadline, monotonicNanoseconds() >= deadline { break }
                let wait = deadline.map { Int32(max(1, min(Int64(source.timeoutMs), ($0 - monotonicNanoseconds()) / 1_000_000))) } ?? Int32(source.timeoutMs)
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
            return (data, ending)
        }

        /// ", observed R scans/s over S s, G gaps over 1.5 periods missing M scans (longest L ms)" from the
        /// kernel's timestamps: how the trigger actually fired, and scans the kernel lost
        /// (a full kfifo or a trigger that came while the last scan was handled).
        static func pacing(_ data: [UInt8], count: Int, metadata: RecordingMetadata, layout: ScanLayout) -> String {
            guard count >= 2, let ts = metadata.timestampChannel, let slot = layout.slot(forIndex: ts.index) else { return "" }
            let stamps: [Int64] = data.withUnsafeBytes { raw in
                (0..<count).map { layout[slot].format.decode(raw.baseAddress! + $0 * layout.scanSize + layout[slot].offset) }
            }
            let span = Double(stamps[count - 1] - stamps[0]) / 1e9
            guard span > 0 else { return "" }
            let period = 1e9 / metadata.sampleRateHz
            var gaps = 0
            var missing = 0
            var longest: Int64 = 0
            for i in 1..<count {
                let d = stamps[i] - stamps[i - 1]
                if Double(d) > 1.5 * period {
                    gaps += 1
                    missing += max(0, Int((Double(d) / period).rounded()) - 1)
                }
                longest = max(longest, d)
            }
            let rate = Double(count - 1) / span
            return ", observed \((rate * 10).rounded() / 10) scans/s over \((span * 100).rounded() / 100) s, \(gaps) gaps over 1.5 periods missing \(missing) scans (longest \((Double(longest) / 1e4).rounded() / 100) ms)"
        }
    }
}
