import ArgumentParser
// Options, CommandFailure and emit for every file of the executable.
@_exported import ForceStageCommandLine
import ForceStageFormats
import ForceStageTools

@main
struct ForceStage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forcestage",
        abstract: "Force-press classifier for IIO force sensors: peek, pop, release.",
        version: forceStageVersion,
        subcommands: [
            Replay.self, Evaluate.self, Synth.self, Run.self, Status.self, Record.self, Emulate.self,
            Calibrate.self, ProfileCommand.self, Plot.self, Meter.self, Completions.self,
        ]
    )

    /// Every failure is one line and a documented exit status (``runCommandLine(_:)``).
    static func main() { runCommandLine(Self.self) }
}
