import ArgumentParser

@main
struct ForceStage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forcestage",
        abstract: "Force-press classifier for IIO force sensors: peek, pop, release.",
        subcommands: [Emulate.self, Run.self, Record.self]
    )
}
