import ForceStageClock
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
            discussion: "Stops after --duration, at SIGINT (Ctrl-C), or with --exit-on-timeout when the device goes quiet. Both files are written atomically. The recording carries the calibration (force channels and levels) of the profile in calibration/ that matches the device, so `forcestage replay` classifies it as it was recorded.")

        @OptionGroup var source: DeviceOptions

        @OptionGroup var triggerOptions: TriggerOptions

        @Option(name: .shortAndLong, help: "The recording to write: STEM.json (STEM.iio goes beside it).")
        var output: String

        @Option(name: .customLong("channel"), help: "A channel to record (repeat; default: the force channels of the profile matching the device; without one, every buffered voltage input). The timestamp is always added when the device has one.")
        var channels: [String] = []

        @OptionGroup var rateOption: RateOption
        var rate: Double? { rateOption.rate }

        @Option(help: "Stop after this many seconds.", transform: DecimalNumber.argument)
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
            let timeoutMs = source.timeoutMs
            let fixedScans = scansPerRefill
            let exitOnTimeout = exitOnTimeout
            let live: LiveDevice
            switch LiveDevice.open(source, trigger: triggerOptions.trigger, channels: channels, defaults: Self.defaultChannels, rate: rate, policy: { rate in
                var policy = IIOScanPolicy(scansPerRefill: fixedScans ?? IIOBuffer.defaultScansPerRefill(sampleRateHz: rate))
                policy.timeoutMs = timeoutMs
                policy.timeoutsBeforeLost = nil     // a quiet device is waited for, unless --exit-on-timeout
                policy.endOnTimeout = exitOnTimeout
                policy.reconnect = false            // a recording has no gap in it: a loss ends it
                return policy
            }) {
            case .success(let l): live = l
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            defer { live.trigger?.restore() }
            var metadata = live.metadata
            // The matching profile's calibration goes into the recording, so `replay` classifies it as it was.
            let profile = matchingProfile(deviceName: metadata.deviceName, label: metadata.deviceLabel)
            metadata.calibration = recordedCalibration(profile, for: metadata)
            let calibrated = metadata.calibration == nil ? "" : " with the calibration of profile \(profile?.name ?? "")"

            let layout = live.source.stream.layout

            // The source (and its buffer) lives only inside capture(), so it is closed before the trigger is put back.
            let (data, ending) = capture(live.source)
            let whole = data.count / layout.scanSize * layout.scanSize
            do {
                let recording = try Recording(metadata: metadata, scans: Array(data[0..<whole]))
                try recording.write(to: URL(fileURLWithPath: output))
            } catch {
                throw CommandFailure(.deviceFault, "cannot write \(output): \(error)")
            }
            let count = whole / layout.scanSize
            FileHandle.standardError.write(Data("forcestage record: \(count) scans written to \(output)\(calibrated)\(Self.pacing(data, count: count, metadata: metadata, layout: layout))\n".utf8))
            if let ending { throw CommandFailure(.deviceFault, "stopped early: \(ending)") }
        }

        /// Without --channel: only force (and the timestamp), the profile's channels rather than
        /// every input the converter has; with no profile, every buffered voltage input. Says which on one line.
        static func defaultChannels(_ device: IIODevice) -> [String] {
            if let chosen = defaultRecordChannels(deviceName: device.name ?? device.id, label: device.label) {
                FileHandle.standardError.write(Data("forcestage record: recording \(chosen.ids.joined(separator: ", ")) and the timestamp (\(chosen.source); --channel to choose)\n".utf8))
                return chosen.ids
            }
            let ids = device.forceChannels.map(\.id)
            if ids.count > 1 {
                FileHandle.standardError.write(Data("forcestage record: no profile for \(device.displayName): recording all \(ids.count) buffered voltage inputs; --channel (or a profile in calibration/) records only the force channels\n".utf8))
            }
            return ids
        }

        /// Streams until the duration, a signal or (with --exit-on-timeout) a quiet device.
        /// - Returns: the raw scans and, when the stream broke, why.
        private func capture(_ scans: consuming IIOScanSource) -> ([UInt8], String?) {
            let stopper = scans.stop
            let stop = StopSignal { stopper.request() }
            defer { stop.end() }
            var data = [UInt8]()
            let started = monotonicNanoseconds()
            let deadline = duration.map { started + Int64($0 * 1e9) }
            var ending: String?
            loop: while !stop.stopped {
                if let deadline, monotonicNanoseconds() >= deadline { break }
                let wait = deadline.map { UInt32(clamping: max(1, min(Int64(source.timeoutMs), ($0 - monotonicNanoseconds()) / 1_000_000))) }
                switch scans.next(waitingAtMostMs: wait) {
                case .scans(let bytes, _): data.append(contentsOf: bytes)
                case .idle, .unusable, .recovered: continue
                case .lost(let why): ending = why; break loop
                case .ended, .stopped: break loop
                }
            }
            scans.close()
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
