// Over 300 lines: the service's set-up, thread start and shutdown in one type; splitting it by thread under one owner is the open part of issue 11.
import Foundation
import Logging
import Synchronization
import ForceStageCore
import ForceStageFormats
import ForceStageIIO

/// The long-lived service behind `forcestage run`.
///
/// Three threads and two lock-free rings:
/// ```
/// reader (refill only) --ScanRing--> classifier (ForcePipeline) --SPSCRing<ServiceEvent>--> sinks (stdout, socket clients)
/// ```
/// The classifier never waits for the sinks, and the sensor never waits for
/// anyone: when the scan ring is full the reader holds off its next refill for
/// at most half of what the kernel's own queue can hold (so the pause costs no
/// sample), then drops the scan and counts it. A full event ring refuses and
/// counts. ``prepare()`` does every check that can refuse a start; ``run()``
/// streams until SIGTERM or SIGINT.
public final class ForceService: @unchecked Sendable {
    let configuration: ServiceConfiguration
    let logger: Logger
    let counters = ServiceCounters()

    // Fixed at prepare().
    var device: IIODevice!
    var deviceName = ""
    /// The IIO name and label, for matching profiles on reload.
    var deviceIIOName: String?
    var deviceLabel: String?
    var stream: IIOStreamChannels!
    var setup: PanelSetup!
    var sampleRateHz: Double = 0
    var scansPerRefill = 1
    var budget: LatencyBudget!
    var firstBuffer: IIOBuffer?
    var scanRing: ScanRing!
    var eventRing: SPSCRing<ServiceEvent>!
    let classifierWake = Wakeup()
    /// Interrupts the reader's poll on stop.
    let readerWake = Wakeup()
    let sinkWake = Wakeup()
    var server: EventServer?
    /// `--uinput`: the virtual input device events go to.
    var uinput: UInputDevice?
    /// `[haptics]`: the actuator a pop (and optionally a peek) taps.
    var haptics: HapticActuator?
    var notifier: SystemdNotifier
    /// Whether the device stamps scans on CLOCK_MONOTONIC (`current_timestamp_clock`).
    var monotonicStamps = false

    // Shared between threads.
    let stopRequested = Atomic<Bool>(false)
    let currentBuffer = Mutex<IIOBuffer?>(nil)
    let reloadPending = Atomic<Bool>(false)
    let pendingSetup = Mutex<PanelSetup?>(nil)
    /// The budget in force, nanoseconds (a reload may change it).
    let budgetNs = Atomic<Int64>(0)
    let worstCaseNs = Atomic<Int64>(0)
    let source: Mutex<PanelSource>
    let readerDone = DispatchSemaphore(value: 0)
    let classifierDone = DispatchSemaphore(value: 0)
    var signalSources: [DispatchSourceSignal] = []
    let startedAt = Date()

    /// A service for `configuration`, logging through `logger`. Nothing is opened until ``prepare()``.
    public init(configuration: ServiceConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.source = Mutex(configuration.source)
        self.notifier = SystemdNotifier(environment: configuration.environment)
    }

    // MARK: - Start

