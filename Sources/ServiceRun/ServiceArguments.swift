// Over 300 lines: the service's own parser and the two commands' option tables; kept together so the tables read against the parser that checks them.
import ForceStageFormats
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// `forcestage-service`'s command line: `run` and `status` parsed without
/// swift-argument-parser (which brings FoundationEssentials), into the same
/// ``RunOptions`` and ``StatusOptions`` `forcestage` fills. Same option names,
/// defaults, ranges, messages and exit statuses; `--help` is laid out as
/// swift-argument-parser lays out `forcestage run --help` (the same text, wrapped
/// to `COLUMNS` or the terminal's width, 80 without either).
public enum ServiceArguments {
    /// What the command line asks for.
    public enum Outcome {
        case run(RunOptions)
        case status(StatusOptions)
        /// Print this text on standard output and exit 0 (`--help`, `help`, no subcommand).
        case help(String)
        /// Print the version and exit 0.
        case version
        /// A usage error: print `WHO: MESSAGE; see `WHO --help`` and exit 64.
        case usage(who: String, message: String)
    }

    /// One option as the command line and the help show it.
    struct Spec<Options>: Sendable {
        /// The long name without its dashes.
        var name: String
        /// The value's name in help (`nil`: a flag).
        var valueName: String?
        var help: String
        /// The default and the accepted values, as help shows them.
        var defaultText: String? = nil
        var values: [String] = []
        /// Stores the value (a flag gets ""); `false` when it does not convert.
        var apply: @Sendable (inout Options, String) -> Bool
        /// Said after an invalid value (as swift-argument-parser says its transform's error), or nothing.
        var refusal: String? = nil
        /// Accepted but left out of help (an old spelling kept for existing scripts).
        var hidden = false

        var synopsis: String { valueName.map { "--\(name) <\($0)>" } ?? "--\(name)" }
        /// How messages name it: swift-argument-parser leaves a hidden option's value name out.
        var named: String { hidden ? "--\(name)" : synopsis }
    }

    /// A subcommand: its abstract, discussion, options and how it starts.
    struct Command<Options>: Sendable {
        var name: String
        var abstract: String
        var discussion: String = ""
        var specs: [Spec<Options>]
        /// Options that must be given (their synopsis is shown without brackets).
        var required: Set<String> = []
    }

    /// The name help and messages use: `forcestage-service` when run by that name, else
    /// `forcestage` (whose `run` and `status` exec this program keeping their `argv[0]`).
    public static let program: String = {
        let name = PathText.lastComponent(CommandLine.arguments.first ?? "")
        return name == ServiceExecutable.name ? name : "forcestage"
    }()

