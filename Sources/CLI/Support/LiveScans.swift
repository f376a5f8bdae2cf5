import ForceStageCore
import ForceStageFormats
import ForceStageTools
import ForceStageIIO
import Foundation

/// A live device opened for streaming, as every live command opens it: the
/// device, its trigger (attached again on every reopen), the rate, an
/// ``IIOScanSource`` over the requested channels, and the recording metadata
/// of exactly what it streams (roles from the source: force, timestamp, other).
struct LiveDevice {
    let source: IIOScanSource
    let metadata: RecordingMetadata
    let sampleRateHz: Double
    /// The trigger `--trigger` attached; put back with ``restore()`` after the source is gone.
    let trigger: IIOTriggerAttachment?

    /// Opens the device, attaches the trigger, resolves the rate and starts a source.
    ///
    /// - Parameters:
    ///   - requested: force channel ids; empty asks `defaults` for them.
    ///   - defaults: the channels to take when none are requested, given the opened device.
    ///   - policy: the stream's policy for the resolved rate.
    /// - Returns: the stream, or a one-line message saying what to do.
    static func open(_ options: DeviceOptions, trigger: String?, channels requested: [String],
                     defaults: (IIODevice) -> [String], rate: Double?, policy: (Double) -> IIOScanPolicy) -> Result<LiveDevice, CLIMessage> {
        let device: IIODevice
        switch options.open() {
        case .success(let d): device = d
        case .failure(let f): return .failure(CLIMessage(f.message))
        }
        let ids = requested.isEmpty ? defaults(device) : requested
        guard !ids.isEmpty else {
            return .failure(CLIMessage("\(device.displayName) has no buffered voltage input; pass --channel"))
        }
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
        // A device that states no rate (an HX711) streams at the rate its matching profile was calibrated at.
        let profileRate = { matchingProfile(deviceName: device.name ?? device.id, label: device.label)?.sampleRateHz }
        guard let sampleRate = triggerRate ?? device.samplingFrequency ?? rate ?? profileRate() else {
            attachment?.restore()
            return .failure(CLIMessage("\(device.displayName) has no sampling_frequency attribute and no profile in calibration/ states its sample_rate_hz; pass --rate (e.g. 80 for an HX711 with RATE high)"))
        }
        let source: IIOScanSource
        do {
            source = try IIOScanSource(device: device, forceChannels: ids, policy: policy(sampleRate), reopen: {
                guard case .success(let d) = options.open() else { return nil }
                if let attachment { guard (try? attachment.attach(to: d)) != nil else { return nil } }
                return d
            })
        } catch {
            attachment?.restore()
            if case .buffer(let e) = error { return .failure(CLIMessage("cannot stream from \(device.displayName): \(e)")) }
            return .failure(CLIMessage("\(device.displayName): \(error)"))
        }
        var recorded: [RecordingChannel] = []
        for c in source.stream.channels {
            let role: ChannelRole
            switch source.stream.role(of: c) {
            case .force: role = .force
            case .timestamp: role = .timestamp
            case .other: role = .other
            }
            guard let format = try? c.format() else {
                attachment?.restore()
                return .failure(CLIMessage("\(device.displayName): channel \(c.id) has no readable format"))
            }
            recorded.append(RecordingChannel(id: c.id, index: c.scanIndex, format: format,
                                             scale: c.isTimestamp ? nil : c.scale, offset: c.isTimestamp ? nil : c.offset, role: role))
        }
        var clock: String?
        if device.hasAttribute("current_timestamp_clock"), case .success(let text) = device.attribute("current_timestamp_clock") {
            clock = text
        }
        let metadata = RecordingMetadata(deviceName: device.name ?? device.id, deviceLabel: device.label, sampleRateHz: sampleRate,
                                         timestampClock: clock, channels: recorded)
        return .success(LiveDevice(source: source, metadata: metadata, sampleRateHz: sampleRate, trigger: attachment))
    }
}

/// Scans of a live device, read on a background thread so that the main
/// thread can wait for a person's answer without losing data; loss and return
/// are the ``IIOScanSource``'s, reported as items.
final class LiveScans: @unchecked Sendable {
    enum Item {
        case scans([UInt8])
        /// The device went away (the message says how); scans stop until ``back``.
        case lost(String)
        /// It came back with the same layout.
        case back
    }

    let channelIDs: [String]
    let layout: ScanLayout
    let stream: IIOStreamChannels
    let metadata: RecordingMetadata
    let displayName: String
    let sampleRateHz: Double

    private let lock = NSCondition()
    private var queue: [Item] = []
    /// Read only on the reading thread once started (the `@unchecked Sendable` above is for this and the queue under `lock`).
    private let source: IIOScanSource
    private var thread: Thread?
    private var readerDone = false
    /// The trigger `--trigger` attached; put back at ``stop()``.
    private let trigger: IIOTriggerAttachment?

    /// Opens the device and enables `channelIDs` (default: its first buffered voltage input) plus the timestamp.
    /// - Returns: the source, or a one-line message saying what to do.
    static func open(_ options: DeviceOptions, channels requested: [String], rate: Double?,
                     trigger: String? = nil) -> Result<LiveScans, CLIMessage> {
        LiveDevice.open(options, trigger: trigger, channels: requested,
                        defaults: { Array($0.forceChannels.prefix(1).map(\.id)) }, rate: rate) { rate in
            var policy = IIOScanPolicy(scansPerRefill: IIOBuffer.defaultScansPerRefill(sampleRateHz: rate, latencyBudgetMs: 25))
            policy.kernelBuffers = 4
            policy.timeoutMs = options.timeoutMs
            policy.timeoutsBeforeLost = 2
            return policy
        }.map { LiveScans($0) }
    }

    private init(_ live: LiveDevice) {
        source = live.source
        stream = live.source.stream
        channelIDs = live.source.stream.forceIDs
        layout = live.source.stream.layout
        metadata = live.metadata
        displayName = live.source.displayName
        sampleRateHz = live.sampleRateHz
        trigger = live.trigger
    }

    /// Starts reading.
    func start() {
        let t = Thread { [self] in self.readLoop() }
        t.name = "forcestage-scans"
        thread = t
        t.start()
    }

    /// Stops reading (wakes or cancels a refill in progress) and puts the trigger back.
    func stop() {
        source.stop.request()
        thread.map { _ in waitForReader() }
        trigger?.restore()
    }

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

    private func readLoop() {
        defer {
            lock.lock()
            readerDone = true
            lock.broadcast()
            lock.unlock()
        }
        while true {
            switch source.next() {
            case .scans(let bytes, _): push(.scans(Array(bytes)))
            case .idle, .unusable: continue
            case .lost(let why): push(.lost(why))
            case .recovered: push(.back)
            case .ended, .stopped: return
            }
        }
    }
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
