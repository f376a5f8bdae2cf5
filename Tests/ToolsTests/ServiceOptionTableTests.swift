import ForceStageServiceRun
import Foundation
import TestSupport
import Testing

/// The two parsers of `run` and `status`: `forcestage-service`'s option table
/// (``ServiceArguments/runOptions``) against every argument `forcestage`'s
/// ArgumentParser commands declare, as swift-argument-parser itself reports them
/// (`--experimental-dump-help`, the JSON its man page and completions come from).
/// An option added, renamed or re-documented on one side only fails here.
@Suite("install: forcestage-service's option table is the ArgumentParser commands' arguments")
struct ServiceOptionTableTests {
    /// What swift-argument-parser's ToolInfoV0 says of one argument (the fields compared).
    struct Declared: Decodable {
        struct Name: Decodable { var kind: String; var name: String }
        var kind: String
        var names: [Name]?
        var valueName: String?
        var defaultValue: String?
        var allValues: [String]?
        var isOptional: Bool
        var isRepeating: Bool
        var abstract: String?
        var shouldDisplay: Bool?

        var longName: String? { names?.first { $0.kind == "long" }?.name }
    }

    struct Command: Decodable {
        var commandName: String
        var arguments: [Declared]?
        var subcommands: [Command]?
    }

    struct Dump: Decodable { var command: Command }

    /// The arguments `forcestage SUBCOMMAND` declares, without the help and version flags every command gets.
    /// From the root's dump: `forcestage run ...` would exec the forcestage-service beside it.
    static func declared(_ subcommand: String) throws -> [Declared] {
        let r = try forcestage(["--experimental-dump-help"])
        try #require(r.status == 0, "forcestage --experimental-dump-help: \(r.stderr)")
        let dump = try JSONDecoder().decode(Dump.self, from: Data(r.stdout.utf8))
        let command = try #require(dump.command.subcommands?.first { $0.commandName == subcommand }, "forcestage has no \(subcommand)")
        return (command.arguments ?? []).filter { !["help", "version"].contains($0.longName ?? "") }
    }

    @Test("run and status: the same options in the same order, each with the same kind, value name, help, default, values, optionality and visibility in help",
          arguments: ["run", "status"])
    func sameArguments(subcommand: String) throws {
        let table = subcommand == "run" ? ServiceArguments.runOptions : ServiceArguments.statusOptions
        let declared = try Self.declared(subcommand)
        #expect(table.count >= (subcommand == "run" ? 20 : 4), "the table lost options: \(table.map(\.name))")
        // Names first, in order: a missing or extra option is named in the message.
        let declaredNames = declared.map { $0.longName ?? "<\($0.kind) without a long name>" }
        #expect(table.map(\.name) == declaredNames,
                "forcestage-service \(subcommand) has \(Set(table.map(\.name)).subtracting(declaredNames).sorted()) that forcestage lacks; forcestage has \(Set(declaredNames).subtracting(table.map(\.name)).sorted()) that forcestage-service lacks; or the order differs")
        for (row, argument) in zip(table, declared) where row.name == argument.longName {
            let isFlag = row.valueName == nil
            #expect(argument.kind == (isFlag ? "flag" : "option"), "--\(row.name): a \(argument.kind) in forcestage, a \(isFlag ? "flag" : "option") in forcestage-service")
            if !isFlag {
                #expect(argument.valueName == row.valueName, "--\(row.name): value name \(argument.valueName ?? "none") in forcestage, \(row.valueName!) in forcestage-service")
                #expect(argument.defaultValue == row.defaultText, "--\(row.name): default \(argument.defaultValue ?? "none") in forcestage, \(row.defaultText ?? "none") in forcestage-service")
            } else {
                // A Bool flag's default is false on both sides; the table shows none.
                #expect(row.defaultText == nil && [nil, "false"].contains(argument.defaultValue), "--\(row.name): flag default \(argument.defaultValue ?? "none")")
            }
            #expect((argument.abstract ?? "") == row.help, "--\(row.name): help differs:\n  forcestage:         \(argument.abstract ?? "none")\n  forcestage-service: \(row.help)")
            #expect((argument.allValues ?? []) == row.values, "--\(row.name): values \(argument.allValues ?? []) in forcestage, \(row.values) in forcestage-service")
            #expect(argument.isOptional == !row.isRequired, "--\(row.name): \(argument.isOptional ? "optional" : "required") in forcestage, \(row.isRequired ? "required" : "optional") in forcestage-service")
            #expect((argument.shouldDisplay ?? true) == !row.isHidden, "--\(row.name): \(argument.shouldDisplay == false ? "hidden" : "shown") in forcestage's help, \(row.isHidden ? "hidden" : "shown") in forcestage-service's")
            #expect(!argument.isRepeating, "--\(row.name) repeats in forcestage; forcestage-service's parser keeps the last value only")
        }
    }
}
