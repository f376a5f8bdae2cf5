import ArgumentParser
import ForceStageCommandLine
import ForceStageCore
import ForceStageFormats
import ForceStageIIO
import ForceStageService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Log levels an operator can pass to `--log-level`.
extension Logger.Level: @retroactive ExpressibleByArgument {}

extension ServiceCommands {
    /// `forcestage run`: the service. Streams a live device through the pipeline and hands events to sinks.
    public struct Run: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Classify a live IIO force sensor as a long-lived service: events as JSON lines on stdout and on a Unix socket.",
            discussion: """
            A reader thread only refills libiio buffers into a lock-free ring; the classifier consumes \
            it and pushes events into a second ring that the sinks drain. Overflows are counted and \
            reported by `forcestage status`, never silent. At start the worst-case press-to-event time \
            is computed from the sample rate, scans per refill and debounce, logged, and a configuration \
            that cannot meet --budget-ms (or the profile's [latency] budget_ms) is refused. A lost device \
            prints `lost` (and `release` for a press in progress) and is reopened with backoff. \
            SIGHUP re-reads --profile (a bad one is refused and the old one stays) when run under \
            systemd, with stdin not a terminal, or with --reload-on-hup; in a terminal, SIGHUP (the \
            terminal closing) ends it cleanly like SIGTERM/SIGINT. Under systemd (Type=notify) it sends READY=1 once scans flow and WATCHDOG=1 \
            only while they keep flowing.
            """)

        /// Device, calibration and rate: the options every live command shares.
        @OptionGroup var panel: PanelOptions
        var source: DeviceOptions { panel.device }
        var profile: String? { panel.calibration.profile }
        var rate: Double? { panel.rate.rate }

        @OptionGroup var triggerOptions: TriggerOptions

        @Option(help: "Allowed press-to-event time, milliseconds (default: the profile's [latency] budget_ms, else 25). Also decides the default scans per refill.")
        var budgetMs: Double?

        @Option(help: "Scans per refill (default: the most, 1 to 4, that keeps the budget and waits at most 5 ms).")
        var scansPerRefill: Int?

        @Option(help: "Kernel buffers to queue (iio_device_set_kernel_buffers_count).")
        var kernelBuffers: Int = 4

        @Flag(help: "Use blocking refills even where poll-driven non-blocking refills work (local:).")
        var blocking = false

        @Option(help: "Consecutive refill timeouts that count as a lost sensor.")
        var timeoutsBeforeLost: Int = 2

        @Flag(help: "End (exit 0) at the first refill timeout while the device is still present: how an exhausted emulated recording shows.")
        var exitOnTimeout = false

        @Option(help: "Also serve events and status on this Unix socket (mode 0660); `forcestage status --socket PATH` reads it.")
        var socket: String?

        @Option(help: "Events each socket client may have waiting before its drops are counted (and told to it).")
        var clientQueue: Int = 1024

        @Option(help: "Socket clients served at once (1 to 1024); the next one gets an error line and is closed, counted in status.")
        var maxClients: Int = 64

        @Flag(help: "SIGHUP re-reads the profile even in a terminal (by default a terminal's SIGHUP, its hang-up, stops the service).")
        var reloadOnHup = false

        @Flag(help: "Do not print events on standard output (socket clients only).")
        var noStdout = false

        @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
        var logLevel: Logger.Level = .info

        @Option(help: "Write Prometheus text-format metrics to this .prom file (atomically) every --metrics-interval seconds, for node_exporter's textfile collector.")
        var metricsFile: String?

        @Option(help: "Seconds between metrics file writes.")
        var metricsInterval: Double = 10

        @Flag(help: "Also be a virtual input device (/dev/uinput): BTN_TOUCH while pressed, ABS_PRESSURE, and the profile's [uinput] keys (default: pop = BTN_LEFT).")
        var uinput = false

        @Flag(help: "Run the gesture layer even without [[region]] tables (a profile with them always runs it): move events, and progress for subscribers. Needs press positions.")
        var gestures = false

        @Option(name: .customLong("progress-hz"), help: ArgumentHelp("With the gesture layer, also print progress (force between release and pop as 0..1) at most HZ per second (0.1 to 1000); socket clients ask with subscribe progress HZ.", valueName: "HZ"))
        var progressHz: Double?

        @Option(help: ArgumentHelp("Play the profile's [haptics] effect N times, print the delay distribution and exit (no sensor needed).", valueName: "N"))
        var hapticsTest: Int?

        public init() {}

        public func validate() throws {
            if let s = scansPerRefill, !(1...4096).contains(s) { throw ValidationError("--scans-per-refill must be 1 to 4096") }
            if !(1...1024).contains(kernelBuffers) { throw ValidationError("--kernel-buffers must be 1 to 1024") }
            if !(1...1_000_000).contains(timeoutsBeforeLost) { throw ValidationError("--timeouts-before-lost must be 1 to 1000000") }
            if let b = budgetMs, !(b > 0 && b <= ForceService.maximumBudgetMs) { throw ValidationError("--budget-ms must be above 0 and at most \(Int(ForceService.maximumBudgetMs))") }
            if !(1...65536).contains(clientQueue) { throw ValidationError("--client-queue must be 1 to 65536") }
            if !(1...1024).contains(maxClients) { throw ValidationError("--max-clients must be 1 to 1024") }
            if noStdout && socket == nil { throw ValidationError("--no-stdout needs --socket, or events would go nowhere") }
            if !(metricsInterval >= 0.1 && metricsInterval <= 3600) { throw ValidationError("--metrics-interval must be 0.1 to 3600 seconds") }
            if let progressHz, !(progressHz >= 0.1 && progressHz <= 1000) {
                throw ValidationError("--progress-hz must be 0.1 to 1000 events per second")
            }
            if let n = hapticsTest {
                guard (1...10_000).contains(n) else { throw ValidationError("--haptics-test must be 1 to 10000 taps") }
                guard profile != nil else { throw ValidationError("--haptics-test needs --profile, whose [haptics] names the actuator") }
            }
        }

        /// The calibration, by ``CalibrationChoice``'s rule (SIGHUP re-reads a profile).
        private func panelSource(for device: IIODevice) throws -> PanelSource {
            guard let choice = try panel.choice(for: device) else {
                throw CommandFailure(.deviceFault, "no calibration for \(device.displayName); pass --profile PROFILE.toml (or --calibration REC.json, a recording of this panel with a calibration)")
            }
            return PanelSource(choice)
        }

        public func run() throws {
            // Never killed by writing to a closed stdout/stderr or a departed client.
            signal(SIGPIPE, SIG_IGN)
            let level = logLevel
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            let logger = Logger(label: "forcestage.run")
            if let n = hapticsTest, let profile { return try runHapticsTest(profile: profile, taps: n) }

            let first: IIODevice
            switch source.open() {
            case .success(let d): first = d
            case .failure(let f): throw CommandFailure(.deviceFault, f.message)
            }
            let panel = try panelSource(for: first)
            let options = source
            // --trigger: attached before the first buffer, again on every reopen, put back at exit.
            let attachment: IIOTriggerAttachment?
            switch triggerOptions.prepare(first) {
            case .success(let a): attachment = a
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            defer { attachment?.restore() }
            if let attachment { logger.info("trigger: \(attachment.actions.joined(separator: "; "))") }
            var config = ServiceConfiguration(uri: source.uri, open: {
                options.open().mapError { ServiceOpenFailure(message: $0.message) }.flatMap { device in
                    guard let attachment else { return .success(device) }
                    do throws(IIOTriggerError) { try attachment.attach(to: device) } catch { return .failure(ServiceOpenFailure(message: error.description)) }
                    return .success(device)
                }
            }, source: panel)
            switch TriggerOptions.scanRate(attachment, first, fallback: rate) {
            case .success(let r): config.triggerRateHz = r
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            config.scansPerRefill = scansPerRefill
            config.kernelBuffers = kernelBuffers
            config.rateHz = rate
            config.budgetMs = budgetMs
            config.blocking = blocking
            config.timeoutMs = source.timeoutMs
            config.timeoutsBeforeLost = timeoutsBeforeLost
            config.exitOnTimeout = exitOnTimeout
            config.stdoutSink = !noStdout
            config.socketPath = socket
            config.clientQueue = clientQueue
            config.maxClients = maxClients
            config.environment = ProcessInfo.processInfo.environment
            config.hangupReloads = HangupPolicy.reloads(explicit: reloadOnHup, environment: config.environment, stdinIsTerminal: isatty(0) == 1)
            config.uinput = uinput
            config.metricsFile = metricsFile
            config.metricsIntervalMs = Int(metricsInterval * 1000)
            config.gestures = gestures
            config.progressHz = progressHz

            // The service (and its buffer) ends inside serve(), before the deferred trigger restore.
            let status = try Self.serve(config, logger: logger)
            if status != 0 { throw ExitCode(status) }
        }

        private static func serve(_ config: ServiceConfiguration, logger: Logger) throws -> Int32 {
            let service: ForceService
            do { service = try ForceService(configuration: config, logger: logger) } catch {
                throw CommandFailure(code: error.code, error.description)
            }
            return service.run()
        }
    }
}
