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

        @Option(name: .customLong("timeout-ms"), help: ArgumentHelp("Milliseconds to wait for the service to accept the connection and answer (100 to 600000).", valueName: "MS"))
        var timeoutMs: Int = 3000

        /// The seconds spelling of --timeout-ms, kept working for existing scripts and hidden from help.
        @Option(name: .customLong("timeout"), help: .hidden, transform: DecimalNumber.argument)
        var timeoutSeconds: Double?

        @Flag(help: "Print the status as Prometheus text-format metrics.")
        var prometheus = false

        public init() {}

        /// The values as the one options type both programs run.
        var options: StatusOptions {
            var o = StatusOptions(socket: socket)
            o.json = json
            o.timeoutMs = timeoutMs
            o.timeoutSeconds = timeoutSeconds
            o.prometheus = prometheus
            return o
        }

        public func validate() throws {
            if let problem = options.problem { throw ValidationError(problem) }
        }

        public func run() throws { try options.execute() }
    }
}
