import ArgumentParser

extension CompletionShell: @retroactive ExpressibleByArgument {}

extension ForceStage {
    /// `forcestage completions SHELL`: the completion script for bash, zsh or fish.
    struct Completions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the shell completion script for bash, zsh or fish.",
            discussion: """
            Install it where your shell looks: bash, /usr/share/bash-completion/completions/forcestage; \
            zsh, a directory on $fpath as _forcestage; fish, ~/.config/fish/completions/forcestage.fish. \
            The Debian package installs all three.
            """)

        @Argument(help: "The shell: bash, zsh or fish.")
        var shell: CompletionShell

        func run() throws {
            print(ForceStage.completionScript(for: shell), terminator: "")
        }
    }
}
