import ForceStageCore
import ForceStageGestures
import ForceStageFormats
import ForceStageIIO

/// Where the panel's calibration and tuning come from.
public struct PanelSource: Sendable {
    /// For messages: the profile's name or the recording's path.
    public var name: String
    /// The profile file, when there is one (SIGHUP re-reads it).
    public var profilePath: String?
    /// Device name and label patterns the source is for (`nil`: any).
    public var matchName: String?
    /// Panel label pattern the source is for (`nil`: any).
    public var matchLabel: String?
    /// Per force channel calibration.
    public var forceCalibration: [ForceChannelCalibration]
    /// Levels and tuning.
    public var settings: ClassifierSettings
    /// The profile's `[latency] budget_ms`.
    public var budgetMs: Double?
    /// The source's own sample rate (a calibration recording's, a profile's `sample_rate_hz`), used when the device states none.
    public var sampleRateHz: Double?
    /// The profile's `[uinput]` key map (`nil`: the defaults).
    public var uinput: UInputSettings?
    /// The profile's `[haptics]` actuator (`nil`: none).
    public var haptics: HapticsSettings?
    /// The profile's `[[region]]` tables (none: no regions).
    public var regions: [Region] = []

    /// A source from a profile.
    public init(profile: Profile) {
        name = profile.name
        profilePath = profile.file
        matchName = profile.matchName
        matchLabel = profile.matchLabel
        forceCalibration = profile.channels
        settings = profile.settings
        budgetMs = profile.budgetMilliseconds
        sampleRateHz = profile.sampleRateHz
        uinput = profile.uinput
        haptics = profile.haptics
        regions = profile.regions
    }

    /// A source from a calibration recording's metadata.
    public init(name: String, calibration: RecordingCalibration, sampleRateHz: Double) {
        self.name = name
        forceCalibration = calibration.force
        settings = calibration.classifierSettings
        self.sampleRateHz = sampleRateHz
    }

    /// Whether the source applies to a device, and if not why (a one-line reason).
    public func mismatch(deviceName: String?, label: String?) -> String? {
        guard profilePath != nil else { return nil }
        if let matchName, !wildcardMatch(matchName, deviceName ?? "") {
            return "profile \(name) is for devices named \"\(matchName)\", not \"\(deviceName ?? "(no name)")\""
        }
        if let matchLabel, !(label.map { wildcardMatch(matchLabel, $0) } ?? false) {
            return "profile \(name) is for panels labelled \"\(matchLabel)\", not \(label.map { "\"\($0)\"" } ?? "an unlabelled device")"
        }
        return nil
    }

    /// Ids of the force channels, in calibration order.
    public var forceChannelIDs: [String] { forceCalibration.map(\.channel) }
}

/// Everything `forcestage run` was asked to do.
public struct ServiceConfiguration: Sendable {
    /// The libiio URI (for messages and the still-there check).
    public var uri: String
    /// Opens the context and finds the device; the failure is a message for people.
    public var open: @Sendable () -> Result<IIODevice, ServiceOpenFailure>
    /// Calibration and tuning.
    public var source: PanelSource
    /// Scans per refill; `nil` picks the most (1 to 4) that fits the budget.
    public var scansPerRefill: Int?
    /// Kernel buffers queued.
    public var kernelBuffers: Int = 4
    /// Sample rate when the device states none and the source has none.
    public var rateHz: Double?
    /// The scan rate of the trigger the device streams through (`--trigger`): wins over the
    /// device's `sampling_frequency`, which is then the chip's conversion rate.
    public var triggerRateHz: Double?
    /// The press-to-event budget from the command line (wins over the profile's).
    public var budgetMs: Double?
    /// The least budget when neither the command line nor the profile states one.
    public static let defaultBudgetMs: Double = 25
    /// What the default budget allows the host beyond the sensor's own worst case, ms
    /// (the same allowance `calibrate` writes into a profile's budget).
    public static let hostAllowanceMs: Double = 10

