#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The exit statuses every command of `forcestage`, `forcestage-service` and
/// `forcestage-bench` uses, and the service's start
/// errors carry (docs/getting-started.md, "Errors, exit statuses and limits"): the only exit-code convention.
public enum ExitStatus: Int32, Sendable {
    /// A device, service or run-time fault: no such device, lost sensor,
    /// socket unusable, no service answering, a threshold not met.
    case deviceFault = 1
    /// A bad input file or value in one: recording, profile, calibration.
    case badInput = 2
    /// An interactive session ended before it was complete; nothing saved.
    case incomplete = 3
    /// The environment lacks what the command needs (root, unshare, namespaces).
    case environment = 4
    /// A service that took too long: `status` got no connection or no answer within `--timeout-ms`.
    case timedOut = 5
    /// A command-line usage error: unknown option, missing or out-of-range value, or an
    /// option the situation requires (`calibrate --no-verify` without a terminal).
    case usage = 64
    /// An internal error: a bug; please report it with the command line.
    case internalError = 70
    /// Ctrl-C (SIGINT) ended an interactive session: 128 + 2, as a shell reports it.
    case interrupted = 130
}

/// The one error type commands end with: printed as one line,
/// `forcestage COMMAND: MESSAGE`, and the process exits with `status`.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
    public var status: ExitStatus
    public var message: String
    /// The program and subcommand (`forcestage run`), filled in by the program's command-line driver.
    public var command: String?

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(command ?? "forcestage"): \(message)" }
}

/// The one line of a usage error: `WHO: MESSAGE; see `WHO --help``. A message that
/// ends a sentence (swift-argument-parser's do) loses its full stop before the `;`.
public func usageLine(_ who: String, _ message: String) -> String {
    var text = Substring(message)
    while let last = text.last, last == "." || last == " " { text = text.dropLast() }
    return "\(who): \(text); see `\(who) --help`"
}

/// A bad input file: the status is always ``ExitStatus/badInput``.
public func badInput(_ error: InputError) -> CommandFailure { CommandFailure(.badInput, error.description) }

/// Prints one line on stderr, made ``terminalSafe(_:)``: text quoted from a
/// file or an argument cannot break the line or drive the terminal.
public func printError(_ line: String) {
    writeAll(STDERR_FILENO, terminalSafe(line) + "\n")
}

/// `text` with every character a terminal or a log would act on written as
/// `\u{XX}`: C0 controls (LF, CR, ESC, BEL, TAB ...), DEL, C1 controls, line
/// and paragraph separators and the bidirectional embeddings, overrides and
/// isolates. Everything else, quotes and backslashes included, stays as it is.
public func terminalSafe(_ text: String) -> String {
    func acted(_ v: UInt32) -> Bool {
        v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
            || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
    guard text.unicodeScalars.contains(where: { acted($0.value) }) else { return text }
    var out = String.UnicodeScalarView()
    for s in text.unicodeScalars {
        if acted(s.value) {
            let hex = String(s.value, radix: 16, uppercase: true)
            out.append(contentsOf: "\\u{\(hex.count < 2 ? "0" + hex : hex)}".unicodeScalars)
        } else {
            out.append(s)
        }
    }
    return String(out)
}

/// Writes a line to standard output, unbuffered enough for pipes.
public func emit(_ line: String) {
    writeAll(STDOUT_FILENO, line + "\n")
}

/// The whole text to `fd` (retrying short writes and EINTR); a closed pipe
/// loses the text instead of ending the process.
private func writeAll(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}