    /// Opens the device, builds the pipeline, checks the latency budget, creates
    /// the buffer and the socket. Nothing streams yet.
    ///
    /// - Throws: ``ServiceStartError`` naming what is wrong and what to do.
    public func prepare() throws(ServiceStartError) {
        // A reload asked for before streaming starts has nothing to reload into yet (and
        // SIGHUP's default would end the process); run() installs the real handlers.
        signal(SIGHUP, SIG_IGN)
        // A client that hangs up or a closed stdout/stderr is an error to handle, never a reason to die.
        signal(SIGPIPE, SIG_IGN)
        let source = configuration.source
        let dev: IIODevice
        switch configuration.open() {
        case .success(let d): dev = d
        case .failure(let f): throw ServiceStartError(f.message)
        }
        device = dev
        deviceName = dev.displayName
        deviceIIOName = dev.name
        deviceLabel = dev.label
        if let why = source.mismatch(deviceName: dev.name, label: dev.label) {
            throw ServiceStartError("\(why); pass the profile made for \(dev.displayName), or fix its [match] table", code: 2)
        }
        do { stream = try dev.enableChannels(source.forceChannelIDs, timestamp: true) } catch {
            throw ServiceStartError("\(dev.displayName): \(error)", code: 2)
        }
        guard let rate = configuration.triggerRateHz ?? dev.samplingFrequency ?? configuration.rateHz ?? source.sampleRateHz else {
            throw ServiceStartError("\(dev.displayName) states no sampling_frequency; pass --rate SCANS_PER_SECOND")
        }
        sampleRateHz = rate
        let checked = try plan(source, rate: rate, scansPerRefill: configuration.scansPerRefill)
        setup = checked.setup
        scansPerRefill = checked.budget.scansPerRefill
        let b = checked.budget
        budget = b
        budgetNs.store(checked.budgetNs, ordering: .relaxed)
        worstCaseNs.store(checked.worstCaseNs, ordering: .relaxed)
        logger.info("latency budget", metadata: [
            "budget.ms": "\(ms(b.budgetMs))", "budget.worst_case_ms": "\(ms(b.worstCaseMs))",
            "budget.sampling_ms": "\(ms(b.samplingMs))", "budget.refill_ms": "\(ms(b.refillMs))",
            "budget.filter_ms": "\(ms(b.filterMs))", "budget.debounce_ms": "\(ms(b.debounceMs))",
            "budget.kernel_queue_ms": "\(ms(b.kernelQueueMs))", "stream.scans_per_refill": "\(scansPerRefill)",
            "stream.rate_hz": "\(rate)",
        ])

        scanRing = ScanRing(capacity: configuration.scanRingCapacity, slotBytes: stream.layout.scanSize)
        eventRing = SPSCRing(capacity: configuration.eventRingCapacity)
        if let path = configuration.socketPath {
            do { server = try EventServer(path: path, clientQueue: configuration.clientQueue, maxClients: configuration.maxClients, logger: logger) } catch {
                throw ServiceStartError(error.description)
            }
        }
        do { try checkMetricsFile(); try openOutputs(source) } catch {
            server?.close()
            throw error
        }
        monotonicStamps = dev.useMonotonicTimestamps()
        do { firstBuffer = try IIOBuffer(device: dev, scansPerRefill: scansPerRefill, kernelBuffers: configuration.kernelBuffers) } catch {
            server?.close()
            closeOutputs()
            let hint = error.code == EBUSY ? "another process streams from it; stop it first" :
                "check that the service's group may write the device's buffer/ and scan_elements/ attributes (hardware/udev)"
            throw ServiceStartError("cannot stream from \(dev.displayName): \(error); \(hint)")
        }
        logger.info("device opened", metadata: ["sensor.device": "\(deviceName)", "sensor.uri": "\(configuration.uri)",
                                                "panel.source": "\(source.name)"])
    }

    /// Largest budget accepted, ms (a minute: a longer one means no budget, and would overflow the nanosecond counters).
    public static let maximumBudgetMs: Double = 60_000
    /// Highest sample rate accepted, scans per second.
    public static let maximumRateHz: Double = 1_000_000
    /// Lowest sample rate accepted, scans per second (slower has no use for presses, and its period would overflow nanoseconds).
    public static let minimumRateHz: Double = 0.1

    /// What a source resolves to at a rate: the setup and the budget it meets, all checked.
    struct Plan {
        var setup: PanelSetup
        var budget: LatencyBudget
        var budgetNs: Int64
        var worstCaseNs: Int64
    }

    /// The one validation of a source, at start-up and on every reload: the setup, the budget
    /// (bounded, finite) and the worst case that must fit it. Throws the reason instead of trapping.
    func plan(_ source: PanelSource, rate: Double, scansPerRefill fixed: Int?) throws(ServiceStartError) -> Plan {
        guard rate >= Self.minimumRateHz, rate <= Self.maximumRateHz else {
            throw ServiceStartError("a sample rate of \(String(format: "%g", rate)) scans/s is outside \(Self.minimumRateHz) to \(Int(Self.maximumRateHz)); check the device's sampling_frequency, the calibration's rate or --rate")
        }
        let setup = try makeSetup(source, rate: rate)
        let budgetMs = configuration.budgetMs ?? source.budgetMs ?? ServiceConfiguration.defaultBudgetMs
        guard budgetMs > 0, budgetMs <= Self.maximumBudgetMs else {
            let origin = configuration.budgetMs != nil ? "--budget-ms" : source.budgetMs != nil ? "\(source.name): [latency] budget_ms" : "the budget"
            throw ServiceStartError("\(origin) = \(String(format: "%g", budgetMs)) is outside the accepted range above 0 to \(Int(Self.maximumBudgetMs)) ms; state the press-to-event time you need, e.g. 25", code: 2)
        }
        let spr = fixed ?? LatencyBudget.scansPerRefill(parameters: setup.parameters, sampleRateHz: rate,
                                                         kernelBuffers: configuration.kernelBuffers, budgetMs: budgetMs)
        let b = LatencyBudget(parameters: setup.parameters, sampleRateHz: rate, scansPerRefill: spr,
                              kernelBuffers: configuration.kernelBuffers, budgetMs: budgetMs)
        if let refusal = b.refusal { throw ServiceStartError(refusal) }
        // Fits, so the worst case is at most the (bounded) budget: both convert to nanoseconds without overflow.
        guard b.worstCaseMs.isFinite, b.worstCaseMs >= 0 else { throw ServiceStartError("the latency budget's worst case is not a number; check the profile's times") }
        return Plan(setup: setup, budget: b, budgetNs: Int64(budgetMs * 1_000_000), worstCaseNs: Int64(b.worstCaseMs * 1_000_000))
    }

