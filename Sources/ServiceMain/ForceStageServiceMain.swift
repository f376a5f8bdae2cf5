import ArgumentParser
import ForceStageCommandLine
import ForceStageFormats
import ForceStageServiceCommand

/// `forcestage-service`: `forcestage run` and `forcestage status` in a program that
/// links no Foundation (only FoundationEssentials), so the long-lived service does
/// not load Foundation and ICU (README, "Footprint"). `forcestage run|status` execs it
/// when it is installed beside `forcestage`; the systemd unit starts it directly.
/// Its commands are the same code as `forcestage`'s, so they print as `forcestage run`.
@main
struct ForceStageServiceMain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forcestage",
        abstract: "The service commands of forcestage (run, status), in a program without Foundation.",
        version: forceStageVersion,
        subcommands: [ServiceCommands.Run.self, ServiceCommands.Status.self]
    )

    /// Every failure is one line and a documented exit status (``runCommandLine(_:)``).
    static func main() { runCommandLine(Self.self) }
}