    /// The budget when neither the command line nor the profile states one: 25 ms, or for a
    /// sensor whose own worst case (one scan per refill) leaves the host too little of that,
    /// that worst case plus ``hostAllowanceMs``. A slow converter (an HX711 at 80 scans/s
    /// takes 25 ms for its press scan and the spike filter's) is thus not over budget by
    /// the microseconds the host needs.
    public static func defaultBudgetMs(parameters: ClassifierParameters, sampleRateHz: Double, kernelBuffers: Int) -> Double {
        let sensor = LatencyBudget(parameters: parameters, sampleRateHz: sampleRateHz, scansPerRefill: 1,
                                   kernelBuffers: kernelBuffers, budgetMs: defaultBudgetMs)
        guard sensor.worstCaseMs.isFinite else { return defaultBudgetMs }
        return max(defaultBudgetMs, sensor.worstCaseMs + hostAllowanceMs)
    }
    /// Blocking refills even where poll-driven ones work.
    public var blocking = false
    /// Refill timeout, ms (0 waits forever).
    public var timeoutMs: UInt32 = 1000
    /// Consecutive refill timeouts that count as a lost sensor.
    public var timeoutsBeforeLost = 2
    /// End at the first timeout while the device is still there (an exhausted emulated recording).
    public var exitOnTimeout = false
    /// JSON lines on standard output.
    public var stdoutSink = true
    /// The Unix socket to serve events and status on.
    public var socketPath: String?
    /// Events each socket client may have queued before its drops are counted.
    public var clientQueue = 1024
    /// Socket clients served at once; the next one is told and closed (counted).
    public var maxClients = 64
    /// What SIGHUP means: re-read the profile (`true`), or a hang-up of the terminal: stop cleanly (`false`).
    public var hangupReloads = true
    /// Create a virtual input device through ``uinputPath`` and send every gesture to it.
    public var uinput = false
    /// The uinput control node.
    public var uinputPath = "/dev/uinput"
    /// Prometheus text-format metrics written here (atomically) every ``metricsIntervalMs``.
    public var metricsFile: String?
    /// How often the metrics file is rewritten, ms.
    public var metricsIntervalMs = 10_000
    /// Run the gesture layer even without regions (moves, progress on a panel with press positions).
    public var gestures = false
    /// `progress` events on standard output, at most this many per second (nil: none there).
    public var progressHz: Double?
    /// The environment (systemd's NOTIFY_SOCKET and WATCHDOG_USEC).
    public var environment: [String: String] = [:]

    /// A configuration with the defaults for everything but the device and the panel.
    public init(uri: String, open: @escaping @Sendable () -> Result<IIODevice, ServiceOpenFailure>, source: PanelSource) {
        self.uri = uri
        self.open = open
        self.source = source
    }
}

/// A device that could not be opened, with the message for people.
public struct ServiceOpenFailure: Error, Sendable {
    /// What is wrong and what to do.
    public var message: String
    /// A failure with its message.
    public init(message: String) { self.message = message }
}

/// Why the service refused to start: the message says what to do; the code is the exit status.
public struct ServiceStartError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and what to do.
    public var description: String
    /// ``ExitStatus/deviceFault`` for a missing or unusable device or output,
    /// ``ExitStatus/badInput`` for a bad calibration or profile.
    public var status: ExitStatus
    /// A refusal with its message and exit status.
    public init(_ description: String, status: ExitStatus = .deviceFault) {
        self.description = description
        self.status = status
    }
}

/// What SIGHUP means to `forcestage run`.
///
/// Under a service manager, or detached from any terminal, SIGHUP is the
/// conventional "re-read your configuration" (`systemctl reload`). In a
/// terminal it is the terminal going away: nobody is left to stop the service,
/// so it stops cleanly (release, buffer closed, socket removed) instead of
/// outliving its session.
public enum HangupPolicy {
    /// Whether SIGHUP reloads the profile: with `--reload-on-hup`, under systemd
    /// (`NOTIFY_SOCKET` or `INVOCATION_ID` set), or when standard input is not a
    /// terminal (started by a script, `nohup`, a supervisor). Otherwise it stops.
    public static func reloads(explicit: Bool, environment: [String: String], stdinIsTerminal: Bool) -> Bool {
        explicit || environment["NOTIFY_SOCKET"] != nil || environment["INVOCATION_ID"] != nil || !stdinIsTerminal
    }
}
