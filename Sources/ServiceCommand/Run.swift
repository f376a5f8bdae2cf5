import ArgumentParser
import ForceStageCommandLine
import ForceStageCore
import ForceStageFormats
import ForceStageIIO
import ForceStageService
// ServiceExecutable, CLIMessage and the options types, for `forcestage` too.
@_exported import ForceStageServiceRun
import Logging

/// Log levels an operator can pass to `--log-level`.
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// The service's subcommands, `Run` (`forcestage run`) and `Status` (`forcestage status`),
/// as `forcestage` parses them; `forcestage-service` parses the same options with its
/// own parser (``ServiceArguments``) into the same ``RunOptions`` and ``StatusOptions``.
public enum ServiceCommands {}

extension ServiceCommands {
    /// `forcestage run`: the service. Streams a live device through the pipeline and hands events to sinks.
    public struct Run: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: RunHelp.abstract,
            discussion: RunHelp.discussion)

        /// Device, calibration and rate: the options every live command shares.
        @OptionGroup var panel: PanelOptions
        var source: DeviceOptions { panel.device }
        var profile: String? { panel.calibration.profile }
        var rate: Double? { panel.rate.rate }

        @OptionGroup var triggerOptions: TriggerOptions

        @Option(help: "Allowed press-to-event time, milliseconds (default: the profile's [latency] budget_ms, else 25, or for a slower sensor its worst case plus 10). Also decides the default scans per refill.", transform: DecimalNumber.argument)
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

        @Option(name: .customLong("metrics-interval"), help: ArgumentHelp("Seconds between metrics file writes.", valueName: "metrics-interval"))
        var metricsIntervalArgument: DecimalArgument = 10
        var metricsInterval: Double { metricsIntervalArgument.value }

        @Flag(help: "Also be a virtual input device (/dev/uinput): BTN_TOUCH while pressed, ABS_PRESSURE, and the profile's [uinput] keys (default: pop = BTN_LEFT).")
        var uinput = false

        @Flag(help: "Run the gesture layer even without [[region]] tables (a profile with them always runs it): move events, and progress for subscribers. Needs press positions.")
        var gestures = false

        @Option(name: .customLong("progress-hz"), help: ArgumentHelp("With the gesture layer, also print progress (force between release and pop as 0..1) at most HZ per second (0.1 to 1000); socket clients ask with subscribe progress HZ.", valueName: "HZ"), transform: DecimalNumber.argument)
        var progressHz: Double?

        @Option(help: ArgumentHelp("Play the profile's [haptics] effect N times, print the delay distribution and exit (no sensor needed).", valueName: "N"))
        var hapticsTest: Int?

        public init() {}

        /// The values as the one options type both programs run.
        var options: RunOptions {
            var o = RunOptions()
            o.source = source.request
            o.calibration = panel.calibration.candidates
            o.rate = rate
            o.trigger = triggerOptions.trigger
            o.budgetMs = budgetMs
            o.scansPerRefill = scansPerRefill
            o.kernelBuffers = kernelBuffers
            o.blocking = blocking
            o.timeoutsBeforeLost = timeoutsBeforeLost
            o.exitOnTimeout = exitOnTimeout
            o.socket = socket
            o.clientQueue = clientQueue
            o.maxClients = maxClients
            o.reloadOnHup = reloadOnHup
            o.noStdout = noStdout
            o.logLevel = logLevel
            o.metricsFile = metricsFile
            o.metricsInterval = metricsInterval
            o.uinput = uinput
            o.gestures = gestures
            o.progressHz = progressHz
            o.hapticsTest = hapticsTest
            return o
        }

        public func validate() throws {
            if let problem = options.problem { throw ValidationError(problem) }
        }

        public func run() throws {
            let status = try options.execute()
            if status != 0 { throw ExitCode(status) }
        }
    }
}
