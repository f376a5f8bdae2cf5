import ArgumentParser
import ForceStageCommandLine
import ForceStageFormats
import ForceStageServiceRun

extension ServiceCommands {
    /// `forcestage status --socket PATH`: asks a running service how it is doing.
    public struct Status: ParsableCommand {
        public static let configuration = CommandConfiguration(
            abstract: RunHelp.statusAbstract)

        @Option(help: "The socket the service serves (forcestage run --socket PATH).")
        var socket: String

        @Flag(help: "Print the status as one JSON line.")
        var json = false

        @Option(name: .customLong("timeout"), help: ArgumentHelp("Seconds to wait for the service to accept the connection and answer (0.1 to 600).", valueName: "timeout"))
        var timeoutArgument: DecimalArgument = 3
        var timeout: Double { timeoutArgument.value }

        @Flag(help: "Print the status as Prometheus text-format metrics.")
        var prometheus = false

        public init() {}

        /// The values as the one options type both programs run.
        var options: StatusOptions {
            var o = StatusOptions(socket: socket)
            o.json = json
            o.timeout = timeout
            o.prometheus = prometheus
            return o
        }

        public func validate() throws {
            if let problem = options.problem { throw ValidationError(problem) }
        }

        public func run() throws { try options.execute() }
    }
}
