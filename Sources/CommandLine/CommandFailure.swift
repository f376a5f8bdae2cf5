import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
// ExitStatus, CommandFailure, printError and emit live in ForceStageFormats, where
// the service's modules (which link no ArgumentParser) use them too.
@_exported import ForceStageFormats

/// Parses, validates and runs `Root` (a program's root command); every failure
/// is one line naming the program and subcommand, and a documented
/// ``ExitStatus`` (help and version print as usual). Called from each
/// program's `main()`.
public func runCommandLine<Root: ParsableCommand>(_ root: Root.Type) -> Never {
    let program = Root.configuration.commandName ?? "forcestage"
    var arguments = Array(CommandLine.arguments.dropFirst())
    // The subcommand path as typed (`profile which`), for messages.
    var named: [String] = []
    var current: any ParsableCommand.Type = Root.self
    for word in arguments {
        guard let next = current.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
        named.append(word)
        current = next
    }
    let who = ([program] + named).joined(separator: " ")
    var command: any ParsableCommand
    do {
        command = try parseTakingNegativeValues(Root.self, &arguments)
    } catch {
        let code = Root.exitCode(for: error)
        guard code != .success else { Root.exit(withError: error) }  // --help, --version
        var message = Root.message(for: error).replacingScalars("\n", with: " ").trimmingSpaces()
        if message.hasPrefix("Error: ") { message.removeFirst(7) }
        printError(usageLine(who, message))
        exit(ExitStatus.usage.rawValue)
    }
    do {
        try command.run()
    } catch var failure as CommandFailure {
        if failure.command == nil { failure.command = who }
        printError(failure.description)
        exit(failure.status.rawValue)
    } catch let code as ExitCode {
        exit(code.rawValue)
    } catch let error as ValidationError {
        printError(usageLine(who, error.message))
        exit(ExitStatus.usage.rawValue)
    } catch where Root.exitCode(for: error) == .success {
        Root.exit(withError: error)  // `help`, --help inside a command
    } catch {
        printError("\(who): internal error: \(error); please report it with the command line")
        exit(ExitStatus.internalError.rawValue)
    }
    exit(0)
}

/// `Root.parseAsRoot(arguments)`, except that an option given a negative
/// number (`--from -1`) gets it as its value, as `--from=-1` would, so the
/// option's own check refuses it by its range instead of ArgumentParser's
/// "Missing value". Words after `--` are left alone.
private func parseTakingNegativeValues<Root: ParsableCommand>(_ root: Root.Type, _ arguments: inout [String]) throws -> any ParsableCommand {
    for _ in 0...arguments.count {
        do {
            return try Root.parseAsRoot(arguments)
        } catch {
            let message = Root.message(for: error)
            let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
            guard let i = arguments[..<end].indices.first(where: { i in
                      i + 1 < end && OptionBounds.isNegativeValue(arguments[i + 1]) && arguments[i].hasPrefix("--")
                          && !arguments[i].contains("=") && message.contains("Missing value for '\(arguments[i]) ")
                  }) else { throw error }
            arguments[i] += "=" + arguments[i + 1]
            arguments.remove(at: i + 1)
        }
    }
    return try Root.parseAsRoot(arguments)
}
