import ForceStageClock
import Foundation
import ForceStageCore
import ForceStageFormats
#if canImport(Glibc)
import Glibc
#endif

/// How the driver paces and disturbs the stream.
public struct DriverOptions: Sendable {
    /// Playback speed over the recording's rate; `nil` writes as fast as the reader takes scans.
    public var speed: Double? = 1
    /// Recording time (seconds) at which the device vanishes, and at which it returns.
    public var vanish: (at: Double, returnAt: Double)?
    /// Overwrite the timestamp channel with the write time on `current_timestamp_clock`,
    /// as a real driver stamps a scan (used for latency measurement).
    public var restamp = false
    /// A file whose existence starts the stream: until it exists the device writes no scan
    /// (a reader's refill waits), then the recording plays from its first scan. Lets a
    /// tool attach to what the command makes (evtest on a uinput device) before the first press.
    public var startAfter: String?

    public init() {}
}

/// Shared between the driver thread and the emulator's main loop.
public final class DriverState: @unchecked Sendable {
    private let lock = NSLock()
    private var _stop = false
    private var _exhausted = false
    private var _drained = false
    private var _scansWritten = 0
    private var _vanished = false

    public var stop: Bool {
        get { lock.withLock { _stop } }
        set { lock.withLock { _stop = newValue } }
    }
    /// Every scan of the recording has been written.
    public var exhausted: Bool {
        get { lock.withLock { _exhausted } }
        set { lock.withLock { _exhausted = newValue } }
    }
    /// Exhausted, and the reader has taken every byte out of the FIFO.
    public var drained: Bool {
        get { lock.withLock { _drained } }
        set { lock.withLock { _drained = newValue } }
    }
    public var scansWritten: Int {
        get { lock.withLock { _scansWritten } }
        set { lock.withLock { _scansWritten = newValue } }
    }
    public var vanished: Bool {
        get { lock.withLock { _vanished } }
        set { lock.withLock { _vanished = newValue } }
    }
    public init() {}
}

/// Plays the kernel driver: waits for `buffer/enable`, reads which `*_en`
/// are set, and writes whole scans of just those channels, laid out by the
/// kernel's rule, into the FIFO, at most 4096 bytes a write (atomic on a pipe).
public final class Driver: @unchecked Sendable {
    public let device: EmulatedDevice
    public let recording: Recording
    public let options: DriverOptions
    public let state = DriverState()
    /// Recording position: the next scan to write.
    private var position = 0
    private var vanishDone = false

    public init(device: EmulatedDevice, recording: Recording, options: DriverOptions) {
        self.device = device
        self.recording = recording
        self.options = options
    }

    /// Starts the driver on its own thread.
    public func start() {
        let thread = Thread { [self] in self.loop() }
        thread.name = "forcestage-driver"
        thread.start()
    }


