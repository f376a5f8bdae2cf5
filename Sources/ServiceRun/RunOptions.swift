import ForceStageCore
import ForceStageFormats
import ForceStageIIO
import ForceStageService
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// What `run` was asked, as typed values: filled by `forcestage`'s
/// ArgumentParser command and by `forcestage-service`'s own parser
/// (``ServiceArguments``), checked by ``problem`` and run by ``execute()``,
/// so both programs behave as one.
public struct RunOptions: Sendable {
    /// `--uri`, `--device`, `--timeout-ms`.
    public var source = IIODeviceRequest()
    /// `--profile`, `--calibration`.
    public var calibration = CalibrationChoice.Candidates()
    /// `--rate`.
    public var rate: Double?
    /// `--trigger`.
    public var trigger: String?
    public var budgetMs: Double?
    public var scansPerRefill: Int?
    public var kernelBuffers = 4
    public var blocking = false
    public var timeoutsBeforeLost = 2
    public var exitOnTimeout = false
    public var socket: String?
    public var clientQueue = 1024
    public var maxClients = 64
    public var reloadOnHup = false
    public var noStdout = false
    public var logLevel: Logger.Level = .info
    public var metricsFile: String?
    public var metricsInterval: Double = 10
    public var uinput = false
    public var gestures = false
    public var progressHz: Double?
    public var hapticsTest: Int?

    public init() {}

    /// The option groups' checks, in the order `forcestage` runs them (device,
    /// calibration, rate, trigger): the first usage message, else `nil`.
    public var groupProblem: String? {
        source.uriProblem ?? ContextFile.problem(uri: source.uri) ?? IIOContext.xmlProblem(uri: source.uri) ?? calibration.conflict
            ?? OptionBounds.problem(rate, "--rate", Limits.sampleRateHz, "scans per second")
            ?? trigger.flatMap(TriggerChoice.problem)
    }

    /// `run`'s own checks after the groups': the first usage message, else `nil`.
    public var problem: String? {
        if let s = scansPerRefill, !(1...4096).contains(s) { return "--scans-per-refill must be 1 to 4096" }
        if !(1...1024).contains(kernelBuffers) { return "--kernel-buffers must be 1 to 1024" }
        if !(1...1_000_000).contains(timeoutsBeforeLost) { return "--timeouts-before-lost must be 1 to 1000000" }
        if let b = budgetMs, !(b > 0 && b <= ForceService.maximumBudgetMs) { return "--budget-ms must be above 0 and at most \(Int(ForceService.maximumBudgetMs))" }
        if !(1...65536).contains(clientQueue) { return "--client-queue must be 1 to 65536" }
        if !(1...1024).contains(maxClients) { return "--max-clients must be 1 to 1024" }
        if noStdout && socket == nil { return "--no-stdout needs --socket, or events would go nowhere" }
        if !(metricsInterval >= 0.1 && metricsInterval <= 3600) { return "--metrics-interval must be 0.1 to 3600 seconds" }
        if let progressHz, !(progressHz >= 0.1 && progressHz <= 1000) {
            return "--progress-hz must be 0.1 to 1000 events per second"
        }
        if let n = hapticsTest {
            guard (1...10_000).contains(n) else { return "--haptics-test must be 1 to 10000 taps" }
            guard calibration.profilePath != nil else { return "--haptics-test needs --profile, whose [haptics] names the actuator" }
        }
        return nil
    }

    /// The calibration, by ``CalibrationChoice``'s rule (SIGHUP re-reads a profile).
    private func panelSource(for device: IIODevice) throws(CommandFailure) -> PanelSource {
        guard let choice = try calibration.choice(for: device) else {
            throw CommandFailure(.deviceFault, "no calibration for \(device.displayName); pass --profile PROFILE.toml (or --calibration REC.json, a recording of this panel with a calibration)")
        }
        return PanelSource(choice)
    }

    /// Runs the service (or `--haptics-test`) until it ends.
    /// - Returns: the exit status of a service that ended by itself (0: asked to stop).
    public func execute() throws(CommandFailure) -> Int32 {
        // Never killed by writing to a closed stdout/stderr or a departed client.
        signal(SIGPIPE, SIG_IGN)
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "forcestage.run")
        // libiio's own warning on opening a buffer, explained once in the log instead of printed at each open.
        LibiioNotices.noticeHandler = { logger.debug("\($0)") }
        if let n = hapticsTest, let profile = calibration.profilePath {
            try runHapticsTest(profile: profile, taps: n)
            return 0
        }

        let first: IIODevice
        switch source.open() {
        case .success(let d): first = d
        case .failure(let f): throw CommandFailure(.deviceFault, f.message)
        }
        let panel = try panelSource(for: first)
        let options = source
        // --trigger: attached before the first buffer, again on every reopen, put back at exit.
        let attachment: IIOTriggerAttachment?
        switch TriggerChoice.prepare(trigger, first) {
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
        switch TriggerChoice.scanRate(attachment, first, fallback: rate) {
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
        config.environment = processEnvironment()
        config.hangupReloads = HangupPolicy.reloads(explicit: reloadOnHup, environment: config.environment, stdinIsTerminal: isatty(0) == 1)
        config.uinput = uinput
        config.metricsFile = metricsFile
        config.metricsIntervalMs = Int(metricsInterval * 1000)
        config.gestures = gestures
        config.progressHz = progressHz

        // The service (and its buffer) ends inside serve(), before the deferred trigger restore.
        return try Self.serve(config, logger: logger)
    }

    private static func serve(_ config: ServiceConfiguration, logger: Logger) throws(CommandFailure) -> Int32 {
        let service: ForceService
        do { service = try ForceService(configuration: config, logger: logger) } catch {
            throw CommandFailure(error.status, error.description)
        }
        return service.run()
    }
}

/// The process's environment (`environ`), first definition of a name winning,
/// read without Foundation's `ProcessInfo`.
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let eq = text.firstIndex(of: "="), result[String(text[..<eq])] == nil {
            result[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        entry += 1
    }
    return result
}
