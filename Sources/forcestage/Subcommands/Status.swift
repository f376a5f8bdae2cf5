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

        func run() throws {
            let line: String
            do { line = try StatusClient.fetch(socketPath: socket) } catch {
                throw fail("status", error.description)
            }
            print(json ? line : StatusClient.humanReadable(line))
        }
    }
}