    /// The setup for the stream's layout from `source`, at `rate`.
    func makeSetup(_ source: PanelSource, rate: Double) throws(ServiceStartError) -> PanelSetup {
        let channels = stream.channels
        do {
            return try PanelSetup(layout: stream.layout, forceChannels: source.forceChannelIDs,
                                  slot: { id in channels.firstIndex { $0.id == id } },
                                  forceCalibration: source.forceCalibration, settings: source.settings,
                                  sampleRateHz: rate, timestampSlot: stream.timestampSlot)
        } catch {
            let what: String
            switch error {
            case .uncalibrated(let id): what = "force channel \(id) has no calibration"
            case .notInScan(let id): what = "force channel \(id) is not in the scan"
            case .badCalibration(let id, let e): what = "force channel \(id): \(e.message)"
            case .panel(let e): what = e.message
            case .settings(let e): what = e.message
            case .positions(let e): what = "cell positions: \(e.message)"
            }
            throw ServiceStartError("\(source.name): \(what); fix the calibration or profile", code: 2)
        }
    }

    // MARK: - Run

    /// Streams until SIGTERM/SIGINT (or, with `exitOnTimeout`, the end of the data).
    /// The calling thread becomes the sink thread.
    /// - Returns: the exit status.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        installSignalHandlers()
        currentBuffer.withLock { $0 = firstBuffer }
        let reader = Thread { [self] in readerLoop(); readerDone.signal() }
        reader.name = "forcestage-reader"
        reader.qualityOfService = .userInteractive
        let classifier = Thread { [self] in classifierLoop(); classifierDone.signal() }
        classifier.name = "forcestage-classifier"
        classifier.qualityOfService = .userInteractive
        firstBuffer = nil
        classifier.start()
        reader.start()
        sinkLoop()
        readerDone.wait()
        classifierDone.wait()
        server?.close()
        closeOutputs()
        notifier.notify("STOPPING=1")
        logger.info("service stopped", metadata: statusMetadata())
        return 0
    }

    func requestStop() {
        if stopRequested.exchange(true, ordering: .relaxed) { return }
        counters.setHealth(.stopping)
        currentBuffer.withLock { $0?.cancel() }
        readerWake.signal()
        classifierWake.signal()
    }

    func installSignalHandlers() {
        // Reloads on their own queue: a reload stuck reading the profile (a FIFO put in its place,
        // a hung network mount) must never keep SIGTERM or a hang-up from stopping the service.
        let stopQueue = DispatchQueue(label: "forcestage-signals")
        let reloadQueue = DispatchQueue(label: "forcestage-reload")
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: sig == SIGHUP && configuration.hangupReloads ? reloadQueue : stopQueue)
            s.setEventHandler { [weak self] in
                guard let self else { return }
                if sig == SIGHUP && self.configuration.hangupReloads {
                    self.reload()
                } else if sig == SIGHUP {
                    // A terminal hang-up (see HangupPolicy): nobody is left to stop it, so stop cleanly now.
                    self.logger.notice("terminal hung up; stopping", metadata: ["signal": "SIGHUP", "hint": "run under systemd, with stdin not a terminal, or with --reload-on-hup to make SIGHUP reload"])
                    self.requestStop()
                } else {
                    self.logger.info("stop requested", metadata: ["signal": "\(sig == SIGINT ? "SIGINT" : "SIGTERM")"])
                    self.requestStop()
                }
            }
            s.resume()
            signalSources.append(s)
        }
    }

    // MARK: - Reader thread

    /// Refills and pushes scans; nothing else. Reconnects with backoff after a loss.
    func readerLoop() {
        var buffer = currentBuffer.withLock { $0 }
        let ids = configuration.source.forceChannelIDs
        let layout = stream.layout
        let scanSize = layout.scanSize
        var backoffMs = 50
        var layoutWarned = false
        // How long the reader may wait for the classifier to make room: half of what the kernel's
        // queue holds, so waiting never costs the kernel a sample. Past that, scans are dropped and counted.
        let roomWaitNs = max(Int64(1_000_000), Int64(budget.kernelQueueMs * 500_000))
        session: while !stopRequested.load(ordering: .relaxed) {
            if buffer == nil {
                var slept = 0
                while slept < backoffMs && !stopRequested.load(ordering: .relaxed) { usleep(10_000); slept += 10 }
                if stopRequested.load(ordering: .relaxed) { break }
                backoffMs = min(backoffMs * 2, 2000)
                guard case .success(let d) = configuration.open() else { continue }
                guard let s = try? d.enableChannels(ids, timestamp: true) else { continue }
                if s.layout != layout {
                    if !layoutWarned { logger.error("device came back with a different scan layout; waiting", metadata: ["sensor.device": "\(d.displayName)"]) }
                    layoutWarned = true
                    continue
                }
                _ = d.useMonotonicTimestamps()
                guard let b = try? IIOBuffer(device: d, scansPerRefill: scansPerRefill, kernelBuffers: configuration.kernelBuffers) else { continue }
                buffer = b
                currentBuffer.withLock { $0 = b }
                if stopRequested.load(ordering: .relaxed) { break }
                logger.info("device reopened", metadata: ["sensor.device": "\(d.displayName)"])
            }
            let b = buffer!
            let dev = b.device
            var pollFD: Int32 = -1
            if !configuration.blocking && dev.context.isLocal {
                do {
                    try b.setBlocking(false)
                    pollFD = try b.pollFileDescriptor()
                } catch {
                    try? b.setBlocking(true)
                    pollFD = -1
                }
            }
            let pollDriven = pollFD >= 0
            let timeout: Int32 = configuration.timeoutMs == 0 ? -1 : Int32(clamping: configuration.timeoutMs)
            var timeouts = 0
            while true {
                let result = pollDriven ? pollAndRefill(b, pollFD: pollFD, timeoutMs: timeout) : b.refill()
                switch result {
                case .success:
                    let now = monotonicNanoseconds()
                    timeouts = 0
                    backoffMs = 50
                    let bytes = b.bytes
                    guard let base = bytes.baseAddress else { continue }
                    let n = bytes.count / scanSize
                    var offset = 0
                    for _ in 0..<n {
                        if scanRing.isFull { waitForRoom(maximumNs: roomWaitNs) }
                        scanRing.push(kind: .scan, stampNs: now, bytes: base + offset)   // still full: refused and counted
                        offset &+= scanSize
                    }
                    counters.scansRead.add(Int64(n), ordering: .relaxed)
                    counters.refills.add(1, ordering: .relaxed)
                    classifierWake.signal()
                case .failure(let e) where e.isCancelled || stopRequested.load(ordering: .relaxed):
                    break session
                case .failure(let e) where e.isTimeout && configuration.exitOnTimeout && stillThere(dev):
                    logger.info("data ended", metadata: ["sensor.device": "\(dev.displayName)"])
                    break session
                case .failure(let e):
                    if e.isTimeout {
                        timeouts += 1
                        if timeouts < configuration.timeoutsBeforeLost { continue }
                    }
                    logger.warning("sensor lost", metadata: ["sensor.device": "\(dev.displayName)", "sensor.error": "\(e)"])
                    pushMarker(.lost)
                    currentBuffer.withLock { $0 = nil }
                    buffer = nil
                    continue session
                }
            }
        }
        currentBuffer.withLock { $0 = nil }
        buffer = nil   // the last reference: iio_buffer_destroy disables the kernel buffer and the channels
        logger.info("buffer closed", metadata: ["sensor.device": "\(deviceName)"])
        pushMarker(.end)
    }

    /// A poll-driven refill without allocation: waits until the device is readable
    /// (or `timeoutMs` passes, or stop is requested), then refills what is there.
    /// Calls `poll` on the buffer's poll fd and the reader's wake-up, then `iio_buffer_refill`.
    func pollAndRefill(_ b: IIOBuffer, pollFD: Int32, timeoutMs: Int32) -> Result<Int, IIOError> {
        let wake = readerWake.fd
        while true {
            let r: Int32 = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { fds in
                fds[0] = pollfd(fd: pollFD, events: Int16(POLLIN), revents: 0)
                fds[1] = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
                let n = poll(fds.baseAddress!, 2, timeoutMs)
                if n < 0 { return errno == EINTR ? 1 : -errno }
                if n == 0 { return -ETIMEDOUT }
                if fds[1].revents != 0 { return -EBADF }
                if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 { return -ENODEV }
                return 1
            }
            if r < 0 { return .failure(IIOError(code: -r, operation: "poll(\(b.device.id))")) }
            let result = b.refill()
            if case .failure(let e) = result, e.isWouldBlock { continue }
            return result
        }
    }

    /// Waits (in short sleeps) until the scan ring has room or `maximumNs` pass.
    func waitForRoom(maximumNs: Int64) {
        let deadline = monotonicNanoseconds() &+ maximumNs
        classifierWake.signal()
        while scanRing.isFull && !stopRequested.load(ordering: .relaxed) && monotonicNanoseconds() < deadline {
            usleep(50)
        }
    }

    /// Pushes a marker, waiting for room: markers are never dropped.
    func pushMarker(_ kind: ScanRing.Kind) {
        while scanRing.isFull { classifierWake.signal(); usleep(1000) }
        scanRing.push(kind: kind, stampNs: monotonicNanoseconds(), bytes: nil)
        classifierWake.signal()
    }

    /// Whether a device that timed out is still present: then the silence is the end of the data.
    func stillThere(_ dev: IIODevice) -> Bool {
        guard let context = try? IIOContext(uri: configuration.uri) else { return false }
        return (try? context.device(dev.id)) != nil
    }

    // MARK: - Classifier thread

    /// Consumes scans, classifies, and pushes events for the sinks.
    func classifierLoop() {
        let plausibleAge = monotonicStamps && stream.timestampSlot != nil ? Int64((budget.kernelQueueMs + 50) * 1_000_000) : 0
        var stage = ClassifierStage(pipeline: setup.makePipeline(), counters: counters, output: eventRing, plausibleAgeNs: plausibleAge)
        while true {
            if reloadPending.load(ordering: .acquiring) {
                reloadPending.store(false, ordering: .relaxed)
                if let next = pendingSetup.withLock({ p -> PanelSetup? in defer { p = nil }; return p }) {
                    if stage.apply(next) { sinkWake.signal() }
                }
            }
            guard let slot = scanRing.front() else {
                classifierWake.wait(timeoutMs: 200)
                continue
            }
            let pushed = stage.consume(kind: slot.kind, stampNs: slot.stampNs, scan: slot.bytes)
            scanRing.release()
            if slot.kind == .end {
                // The end marker is never dropped: wait for the sinks to make room.
                let end = ServiceEvent(event: ForceEvent(kind: .release, sample: 0, timestampNs: 0, forceNewtons: 0),
                                       arrivalNs: 0, monotonicStamp: false, isEnd: true)
                while eventRing.isFull { sinkWake.signal(); usleep(1000) }
                eventRing.push(end)
                sinkWake.signal()
                return
            }
            if pushed { sinkWake.signal() }
        }
    }

    // MARK: - Reload

    /// Re-reads the profile; applies it whole or not at all (the old one stays, the reason is logged).
    func reload() {
        let current = source.withLock { $0 }
        guard let path = current.profilePath else {
            logger.warning("reload ignored: no profile", metadata: ["hint": "start with --profile FILE to reload on SIGHUP"])
            return
        }
        let refuse = { (reason: String) in
            self.counters.reloadFailures.add(1, ordering: .relaxed)
            self.logger.error("profile reload refused; the old profile stays", metadata: ["profile.file": "\(path)", "reason": "\(reason)"])
        }
        let profile: Profile
        do { profile = try Profile.load(URL(fileURLWithPath: path)) } catch {
            refuse(error.description)
            return
        }
        let next = PanelSource(profile: profile)
        if let why = next.mismatch(deviceName: deviceIIOName, label: deviceLabel) { refuse(why); return }
        if Set(next.forceChannelIDs) != Set(current.forceChannelIDs) {
            refuse("it reads channels \(next.forceChannelIDs) instead of \(current.forceChannelIDs); restart the service to change channels")
            return
        }
        let checked: Plan
        do { checked = try plan(next, rate: sampleRateHz, scansPerRefill: scansPerRefill) } catch { refuse(error.description); return }
        let b = checked.budget
        pendingSetup.withLock { $0 = checked.setup }
        reloadPending.store(true, ordering: .releasing)
        classifierWake.signal()
        source.withLock { $0 = next }
        budgetNs.store(checked.budgetNs, ordering: .relaxed)
        worstCaseNs.store(checked.worstCaseNs, ordering: .relaxed)
        counters.reloads.add(1, ordering: .relaxed)
        logger.info("profile reloaded", metadata: ["profile.file": "\(path)", "profile.name": "\(profile.name)",
                                                   "budget.worst_case_ms": "\(ms(b.worstCaseMs))", "budget.ms": "\(ms(b.budgetMs))"])
    }
}