    /// Parses the arguments after the program name. The order of the checks is
    /// swift-argument-parser's, so the first complaint is the one `forcestage`
    /// makes: a missing or unconvertible value as it is met, a missing `--socket`,
    /// the option groups' and the command's checks, then an unknown option, then
    /// an unexpected argument.
    public static func parse(_ arguments: [String]) -> Outcome {
        guard let first = arguments.first else { return .help(rootHelp()) }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "run":
            return parse(rest, run, start: RunOptions()) { $0.groupProblem ?? $0.problem }.map { .run($0) }
        case "status":
            // --socket has no default: a placeholder until the required check.
            return parse(rest, status, start: StatusOptions(socket: "")) { $0.problem }.map { .status($0) }
        case "help":
            switch rest.first {
            case "run": return .help(help(run))
            case "status": return .help(help(status))
            default: return .help(rootHelp())
            }
        default:
            let words = arguments.prefix { $0 != "--" }
            if words.contains(where: isHelp) { return .help(rootHelp()) }
            if words.contains("--version") { return .version }
            if let option = words.first(where: isOption) { return .usage(who: program, message: unknownOption(option, among: [])) }
            let extra = arguments.filter { !isOption($0) && $0 != "--" }
            return .usage(who: program, message: unexpected(extra))
        }
    }

    /// `-h`, `--help`, or short flags that include `h` (`-h5`), as swift-argument-parser reads them.
    private static func isHelp(_ word: String) -> Bool {
        word == "--help" || (word.hasPrefix("-") && !word.hasPrefix("--") && word.dropFirst().contains("h"))
    }

    /// A word that names an option rather than a value (`-` alone is a value).
    private static func isOption(_ word: String) -> Bool { word.hasPrefix("-") && word != "-" }

    private static func unexpected(_ words: [String]) -> String {
        words.count == 1 ? "Unexpected argument '\(words[0])'" : "\(words.count) unexpected arguments: '\(words.joined(separator: "', '"))'"
    }

    private enum Parsed<Options> {
        case options(Options)
        case done(Outcome)
        func map(_ f: (Options) -> Outcome) -> Outcome {
            switch self {
            case .options(let o): return f(o)
            case .done(let outcome): return outcome
            }
        }
    }

    private static func parse<Options>(_ arguments: [String], _ command: Command<Options>, start: Options,
                                       check: (Options) -> String?) -> Parsed<Options> {
        let who = "\(program) \(command.name)"
        let words = arguments.prefix { $0 != "--" }
        if words.contains(where: isHelp) { return .done(.help(help(command))) }
        if words.contains("--version") { return .done(.version) }
        var options = start
        var given: Set<String> = []
        var unknown: [String] = []
        var extra: [String] = []
        var i = 0
        while i < arguments.count {
            let word = arguments[i]
            i += 1
            if word == "--" {
                extra.append(contentsOf: arguments[i...])
                break
            }
            guard isOption(word) else {
                extra.append(word)
                continue
            }
            guard word.hasPrefix("--") else {
                unknown.append(String(word.prefix(2)))
                continue
            }
            var name = String(word.dropFirst(2))
            var attached: String?
            if let eq = name.firstIndex(of: "=") {
                attached = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
                if attached == "" { attached = nil }
            }
            guard let spec = command.specs.first(where: { $0.name == name }) else {
                unknown.append("--\(name)")
                continue
            }
            let value: String
            if spec.valueName == nil {
                if let attached {
                    return .done(.usage(who: who, message: "The option '--\(name)' does not take any value, but '\(attached)' was specified."))
                }
                value = ""
            } else if let attached {
                value = attached
            } else if !word.contains("="), i < arguments.count, !isOption(arguments[i]) || OptionBounds.isNegativeValue(arguments[i]) {
                // A negative number is the option's value, as forcestage's runCommandLine takes it.
                value = arguments[i]
                i += 1
            } else {
                return .done(.usage(who: who, message: "Missing value for '\(spec.named)'"))
            }
            guard spec.apply(&options, value) else {
                return .done(.usage(who: who, message: "The value '\(value)' is invalid for '\(spec.named)'\(spec.refusal.map { ": \($0)" } ?? valueList(spec.values))"))
            }
            given.insert(name)
        }
        for spec in command.specs where command.required.contains(spec.name) && !given.contains(spec.name) {
            return .done(.usage(who: who, message: "Missing expected argument '\(spec.synopsis)'"))
        }
        if let problem = check(options) { return .done(.usage(who: who, message: problem)) }
        if let option = unknown.first { return .done(.usage(who: who, message: unknownOption(option, among: command.specs.map(\.name)))) }
        if !extra.isEmpty { return .done(.usage(who: who, message: unexpected(extra))) }
        return .options(options)
    }

    /// swift-argument-parser's list of accepted values after an invalid one (newlines as spaces, as `forcestage` prints it).
    private static func valueList(_ values: [String]) -> String {
        guard !values.isEmpty else { return "" }
        if values.count < 6 {
            let quoted = values.map { "'\($0)'" }
            let list = quoted.count <= 2 ? quoted.joined(separator: " and ") : quoted.dropLast().joined(separator: ", ") + " or \(quoted.last!)"
            return ". Please provide one of \(list)."
        }
        return ". Please provide one of the following: " + values.map { "  - \($0)" }.joined(separator: " ")
    }

    /// "Unknown option", with the closest long option when one is near enough
    /// (an edit distance under 4, as swift-argument-parser suggests).
    private static func unknownOption(_ word: String, among names: [String]) -> String {
        guard word.hasPrefix("--") else { return "Unknown option '\(word)'" }
        let candidates = names.map { "--\($0)" }
        let best = candidates.map { ($0, editDistance($0, word)) }.filter { $0.1 < 4 }.min { $0.1 < $1.1 }
        if let best { return "Unknown option '\(word)'. Did you mean '\(best.0)'?" }
        return "Unknown option '\(word)'"
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] : 1 + min(previous[j - 1], previous[j], current[j - 1])
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

// MARK: - The commands

