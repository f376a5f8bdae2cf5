import ForceStageFormats
import ForceStageService
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `status` was asked, as typed values: filled by `forcestage`'s
/// ArgumentParser command and by `forcestage-service`'s own parser, checked by
/// ``problem`` and run by ``execute()``.
public struct StatusOptions: Sendable {
    /// `--socket`, the one option without a default.
    public var socket: String
    public var json = false
    public var timeout: Double = 3
    public var prometheus = false

    public init(socket: String) { self.socket = socket }

    /// The first usage message, else `nil`.
    public var problem: String? {
        if !(timeout >= 0.1 && timeout <= 600) { return "--timeout must be 0.1 to 600 seconds" }
        if json && prometheus { return "give --json or --prometheus, not both" }
        return nil
    }

    /// Asks the service and prints its answer.
    public func execute() throws(CommandFailure) {
        signal(SIGPIPE, SIG_IGN)
        let line: String
        do { line = try StatusClient.fetch(socketPath: socket, timeoutMs: Int32(timeout * 1000)) } catch {
            // Exit 1: no service (or no permission); exit 5: a service that did not answer within --timeout.
            throw CommandFailure(error.timedOut ? .timedOut : .deviceFault, error.description)
        }
        if prometheus {
            guard let text = PrometheusMetrics.render(statusLine: line) else { throw CommandFailure(.deviceFault, "the reply from \(socket) is not a status line") }
            print(text, terminator: "")
        } else {
            print(json ? line : StatusClient.humanReadable(line))
        }
    }
}