    private static func sleep(untilMonotonic ns: Int64) {
        var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    private static func sleep(ms: Int) { usleep(UInt32(ms * 1000)) }

    private func loop() {
        if let path = options.startAfter {
            while !state.stop && access(path, F_OK) != 0 { Self.sleep(ms: 5) }
        }
        while !state.stop {
            if device.isEnabled {
                session()
            } else {
                Self.sleep(ms: 1)
            }
        }
    }

    /// One enable..disable span of the reader.
    private func session() {
        let elements = device.enabledElements()
        guard !elements.isEmpty, let layout = try? ScanLayout(elements.map { (index: $0.index, format: $0.format) }) else {
            Self.sleep(ms: 1)
            return
        }
        let fd = open(device.node, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { Self.sleep(ms: 1); return }
        defer { close(fd) }
        // A new enable starts from an empty kernel buffer: drop what an earlier reader left.
        var junk = [UInt8](repeating: 0, count: 65536)
        while read(fd, &junk, junk.count) > 0 {}

        // Where each enabled channel's bytes come from in a recorded scan.
        let source = recording.layout
        struct Copy { var from: Int?; var to: Int; var bytes: Int; var format: ChannelFormat; var raw: Int64; var isTimestamp: Bool }
        var copies: [Copy] = []
        for (slot, e) in elements.enumerated() {
            let out = layout[slot]
            let recorded = recording.metadata.channels.first { $0.id == e.id }
            let from = recorded.flatMap { source.slot(forIndex: $0.index) }.map { source[$0].offset }
            let raw = device.sensor.channels.first { $0.id == e.id }?.raw ?? 0
            copies.append(Copy(from: from, to: out.offset, bytes: out.format.storageBytes, format: out.format, raw: raw,
                               isTimestamp: e.id == "timestamp"))
        }
        let scanSize = layout.scanSize
        let perWrite = max(1, 4096 / scanSize)
        // The kernel wakes a poller only once `buffer/watermark` scans are in the buffer
        // (`iio_buffer_poll`): the driver writes scans in groups of the watermark, each when its
        // last scan is due, so a FIFO's reader wakes when the kernel's would. A group stays one
        // atomic pipe write (at most 4096 bytes), which caps it at `perWrite` scans.
        let watermark = min(device.watermark, perWrite)
        let clock = device.timestampClock
        let rate = device.sampleRateHz * (options.speed ?? 1)
        let periodNs = 1e9 / rate
        let total = recording.scanCount
        let vanishScan = options.vanish.map { Int($0.at * device.sampleRateHz) }
        // Anchor the timeline so the first scan of this session is due now.
        let anchorNs = monotonicNanoseconds() - Int64(Double(position) * periodNs)
        var out = [UInt8](repeating: 0, count: perWrite * scanSize)
        var lastEnableCheck = monotonicNanoseconds()

        recording.scans.withUnsafeBytes { scans in
            while !state.stop {
                let now = monotonicNanoseconds()
                if now - lastEnableCheck > 2_000_000 {
                    lastEnableCheck = now
                    if !device.isEnabled { return }
                }
                if let vanishScan, !vanishDone, position >= vanishScan {
                    vanishDone = true
                    vanishAndReturn()
                    return
                }
                if position >= total {
                    state.exhausted = true
                    var pending: Int32 = 0
                    if ioctl(fd, UInt(FIONREAD), &pending) == 0 && pending == 0 { state.drained = true }
                    Self.sleep(ms: 1)
                    continue
                }
                // The next group: `watermark` scans, fewer only where the stream stops short of
                // one (the recording's end, a vanish), which the driver hands over rather than keep.
                var group = min(watermark, total - position)
                if let vanishScan, !vanishDone { group = max(1, min(group, vanishScan - position)) }
                // How many scans are due (paced) or fit (as fast as possible): whole groups, at least one.
                var count: Int
                if options.speed == nil {
                    count = max(group, min(perWrite, total - position) / watermark * watermark)
                } else {
                    let dueNs = anchorNs + Int64(Double(position + group - 1) * periodNs)
                    if dueNs > now {
                        Self.sleep(untilMonotonic: min(dueNs, now + 2_000_000))
                        continue
                    }
                    let due = Int(Double(now - anchorNs) / periodNs) + 1
                    count = max(group, min(perWrite, due - position, total - position) / watermark * watermark)
                }
                if let vanishScan, !vanishDone { count = max(1, min(count, vanishScan - position)) }
                // Restamped, the write's last scan carries the write time and each earlier one a
                // period less (paced), as the kernel stamps each scan when it is taken.
                let stamp = options.restamp ? clockNanoseconds(clock) : 0
                let stampStepNs = options.speed == nil ? 0 : Int64(periodNs)
                out.withUnsafeMutableBytes { dst in
                    for k in 0..<count {
                        let src = scans.baseAddress! + (position + k) * source.scanSize
                        let d = dst.baseAddress! + k * scanSize
                        memset(d, 0, scanSize)
                        for c in copies {
                            if c.isTimestamp && options.restamp {
                                c.format.encode(stamp - Int64(count - 1 - k) * stampStepNs, to: d + c.to)
                            } else if let from = c.from {
                                memcpy(d + c.to, src + from, c.bytes)
                            } else if c.isTimestamp {
                                c.format.encode(clockNanoseconds(clock), to: d + c.to)
                            } else {
                                c.format.encode(c.raw, to: d + c.to)
                            }
                        }
                    }
                }
                let bytes = count * scanSize
                let n = out.withUnsafeBytes { write(fd, $0.baseAddress!, bytes) }
                if n == bytes {
                    position += count
                    state.scansWritten = position
                } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    // The reader is behind and the pipe is full: wait for room, as a paced
                    // writer would block on a full kernel FIFO.
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 2)
                } else {
                    return
                }
            }
        }
    }

    /// Unplugs the device for the configured span, then plugs it back in;
    /// the scans the span covers are lost, as they would be.
    private func vanishAndReturn() {
        guard let vanish = options.vanish else { return }
        state.vanished = true
        device.remove()
        let gapNs = Int64((vanish.returnAt - vanish.at) / (options.speed ?? 1) * 1e9)
        Self.sleep(untilMonotonic: monotonicNanoseconds() + max(0, gapNs))
        position = min(recording.scanCount, Int(vanish.returnAt * device.sampleRateHz))
        try? device.create()
        state.vanished = false
    }
}