extension ServiceArguments {
    static func option<O>(_ name: String, _ valueName: String? = nil, _ help: String, default defaultText: String? = nil,
                          values: [String] = [], _ apply: @escaping @Sendable (inout O, String) -> Bool) -> Spec<O> {
        Spec(name: name, valueName: valueName ?? name, help: help, defaultText: defaultText, values: values, apply: apply)
    }

    /// An option whose value is a decimal number (``DecimalNumber``: no hexadecimal, inf or nan), refused as
    /// `forcestage` refuses it: with the reason where it has no default (its `DecimalNumber.argument`
    /// transform says it), without where it has one (its `DecimalArgument` type says nothing more).
    static func decimal<O>(_ name: String, _ valueName: String? = nil, _ help: String, default defaultText: String? = nil,
                           _ set: @escaping @Sendable (inout O, Double) -> Void) -> Spec<O> {
        Spec(name: name, valueName: valueName ?? name, help: help, defaultText: defaultText,
             apply: { o, v in
                 guard let x = DecimalNumber.parse(v) else { return false }
                 set(&o, x)
                 return true
             }, refusal: defaultText == nil ? DecimalNumber.refusal : nil)
    }

    /// `spec`, accepted but not shown in help.
    static func hiding<O>(_ spec: Spec<O>) -> Spec<O> {
        var hidden = spec
        hidden.hidden = true
        return hidden
    }

    static func flag<O>(_ name: String, _ help: String, _ set: @escaping @Sendable (inout O) -> Void) -> Spec<O> {
        Spec(name: name, valueName: nil, help: help, apply: { o, _ in set(&o); return true })
    }

    /// `run`: the options of ServiceCommand's `Run` (and its option groups), in its order, with its help.
    static let run = Command<RunOptions>(
        name: "run",
        abstract: RunHelp.abstract,
        discussion: RunHelp.discussion,
        specs: [
            option("uri", nil, "libiio context URI: local:, ip:HOST[:PORT] or xml:FILE.", default: "local:") { $0.source.uri = $1; return true },
            option("device", nil, "Device id (iio:device0), label or name; default: the single device with buffered voltage inputs.") { $0.source.device = $1; return true },
            option("timeout-ms", nil, "Context timeout for a blocking refill, milliseconds.", default: "1000") { o, v in
                guard let n = UInt32(v) else { return false }
                o.source.timeoutMs = n
                return true
            },
            option("profile", nil, "The panel's profile (TOML; see docs/profiles.md). Wins over every other calibration.") { $0.calibration.profilePath = $1; return true },
            option("calibration", "REC.json", "A recording whose calibration block to use instead of a profile.") { $0.calibration.calibrationPath = $1; return true },
            decimal("rate", "HZ", RateHelp.calibrated) { o, x in o.rate = x },
            option("trigger", "NAME|hrtimer:HZ|sysfs", "The IIO trigger to stream through: NAME of an existing one, hrtimer:HZ (made through configfs at that rate, removed at exit) or sysfs (made if none exists). The device's conversion rate is raised to keep up; everything changed is put back at exit.") { $0.trigger = $1; return true },
            decimal("budget-ms", nil, "Allowed press-to-event time, milliseconds (default: the profile's [latency] budget_ms, else 25, or for a slower sensor its worst case plus 10). Also decides the default scans per refill.") { o, x in o.budgetMs = x },
            option("scans-per-refill", nil, "Scans per refill (default: the most, 1 to 4, that keeps the budget and waits at most 5 ms).") { o, v in
                guard let n = Int(v) else { return false }
                o.scansPerRefill = n
                return true
            },
            option("kernel-buffers", nil, "Kernel buffers to queue (iio_device_set_kernel_buffers_count).", default: "4") { o, v in
                guard let n = Int(v) else { return false }
                o.kernelBuffers = n
                return true
            },
            flag("blocking", "Use blocking refills even where poll-driven non-blocking refills work (local:).") { $0.blocking = true },
            option("timeouts-before-lost", nil, "Consecutive refill timeouts that count as a lost sensor.", default: "2") { o, v in
                guard let n = Int(v) else { return false }
                o.timeoutsBeforeLost = n
                return true
            },
            flag("exit-on-timeout", "End (exit 0) at the first refill timeout while the device is still present: how an exhausted emulated recording shows.") { $0.exitOnTimeout = true },
            option("socket", nil, "Also serve events and status on this Unix socket (mode 0660); `forcestage status --socket PATH` reads it.") { $0.socket = $1; return true },
            option("client-queue", nil, "Events each socket client may have waiting before its drops are counted (and told to it).", default: "1024") { o, v in
                guard let n = Int(v) else { return false }
                o.clientQueue = n
                return true
            },
            option("max-clients", nil, "Socket clients served at once (1 to 1024); the next one gets an error line and is closed, counted in status.", default: "64") { o, v in
                guard let n = Int(v) else { return false }
                o.maxClients = n
                return true
            },
            flag("reload-on-hup", "SIGHUP re-reads the profile even in a terminal (by default a terminal's SIGHUP, its hang-up, stops the service).") { $0.reloadOnHup = true },
            flag("no-stdout", "Do not print events on standard output (socket clients only).") { $0.noStdout = true },
            option("log-level", nil, "Log level on standard error: trace, debug, info, notice, warning, error, critical.", default: "info",
                   values: Logger.Level.allCases.map(\.rawValue)) { o, v in
                guard let level = Logger.Level(v) else { return false }
                o.logLevel = level
                return true
            },
            option("metrics-file", nil, "Write Prometheus text-format metrics to this .prom file (atomically) every --metrics-interval seconds, for node_exporter's textfile collector.") { $0.metricsFile = $1; return true },
            decimal("metrics-interval", nil, "Seconds between metrics file writes.", default: "10.0") { o, x in o.metricsInterval = x },
            flag("uinput", "Also be a virtual input device (/dev/uinput): BTN_TOUCH while pressed, ABS_PRESSURE, and the profile's [uinput] keys (default: pop = BTN_LEFT).") { $0.uinput = true },
            flag("gestures", "Run the gesture layer even without [[region]] tables (a profile with them always runs it): move events, and progress for subscribers. Needs press positions.") { $0.gestures = true },
            decimal("progress-hz", "HZ", "With the gesture layer, also print progress (force between release and pop as 0..1) at most HZ per second (0.1 to 1000); socket clients ask with subscribe progress HZ.") { o, x in o.progressHz = x },
            option("haptics-test", "N", "Play the profile's [haptics] effect N times, print the delay distribution and exit (no sensor needed).") { o, v in
                guard let n = Int(v) else { return false }
                o.hapticsTest = n
                return true
            },
        ])

