import ForceStageCore
import ForceStageEmulator
import ForceStageFormats
import ForceStageTools
import ForceStageIIO
import Foundation

/// Scans of a live device, read on a background thread so that the main
/// thread can wait for a person's answer without losing data; when the device
/// vanishes it says so and reconnects with backoff.
final class LiveScans: @unchecked Sendable {
    enum Item {
        case scans([UInt8])
        /// The device went away (the message says how); scans stop until ``back``.
        case lost(String)
        /// It came back with the same layout.
        case back
    }

    let options: DeviceOptions
    let channelIDs: [String]
    let layout: ScanLayout
    let stream: IIOStreamChannels
    let metadata: RecordingMetadata
    let displayName: String
    let sampleRateHz: Double

    private let lock = NSCondition()
    private var queue: [Item] = []
    private var stopping = false
    private var buffer: IIOBuffer?
    private var firstDevice: IIODevice?
    private var thread: Thread?
    /// The trigger `--trigger` attached; put back at ``stop()``, attached again after a reconnect.
    private var trigger: IIOTriggerAttachment?

    /// Opens the device and enables `channelIDs` plus the timestamp.
    /// - Returns: the source, or a one-line message saying what to do.
    static func open(_ options: DeviceOptions, channels requested: [String], rate: Double?,
                     trigger: String? = nil) -> Result<LiveScans, CLIMessage> {
        let device: IIODevice
        switch options.open() {
        case .success(let d): device = d
        case .failure(let f): return .failure(CLIMessage(f.message))
        }
        var ids = requested
        if ids.isEmpty {
            guard let first = device.forceChannels.first else {
                return .failure(CLIMessage("\(device.displayName) has no buffered voltage input; pass --channel"))
            }
            ids = [first.id]
        }
        let emulated = ProcessInfo.processInfo.environment[EmulatorEnvironment.recording]
            .flatMap { try? RecordingMetadata.load(URL(fileURLWithPath: $0)) }
        let attachment: IIOTriggerAttachment?
        switch TriggerOptions.prepare(trigger, device) {
        case .success(let a): attachment = a
        case .failure(let m): return .failure(m)
        }
        let triggerRate: Double?
        switch TriggerOptions.scanRate(attachment, device, fallback: rate) {
        case .success(let r): triggerRate = r
        case .failure(let m): attachment?.restore(); return .failure(m)
        }
        guard let sampleRate = triggerRate ?? device.samplingFrequency ?? rate ?? emulated?.sampleRateHz else {
            attachment?.restore()
            return .failure(CLIMessage("\(device.displayName) has no sampling_frequency attribute; pass --rate (e.g. 80 for an HX711 with RATE high)"))
        }
        device.useMonotonicTimestamps()
        let stream: IIOStreamChannels
        do { stream = try device.enableChannels(ids, timestamp: true) } catch {
            attachment?.restore()
            return .failure(CLIMessage("\(device.displayName): \(error)"))
        }
        var recorded: [RecordingChannel] = []
        for c in stream.channels {
            let role: ChannelRole = c.isTimestamp ? .timestamp : (ids.contains(c.id) ? .force : .other)
            guard let format = try? c.format() else { attachment?.restore(); return .failure(CLIMessage("\(device.displayName): channel \(c.id) has no readable format")) }
            recorded.append(RecordingChannel(id: c.id, index: c.scanIndex, format: format,
                                             scale: c.isTimestamp ? nil : c.scale, offset: c.isTimestamp ? nil : c.offset, role: role))
        }
        let metadata = RecordingMetadata(deviceName: device.name ?? device.id, deviceLabel: device.label, sampleRateHz: sampleRate,
                                         timestampClock: "monotonic", channels: recorded)
        let scans = LiveScans(options: options, channelIDs: ids, stream: stream, metadata: metadata,
                              displayName: device.displayName, sampleRateHz: sampleRate)
        scans.firstDevice = device
        scans.trigger = attachment
        return .success(scans)
    }

    private init(options: DeviceOptions, channelIDs: [String], stream: IIOStreamChannels, metadata: RecordingMetadata,
                 displayName: String, sampleRateHz: Double) {
        self.options = options
        self.channelIDs = channelIDs
        self.stream = stream
        self.layout = stream.layout
        self.metadata = metadata
        self.displayName = displayName
        self.sampleRateHz = sampleRateHz
    }

    /// Starts reading.
    func start() {
        let t = Thread { [self] in self.readLoop() }
        t.name = "forcestage-scans"
        thread = t
        t.start()
    }

