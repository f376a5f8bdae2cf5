import ArgumentParser
// Options, CommandFailure and emit for every file of the executable.
@_exported import ForceStageCommandLine
import ForceStageFormats
import ForceStageTools
// run and status: the service's commands, shared with forcestage-service.
@_exported import ForceStageServiceCommand

@main
struct ForceStage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forcestage",
        abstract: "Force-press classifier for IIO force sensors: peek, pop, hold, release.",
        version: forceStageVersion,
        subcommands: [
            Replay.self, Evaluate.self, Synth.self, ServiceCommands.Run.self, ServiceCommands.Status.self, Record.self, Emulate.self,
            Calibrate.self, ProfileCommand.self, Plot.self, Meter.self, Completions.self,
        ]
    )

    /// Every failure is one line and a documented exit status (``runCommandLine(_:)``).
    /// `run` and `status` exec `forcestage-service` when it is installed beside this
    /// program (the service then loads no Foundation); otherwise they run here.
    static func main() {
        ServiceExecutable.execIfInstalled(CommandLine.arguments)
        runCommandLine(Self.self)
    }
}
