import ForceStageClock
import Logging
import ForceStageCore
import ForceStageFormats
import ForceStageGestures
import ForceStageIIO
#if canImport(Glibc)
import Glibc
#endif

/// The long-lived service behind `forcestage run`.
///
/// Two threads and one ring on the hot path:
/// ```
/// scan thread (IIOScanSource refill + ForcePipeline batch) --EventChannel--> sink thread (stdout, socket clients, uinput, systemd, signals)
/// ```
/// The scan thread never waits for the sinks: a full event ring refuses and
/// counts. ``init(configuration:logger:)`` does every check that can refuse a
/// start and builds everything (one phase); ``run()`` streams until SIGTERM or
/// SIGINT. The threads share only ``ServiceState`` (`Sendable` members); the
/// sink side (this object) stays on the thread that calls ``run()``.
public final class ForceService {
    let configuration: ServiceConfiguration
    let logger: Logger
    let state: ServiceState
    let planner: ServicePlanner
    /// `name (label, id)` of the device, for messages.
    let deviceName: String
    let sampleRateHz: Double
    let scansPerRefill: Int
    let server: EventServer?
    /// `--uinput`: the virtual input device events go to.
    let uinput: UInputDevice?
    /// `[haptics]`: the actuator a pop (and optionally a peek) taps.
    let haptics: HapticActuator?
    var notifier: SystemdNotifier
    /// The regions the gesture layer runs with; nil when it is off (see ForceService+Gestures).
    let gestureRegions: [Region]?
    /// The progress rate the sinks ask the scan thread for.
    let gestureControl: GestureControl
    /// What standard output is sent: every event, progress only at `--progress-hz`.
    var stdoutSubscription: Subscription
    let startedAtNs = monotonicNanoseconds()

    var counters: ServiceCounters { state.counters }

    /// Largest budget accepted, ms (a minute: a longer one means no budget, and would overflow the nanosecond counters).
    public static let maximumBudgetMs: Double = 60_000
    /// Highest sample rate accepted, scans per second.
    public static let maximumRateHz: Double = 1_000_000
    /// Lowest sample rate accepted, scans per second (slower has no use for presses, and its period would overflow nanoseconds).
    public static let minimumRateHz: Double = 0.1

