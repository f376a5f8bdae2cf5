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
    /// `--timeout-ms`.
    public var timeoutMs = 3000
    /// `--timeout`, the hidden seconds spelling; wins over the default when given.
    public var timeoutSeconds: Double?
    public var prometheus = false

    public init(socket: String) { self.socket = socket }

    /// How long to wait, ms, from whichever spelling was given.
    var waitMs: Int32 { timeoutSeconds.map { Int32(($0 * 1000).rounded()) } ?? Int32(timeoutMs) }

    /// The first usage message, else `nil`.
    public var problem: String? {
        if !(100...600_000).contains(timeoutMs) { return "--timeout-ms must be 100 to 600000 milliseconds" }
        if let s = timeoutSeconds, !(s >= 0.1 && s <= 600) { return "--timeout must be 0.1 to 600 seconds" }
        if json && prometheus { return "give --json or --prometheus, not both" }
        return nil
    }

    /// Asks the service and prints its answer.
    public func execute() throws(CommandFailure) {
        signal(SIGPIPE, SIG_IGN)
        let line: String
        do { line = try StatusClient.fetch(socketPath: socket, timeoutMs: waitMs) } catch {
            // Exit 1: no service (or no permission); exit 5: a service that did not answer within --timeout-ms.
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
