import ArgumentParser

@main
struct ForceStage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forcestage",
        abstract: "Force-press classifier for IIO force sensors: peek, pop, release.",
        subcommands: [
            Replay.self, Evaluate.self, Bench.self, Synth.self, Run.self, Status.self, Record.self, Emulate.self,
            Calibrate.self, ProfileCommand.self, Plot.self, Meter.self,
        ]
    )
}
