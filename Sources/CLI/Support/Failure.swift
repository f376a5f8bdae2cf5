import ArgumentParser
import Foundation
import ForceStageFormats
import ForceStageTools

/// The exit statuses every command uses (README "Exit codes").
enum ExitStatus: Int32 {
    /// A device, service or run-time fault: no such device, lost sensor,
    /// socket unusable, no service answering, a threshold not met.
    case deviceFault = 1
    /// A bad input file or value in one: recording, profile, calibration.
    case badInput = 2
    /// An interactive session ended before it was complete; nothing saved.
    case incomplete = 3
    /// The environment lacks what the command needs (root, unshare, namespaces).
    case environment = 4
    /// A service that took too long: `status` got no connection or no answer within `--timeout`.
    case timedOut = 5
    /// A command-line usage error: unknown option, missing or out-of-range value.
    case usage = 64
    /// An internal error: a bug; please report it with the command line.
    case internalError = 70
}

/// The one error type commands end with: printed as one line,
/// `forcestage COMMAND: MESSAGE`, and the process exits with `status`.
struct CommandFailure: Error, CustomStringConvertible {
    var status: ExitStatus
    var message: String
    /// The subcommand, filled in by `main` when a helper does not know it.
    var command: String?

    init(_ status: ExitStatus, _ message: String, command: String? = nil) {
        self.status = status
        self.message = message
        self.command = command
    }

    var description: String { "forcestage\(command.map { " \($0)" } ?? ""): \(message)" }
}

/// A failure of `command` with `message`; codes as in ``ExitStatus`` (default: a device fault).
func fail(_ command: String, _ message: String, code: Int32 = ExitStatus.deviceFault.rawValue) -> CommandFailure {
    CommandFailure(ExitStatus(rawValue: code) ?? .internalError, message, command: command)
}

/// A bad input file: the status is always ``ExitStatus/badInput``.
func badInput(_ error: InputError) -> CommandFailure { CommandFailure(.badInput, error.description) }

/// Prints one line on stderr.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

extension ForceStage {
    /// Parses, validates and runs a command; every failure is one line with the
    /// command's name and a documented exit status (help and version print as usual).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let named = arguments.first.flatMap { name in
            configuration.subcommands.first { $0._commandName == name }.map { _ in name }
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let code = exitCode(for: error)
            guard code != .success else { exit(withError: error) }  // --help, --version
            var message = message(for: error).replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
            if message.hasPrefix("Error: ") { message.removeFirst(7) }
            printError("forcestage\(named.map { " \($0)" } ?? ""): \(message); see `forcestage \(named.map { "\($0) " } ?? "")--help`")
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        let commandName = type(of: command).configuration.commandName ?? named
        do {
            try command.run()
        } catch var failure as CommandFailure {
            if failure.command == nil { failure.command = commandName }
            printError(failure.description)
            Glibc.exit(failure.status.rawValue)
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch let error as ValidationError {
            printError("forcestage\(commandName.map { " \($0)" } ?? ""): \(error.message); see `forcestage \(commandName.map { "\($0) " } ?? "")--help`")
            Glibc.exit(ExitStatus.usage.rawValue)
        } catch where exitCode(for: error) == .success {
            exit(withError: error)  // `help`, --help inside a command
        } catch {
            printError("forcestage\(commandName.map { " \($0)" } ?? ""): internal error: \(error); please report it with the command line")
            Glibc.exit(ExitStatus.internalError.rawValue)
        }
    }
}

/// Monotonic nanoseconds, the clock the emulator and the drivers stamp with.
func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Delivers SIGINT and SIGTERM to a handler on a background queue instead of killing the process.
final class StopSignal: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var _stopped = false
    var stopped: Bool { lock.withLock { _stopped } }

    init(_ onStop: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [weak self] in
                self?.lock.withLock { self?._stopped = true }
                onStop()
            }
            s.resume()
            sources.append(s)
        }
    }

    /// Stops listening (releasing the handler and what it holds) and restores the default actions.
    func end() {
        for s in sources { s.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