    /// `status`: the options of ServiceCommand's `Status`.
    static let status = Command<StatusOptions>(
        name: "status",
        abstract: RunHelp.statusAbstract,
        specs: [
            option("socket", nil, "The socket the service serves (forcestage run --socket PATH).") { $0.socket = $1; return true },
            flag("json", "Print the status as one JSON line.") { $0.json = true },
            option("timeout-ms", "MS", "Milliseconds to wait for the service to accept the connection and answer (100 to 600000).", default: "3000") { o, v in
                guard let n = Int(v) else { return false }
                o.timeoutMs = n
                return true
            },
            hiding(decimal("timeout", nil, "") { o, x in o.timeoutSeconds = x }),
            flag("prometheus", "Print the status as Prometheus text-format metrics.") { $0.prometheus = true },
        ],
        required: ["socket"])

    static let rootAbstract = "The service commands of forcestage (run, status), in a program without Foundation."
}

// MARK: - Help, laid out as swift-argument-parser lays it out

extension ServiceArguments {
    /// The label column of swift-argument-parser's help.
    static let labelColumn = 26

    /// The help's width: `COLUMNS`, else the terminal's, else 80.
    static func screenWidth() -> Int {
        if let text = getenv("COLUMNS"), let n = Int(String(cString: text)) { return n }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    static func help<O>(_ command: Command<O>) -> String {
        let width = screenWidth()
        let visible = command.specs.filter { !$0.hidden }
        var lines: [(String, String)] = visible.map { spec -> (String, String) in
            var text = spec.help
            switch (spec.values.isEmpty, spec.defaultText) {
            case (true, let d?): text += " (default: \(d))"
            case (false, let d?): text += " (values: \(spec.values.joined(separator: ", ")); default: \(d))"
            case (false, nil): text += " (values: \(spec.values.joined(separator: ", ")))"
            case (true, nil): break
            }
            return (spec.synopsis, text)
        }
        lines.append(("--version", "Show the version."))
        lines.append(("-h, --help", "Show help information."))
        // swift-argument-parser's synopsis: every option up to 12, else the required ones after `[<options>]`, or `<options>`.
        var shown = visible
        var synopsis = "\(program) \(command.name)"
        if shown.count > 12 {
            shown = shown.filter { command.required.contains($0.name) }
            synopsis += shown.isEmpty ? " <options>" : " [<options>]"
        }
        for spec in shown {
            synopsis += command.required.contains(spec.name) ? " \(spec.synopsis)" : " [\(spec.synopsis)]"
        }
        var abstract = command.abstract
        if !command.discussion.isEmpty { abstract += "\n\n" + command.discussion }
        return "OVERVIEW: \(abstract)".wrapped(to: width) + "\n\n"
            + "USAGE: \(synopsis)\n\n"
            + section("OPTIONS", lines, width: width)
    }

    static func rootHelp() -> String {
        let width = screenWidth()
        return "OVERVIEW: \(rootAbstract)".wrapped(to: width) + "\n\n"
            + "USAGE: \(program) <subcommand>\n\n"
            + section("OPTIONS", [("--version", "Show the version."), ("-h, --help", "Show help information.")], width: width)
            + "\n"
            + section("SUBCOMMANDS", [("run", run.abstract), ("status", status.abstract)], width: width)
            + "\n  See '\(program) help <subcommand>' for detailed help."
    }

    static func section(_ title: String, _ elements: [(label: String, text: String)], width: Int) -> String {
        var out = "\(title):\n"
        for (label, text) in elements {
            let padded = "  " + label
            let wrapped = text.wrapped(to: width, indent: labelColumn)
            out += padded
            out += padded.count < labelColumn ? String(wrapped.dropFirst(padded.count)) : "\n" + wrapped
            out += "\n"
        }
        return out
    }
}

extension String {
    /// swift-argument-parser's wrapping: lines of at most `columns - indent`
    /// characters broken at the last space (or, for a longer word, the next),
    /// each non-empty line indented by `indent`.
    func wrapped(to total: Int, indent: Int = 0) -> String {
        let columns = total - indent
        guard columns > 0 else { return "" }
        let chars = Array(self)
        var lines: [ArraySlice<Character>] = []
        var i = 0
        while true {
            let end = Swift.min(i + columns, chars.count)
            let chunk = chars[i..<end]
            if let newline = chunk.lastIndex(of: "\n") {
                lines.append(contentsOf: chars[i..<newline].split(separator: "\n", omittingEmptySubsequences: false))
                i = newline + 1
            } else if end == chars.count {
                lines.append(chars[i...])
                break
            } else if let space = chunk.lastIndex(of: " ") {
                lines.append(chars[i..<space])
                i = space + 1
            } else if let space = chars[i...].firstIndex(of: " ") {
                lines.append(chars[i..<space])
                i = space + 1
            } else {
                lines.append(chars[i...])
                break
            }
        }
        let pad = String(repeating: " ", count: indent)
        return lines.map { $0.isEmpty ? "" : pad + String($0) }.joined(separator: "\n")
    }
}

/// `run`'s and `status`'s help, written once for both parsers (ServiceCommand's ArgumentParser `Run` and ``ServiceArguments``).
public enum RunHelp {
    public static let statusAbstract = "Print a running service's health, counters (scans, dropped scans, events, overflows, budget violations) and latency percentiles."
    public static let abstract = "Classify a live IIO force sensor as a long-lived service: events as JSON lines on stdout and on a Unix socket."
    public static let discussion = """
        One thread refills the libiio buffer and classifies each refill in one batch; it hands \
        events through a ring to a second thread that writes them to stdout, socket clients and uinput. \
        Overflows are counted and reported by `forcestage status`, never silent. At start the worst-case \
        press-to-event time is computed from the sample rate, scans per refill and debounce, logged, and a \
        configuration that cannot meet --budget-ms (or the profile's [latency] budget_ms) is refused. A lost \
        device prints `lost` (and `release` for a press in progress) and is reopened with backoff. \
        SIGHUP re-reads --profile (a bad one is refused and the old one stays) when run under \
        systemd, with stdin not a terminal, or with --reload-on-hup; in a terminal, SIGHUP (the \
        terminal closing) ends it cleanly like SIGTERM/SIGINT. Under systemd (Type=notify) it sends READY=1 once scans flow and WATCHDOG=1 \
        only while they keep flowing.
        """
}