    /// Stops reading (cancels a refill in progress).
    func stop() {
        lock.lock()
        stopping = true
        buffer?.cancel()
        lock.broadcast()
        lock.unlock()
        thread.map { _ in waitForReader() }
        trigger?.restore()
    }

    private var readerDone = false

    /// Waits (up to 2 s) for the reading thread to leave, so the trigger is not put back under an enabled buffer.
    private func waitForReader() {
        lock.lock()
        let deadline = Date().addingTimeInterval(2)
        while !readerDone && Date() < deadline { _ = lock.wait(until: deadline) }
        lock.unlock()
    }

    /// What arrived since the last call, waiting up to `timeoutMs` for something.
    func next(timeoutMs: Int) -> [Item] {
        lock.lock()
        defer { lock.unlock() }
        if queue.isEmpty { _ = lock.wait(until: Date().addingTimeInterval(Double(timeoutMs) / 1000)) }
        let items = queue
        queue.removeAll(keepingCapacity: true)
        return items
    }

    private func push(_ item: Item) {
        lock.lock()
        queue.append(item)
        lock.signal()
        lock.unlock()
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    private func setBuffer(_ b: IIOBuffer?) {
        lock.lock()
        buffer = b
        if stopping { b?.cancel() }
        lock.unlock()
    }

    private func readLoop() {
        defer {
            lock.lock()
            readerDone = true
            lock.broadcast()
            lock.unlock()
        }
        var device = firstDevice
        firstDevice = nil
        var backoffMs: UInt32 = 100
        var reconnecting = false
        let scansPerRefill = IIOBuffer.defaultScansPerRefill(sampleRateHz: sampleRateHz, latencyBudgetMs: 25)
        while !isStopping {
            if device == nil {
                usleep(backoffMs * 1000)
                backoffMs = min(backoffMs * 2, 2000)
                guard case .success(let d) = options.open() else { continue }
                if let trigger { guard (try? trigger.attach(to: d)) != nil else { continue } }
                guard let s = try? d.enableChannels(channelIDs, timestamp: true), s.layout == layout else { continue }
                device = d
            }
            let dev = device!
            device = nil
            guard let buf = try? IIOBuffer(device: dev, scansPerRefill: scansPerRefill, kernelBuffers: 4) else {
                if !reconnecting { reconnecting = true; push(.lost("cannot start streaming from \(dev.displayName)")) }
                continue
            }
            var pollDriven = dev.context.isLocal
            if pollDriven { do { try buf.setBlocking(false) } catch { pollDriven = false } }
            setBuffer(buf)
            if reconnecting {
                reconnecting = false
                push(.back)
            }
            backoffMs = 100
            var timeouts = 0
            reading: while true {
                let result = pollDriven ? buf.waitAndRefill(timeoutMs: Int32(options.timeoutMs)) : buf.refill()
                switch result {
                case .success:
                    timeouts = 0
                    push(.scans(Array(buf.bytes)))
                case .failure(let e) where e.isCancelled || isStopping:
                    setBuffer(nil)
                    return
                case .failure(let e) where e.isTimeout:
                    timeouts += 1
                    if timeouts < 2 { continue }
                    reconnecting = true
                    push(.lost("no scans for \(2 * Int(options.timeoutMs)) ms from \(displayName)"))
                    break reading
                case .failure(let e):
                    reconnecting = true
                    push(.lost("\(displayName) vanished (\(e.text))"))
                    break reading
                }
            }
            setBuffer(nil)
        }
    }
}

/// A message for people, as an error.
struct CLIMessage: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}

/// Decodes the force channels' raw values and the timestamp of each scan.
struct ScanDecoder {
    let layout: ScanLayout
    let forceSlots: [Int]
    let timestampSlot: Int?

    /// For `metadata`'s force channels (in its order) and timestamp.
    init(metadata: RecordingMetadata, layout: ScanLayout) {
        self.layout = layout
        forceSlots = metadata.forceChannels.map { layout.slot(forIndex: $0.index)! }
        timestampSlot = metadata.timestampChannel.flatMap { layout.slot(forIndex: $0.index) }
    }

    /// Calls `body` with each whole scan's raw force values and timestamp.
    func forEachScan(_ bytes: [UInt8], _ body: ([Int64], Int64) -> Void) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            var values = [Int64](repeating: 0, count: forceSlots.count)
            while offset + layout.scanSize <= raw.count {
                let base = raw.baseAddress! + offset
                for (i, s) in forceSlots.enumerated() { values[i] = layout[s].format.decode(base + layout[s].offset) }
                let ts = timestampSlot.map { layout[$0].format.decode(base + layout[$0].offset) } ?? 0
                body(values, ts)
                offset += layout.scanSize
            }
        }
    }
}
