import ArgumentParser
import ForceStageCommandLine
import ForceStageService
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension ServiceCommands {
    /// `forcestage status --socket PATH`: asks a running service how it is doing.
    public struct Status: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: "Print a running service's health, counters (scans, dropped scans, events, overflows, budget violations) and latency percentiles.")

        @Option(help: "The socket the service serves (forcestage run --socket PATH).")
        var socket: String

        @Flag(help: "Print the status as one JSON line.")
        var json = false

        @Option(help: "Seconds to wait for the service to accept the connection and answer (0.1 to 600).")
        var timeout: Double = 3

        @Flag(help: "Print the status as Prometheus text-format metrics.")
        var prometheus = false

        public init() {}

        public func validate() throws {
            if !(timeout >= 0.1 && timeout <= 600) { throw ValidationError("--timeout must be 0.1 to 600 seconds") }
            if json && prometheus { throw ValidationError("give --json or --prometheus, not both") }
        }

        public func run() throws {
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
}