    /// Opens the device, builds the pipeline, checks the latency budget, creates
    /// the buffer, the outputs and the socket. Nothing streams until ``run()``.
    ///
    /// - Throws: ``ServiceStartError`` naming what is wrong and what to do.
    public init(configuration: ServiceConfiguration, logger: Logger) throws(ServiceStartError) {
        self.configuration = configuration
        self.logger = logger
        notifier = SystemdNotifier(environment: configuration.environment)
        // A client that hangs up or a closed stdout/stderr is an error to handle, never a reason to die.
        signal(SIGPIPE, SIG_IGN)
        guard let events = EventChannel() else { throw ServiceStartError("out of file descriptors; raise the service's LimitNOFILE") }
        // From here on a signal is input for the sink thread: a SIGHUP before streaming is a reload once
        // run() starts, never the default death; a SIGTERM is a stop.
        ServiceSignals.install(waking: events.wakeUp)

        let source = configuration.source
        let device: IIODevice
        switch configuration.open() {
        case .success(let d): device = d
        case .failure(let f): throw ServiceStartError(f.message)
        }
        deviceName = device.displayName
        if let why = source.mismatch(deviceName: device.name, label: device.label) {
            throw ServiceStartError("\(why); pass the profile made for \(device.displayName), or fix its [match] table", status: .badInput)
        }
        // The roles and the layout first: the plan needs them, and the buffer needs the plan.
        let stream: IIOStreamChannels
        do { stream = try device.enableChannels(source.forceChannelIDs, timestamp: true) } catch {
            throw ServiceStartError("\(device.displayName): \(error)", status: .badInput)
        }
        guard let rate = configuration.triggerRateHz ?? device.samplingFrequency ?? configuration.rateHz ?? source.sampleRateHz else {
            throw ServiceStartError("\(device.displayName) states no sampling_frequency; pass --rate SCANS_PER_SECOND")
        }
        sampleRateHz = rate
        planner = ServicePlanner(configuration: configuration, stream: stream, deviceName: device.name, deviceLabel: device.label)
        let checked = try planner.plan(source, rate: rate, scansPerRefill: configuration.scansPerRefill)
        let budget = checked.budget
        gestureRegions = try Self.gestureRegions(configuration, source, setup: checked.setup, device: device.displayName)
        stdoutSubscription = .standardOutput(progressHz: configuration.progressHz, sampleRateHz: checked.setup.sampleRateHz)
        let control = GestureControl()
        control.requestProgress(hz: configuration.progressHz)
        gestureControl = control
        scansPerRefill = budget.scansPerRefill
        logger.info("latency budget", metadata: [
            "budget.ms": "\(ms(budget.budgetMs))", "budget.worst_case_ms": "\(ms(budget.worstCaseMs))",
            "budget.sampling_ms": "\(ms(budget.samplingMs))", "budget.refill_ms": "\(ms(budget.refillMs))",
            "budget.filter_ms": "\(ms(budget.filterMs))", "budget.debounce_ms": "\(ms(budget.debounceMs))",
            "budget.kernel_queue_ms": "\(ms(budget.kernelQueueMs))", "stream.scans_per_refill": "\(budget.scansPerRefill)",
            "stream.rate_hz": "\(rate)",
        ])

        try Self.checkMetricsFile(configuration.metricsFile)
        let outputs = try Self.openOutputs(configuration, source, setup: checked.setup, device: device, logger: logger)
        haptics = outputs.haptics
        uinput = outputs.uinput
        if let path = configuration.socketPath {
            do { server = try EventServer(path: path, clientQueue: configuration.clientQueue, maxClients: configuration.maxClients, logger: logger) } catch {
                outputs.uinput?.close()
                outputs.haptics?.close()
                throw ServiceStartError(error.description)
            }
        } else {
            server = nil
        }

        var policy = IIOScanPolicy(scansPerRefill: budget.scansPerRefill)
        policy.kernelBuffers = configuration.kernelBuffers
        policy.timeoutMs = configuration.timeoutMs
        policy.timeoutsBeforeLost = configuration.timeoutsBeforeLost
        policy.endOnTimeout = configuration.exitOnTimeout
        policy.pollDriven = !configuration.blocking
        let open = configuration.open
        let scans: IIOScanSource
        do {
            scans = try IIOScanSource(device: device, forceChannels: source.forceChannelIDs, policy: policy,
                                      reopen: { try? open().get() })
        } catch {
            server?.close()
            uinput?.close()
            haptics?.close()
            if case .buffer(let e) = error {
                let hint = e.code == EBUSY ? "another process streams from it; stop it first" :
                    "check that the service's group may write the device's buffer/ and scan_elements/ attributes (hardware/udev)"
                throw ServiceStartError("cannot stream from \(device.displayName): \(e); \(hint)")
            }
            throw ServiceStartError("\(device.displayName): \(error)", status: .badInput)
        }
        let plausibleAge = scans.monotonicStamps && stream.timestampSlot != nil ? Int64((budget.kernelQueueMs + 50) * 1_000_000) : 0
        let counters = ServiceCounters()
        let gestureStage = gestureRegions.map {
            GestureStage(regions: $0, settings: checked.setup.settings, sampleRateHz: checked.setup.sampleRateHz, control: control)
        }
        let stage = ClassifierStage(pipeline: checked.setup.makePipeline(), calibration: checked.setup.calibration, counters: counters, output: events, plausibleAgeNs: plausibleAge,
                                    gestures: gestureStage)
        state = ServiceState(counters: counters, events: events, stop: scans.stop, source: source,
                             scanLoop: ScanLoop(source: scans, stage: stage, counters: counters, logger: logger))
        state.budgetNs.store(checked.budgetNs, ordering: .relaxed)
        state.worstCaseNs.store(checked.worstCaseNs, ordering: .relaxed)
        logger.info("device opened", metadata: ["sensor.device": "\(deviceName)", "sensor.uri": "\(configuration.uri)",
                                                "panel.source": "\(source.name)"])
    }

    /// Streams until SIGTERM/SIGINT (or, with `exitOnTimeout`, the end of the data).
    /// The calling thread becomes the sink thread.
    /// - Returns: the exit status.
    public func run() -> Int32 {
        let state = self.state
        let scanThread = ServiceThread(name: "forcestage-scan") {
            if let loop = state.takeScanLoop() { loop.run(state) }
        }
        guard let scanThread else {
            logger.critical("cannot start the scan thread", metadata: ["errno": "\(errno)"])
            server?.close()
            closeOutputs()
            return 1
        }
        sinkLoop()
        scanThread.join()
        server?.close()
        closeOutputs()
        notifier.notify("STOPPING=1")
        logger.info("service stopped", metadata: statusMetadata())
        return 0
    }

    /// Stops streaming: the scan thread releases a press in progress, closes the buffer and pushes the end.
    func requestStop() {
        if state.stop.isRequested { return }
        counters.setHealth(.stopping)
        state.stop.request()
    }

    /// What a signal read by the sink thread means.
    func handle(signal sig: Int32) {
        switch sig {
        case SIGHUP where configuration.hangupReloads:
            startReload()
        case SIGHUP:
            // A terminal hang-up (see HangupPolicy): nobody is left to stop it, so stop cleanly now.
            logger.notice("terminal hung up; stopping", metadata: ["signal": "SIGHUP", "hint": "run under systemd, with stdin not a terminal, or with --reload-on-hup to make SIGHUP reload"])
            requestStop()
        default:
            logger.info("stop requested", metadata: ["signal": "\(sig == SIGINT ? "SIGINT" : "SIGTERM")"])
            requestStop()
        }
    }
}
