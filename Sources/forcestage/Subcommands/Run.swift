import ArgumentParser
import ForceStageCore
import ForceStageEmulator
import ForceStageHost
import ForceStageIIO
import Foundation

extension ForceStage {
    /// `forcestage run`: stream a live device through the pipeline and print events.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Classify a live IIO force sensor: print peek/pop/release (and sensor health) as JSON lines.",
            discussion: """
            Output is one JSON object per event, the same as `forcestage replay`. A lost device \
            (gone, or repeated refill timeouts) prints `lost` (and `release` for a press in \
            progress); run then reconnects with backoff and prints `recovered` when scans flow again.
            """)

        @OptionGroup var source: DeviceOptions

        @Option(help: "A recording whose calibration to use (default: the recording being emulated, when its device name/label matches).")
        var calibration: String?

        @Option(help: "Scans per refill (default: what arrives within --latency-budget-ms, 1 to 4).")
        var scansPerRefill: Int?

        @Option(help: "Latency budget for choosing scans per refill, milliseconds.")
        var latencyBudgetMs: Double = 5

        @Option(help: "Kernel buffers to queue (iio_device_set_kernel_buffers_count).")
        var kernelBuffers: Int = 4

        @Option(help: "Scans per second when the device has no sampling_frequency (default: the calibration recording's rate).")
        var rate: Double?

        @Flag(help: "Use blocking refills even where poll-driven non-blocking refills work (local:).")
        var blocking = false

        @Option(help: "Consecutive refill timeouts that count as a lost sensor.")
        var timeoutsBeforeLost: Int = 2

        @Flag(help: "End (exit 0) at the first refill timeout while the device is still present: how an exhausted emulated recording shows.")
        var exitOnTimeout = false

        func validate() throws {
            if let s = scansPerRefill, s < 1 { throw ValidationError("--scans-per-refill must be at least 1") }
            if kernelBuffers < 1 { throw ValidationError("--kernel-buffers must be at least 1") }
            if timeoutsBeforeLost < 1 { throw ValidationError("--timeouts-before-lost must be at least 1") }
        }

        /// Whether a device that timed out is still present: then the silence is the
        /// end of the data (an exhausted recording), not a lost sensor.
        private func deviceStillThere(_ dev: IIODevice) -> Bool {
            guard let context = try? IIOContext(uri: source.uri) else { return false }
            return (try? context.device(dev.id)) != nil
        }

        /// The calibration recording: --calibration, else the emulated one if it matches the device.
        private func calibrationMetadata(for device: IIODevice) throws -> RecordingMetadata {
            if let calibration {
                do { return try RecordingMetadata.load(URL(fileURLWithPath: calibration)) } catch {
                    throw fail("run", error.description, code: 2)
                }
            }
            if let path = ProcessInfo.processInfo.environment[EmulatorEnvironment.recording],
               let metadata = try? RecordingMetadata.load(URL(fileURLWithPath: path)),
               metadata.deviceName == device.name, metadata.deviceLabel == nil || metadata.deviceLabel == device.label {
                return metadata
            }
            throw fail("run", "no calibration for \(device.displayName); pass --calibration REC.json (a recording of this panel with a calibration)")
        }

        func run() throws {
            let first: IIODevice
            switch source.open() {
            case .success(let d): first = d
            case .failure(let f): throw fail("run", f.message)
            }
            let metadata = try calibrationMetadata(for: first)
            guard let calibration = metadata.calibration else {
                throw fail("run", "\(self.calibration ?? "the recording") has no calibration; add one or pass another --calibration", code: 2)
            }
            let rate = first.samplingFrequency ?? rate ?? metadata.sampleRateHz
            let scans = scansPerRefill ?? IIOBuffer.defaultScansPerRefill(sampleRateHz: rate, latencyBudgetMs: latencyBudgetMs)
            let forceIDs = calibration.force.map { $0.channel }

            let holder = BufferHolder()
            let stop = StopSignal { holder.cancel() }
            var pipeline: ForcePipeline?
            var events = EventRing()
            var lastTimestamp: Int64 = 0
            var lastArrival: Int64 = monotonicNow()
            // A loss is stamped on the stream's own clock: the last scan's timestamp plus the time since it came.
            func lossTimestamp() -> Int64 { lastTimestamp &+ (monotonicNow() &- lastArrival) }
            var output = [UInt8]()
            output.reserveCapacity(4096)

            func flush() {
                while let e = events.popFirst() {
                    output.append(contentsOf: (eventJSON(e, sampleRateHz: rate).rendered() + "\n").utf8)
                }
                if !output.isEmpty {
                    // One write(2) per refill's events, unbuffered: the line leaves now.
                    output.withUnsafeBytes { raw in
                        var offset = 0
                        while offset < raw.count {
                            let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                            if n < 0 && errno == EINTR { continue }
                            if n <= 0 { break }
                            offset += n
                        }
                    }
                    output.removeAll(keepingCapacity: true)
                }
            }

            var device: IIODevice? = first
            var backoffMs: UInt32 = 50
            session: while !stop.stopped {
                if device == nil {
                    usleep(backoffMs * 1000)
                    backoffMs = min(backoffMs * 2, 2000)
                    if case .success(let d) = source.open() { device = d } else { continue }
                }
                let dev = device!
                device = nil
                let stream: IIOStreamChannels
                do { stream = try dev.enableChannels(forceIDs, timestamp: true) } catch {
                    if pipeline == nil { throw fail("run", "\(dev.displayName): \(error)") }
                    continue
                }
                if pipeline == nil {
                    switch calibration.pipeline(layout: stream.layout, sampleRateHz: rate, slot: stream.slot(of:), timestampSlot: stream.timestampSlot) {
                    case .success(let p): pipeline = p
                    case .failure(let e): throw fail("run", "\(dev.displayName): \(e)", code: 2)
                    }
                } else if pipeline!.layout != stream.layout {
                    FileHandle.standardError.write(Data("forcestage run: \(dev.displayName) came back with a different scan layout; waiting\n".utf8))
                    continue
                }
                dev.useMonotonicTimestamps()
                let buffer: IIOBuffer
                do { buffer = try IIOBuffer(device: dev, scansPerRefill: scans, kernelBuffers: kernelBuffers) } catch {
                    if holder.everConnected == false { throw fail("run", "cannot stream from \(dev.displayName): \(error)") }
                    continue
                }
                var pollDriven = !blocking && dev.context.isLocal
                if pollDriven { do { try buffer.setBlocking(false) } catch { pollDriven = false } }
                holder.set(buffer)
                if stop.stopped { break }
                backoffMs = 50
                var timeouts = 0
                while true {
                    let result = pollDriven ? buffer.waitAndRefill(timeoutMs: Int32(source.timeoutMs == 0 ? -1 : Int32(source.timeoutMs))) : buffer.refill()
                    switch result {
                    case .success:
                        timeouts = 0
                        lastArrival = monotonicNow()
                        let bytes = buffer.bytes
                        // The pipeline takes what the event ring has room for; flush and go on.
                        var consumed = 0
                        while bytes.count - consumed >= stream.layout.scanSize {
                            consumed += pipeline!.process(scans: UnsafeRawBufferPointer(rebasing: bytes[consumed...]), into: &events)
                            flush()
                        }
                        if bytes.count >= stream.layout.scanSize, let base = bytes.baseAddress {
                            lastTimestamp = pipeline!.timestamp(scan: base + bytes.count - stream.layout.scanSize, sample: pipeline!.nextSample - 1)
                        }
                        flush()
                    case .failure(let e) where e.isCancelled || stop.stopped:
                        break session
                    case .failure(let e) where e.isTimeout && exitOnTimeout && deviceStillThere(dev):
                        break session
                    case .failure(let e) where e.isTimeout:
                        timeouts += 1
                        if timeouts < timeoutsBeforeLost { continue }
                        pipeline!.sensorLost(timestampNs: lossTimestamp(), into: &events)
                        flush()
                        holder.set(nil)
                        continue session
                    case .failure:
                        pipeline!.sensorLost(timestampNs: lossTimestamp(), into: &events)
                        flush()
                        holder.set(nil)
                        continue session
                    }
                }
            }
            holder.set(nil)
            if pipeline != nil {
                pipeline!.finish(into: &events)
                flush()
            }
        }
    }
}

/// The current buffer, reachable from the signal handler so that SIGINT cancels a refill.
final class BufferHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: IIOBuffer?
    private(set) var everConnected = false

    func set(_ b: IIOBuffer?) {
        lock.withLock {
            buffer = b
            if b != nil { everConnected = true }
        }
    }

    func cancel() { lock.withLock { buffer?.cancel() } }
}
