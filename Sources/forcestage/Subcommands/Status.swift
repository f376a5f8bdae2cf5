import ArgumentParser
import ForceStageService
import Foundation

extension ForceStage {
    /// `forcestage status --socket PATH`: asks a running service how it is doing.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a running service's health, counters (scans, dropped scans, events, overflows, budget violations) and latency percentiles.")

        @Option(help: "The socket the service serves (forcestage run --socket PATH).")
        var socket: String

        @Flag(help: "Print the status as one JSON line.")
        var json = false

        @Flag(help: "Print the status as Prometheus text-format metrics.")
        var prometheus = false

        func validate() throws {
            if json && prometheus { throw ValidationError("give --json or --prometheus, not both") }
        }

        func run() throws {
            let line: String
            do { line = try StatusClient.fetch(socketPath: socket) } catch {
                throw fail("status", error.description)
            }
            if prometheus {
                guard let text = PrometheusMetrics.render(statusLine: line) else { throw fail("status", "the reply from \(socket) is not a status line") }
                print(text, terminator: "")
            } else {
                print(json ? line : StatusClient.humanReadable(line))
            }
        }
    }
}
