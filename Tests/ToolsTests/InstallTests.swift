import ForceStageFormats
import ForceStageTools
import Foundation
import TestSupport
import Testing

/// The shipped program as an installer places it: on its own, without the build tree.
@Suite("install: the forcestage binary on its own")
struct InstallTests {
    @Test("forcestage links no malloc-interposer and every shared library it needs resolves")
    func sharedLibraries() throws {
        let r = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [forcestageBinary.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count > 1, "ldd listed nothing: \(r.stdout)")
        #expect(!r.stdout.localizedCaseInsensitiveContains("mallocinterposer"), "\(r.stdout)")
        #expect(!r.stdout.contains("not found"), "\(r.stdout)")
        // Nothing may come from the build tree: a copy elsewhere would not find it.
        let buildTree = forcestageBinary.deletingLastPathComponent().path
        #expect(!lines.contains { $0.contains(buildTree) }, "\(r.stdout)")
    }

    @Test("forcestage-service (run, status) loads no Foundation library: Foundation, FoundationEssentials, FoundationInternationalization, Foundation's ICU")
    func serviceWithoutFoundation() throws {
        let service = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-service")
        let r = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [service.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count > 1, "ldd listed nothing: \(r.stdout)")
        #expect(!r.stdout.contains("not found"), "\(r.stdout)")
        for library in ["libFoundation.so", "libFoundationEssentials.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!lines.contains { $0.contains(library) }, "forcestage-service loads \(library)")
        }
        // The same version as forcestage: built from the same tree.
        let version = try run(service, ["--version"])
        #expect(version.status == 0 && version.stdout == forceStageVersion + "\n", "\(version.stdout)\(version.stderr)")
    }

    @Test("forcestage run and status exec the forcestage-service beside forcestage, with the same arguments; without one they run in-process")
    func runExecsService() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("forcestage")
        try FileManager.default.copyItem(at: forcestageBinary, to: copy)
        // Alone: status runs in forcestage itself (no service at the socket: exit 1, one line).
        let alone = try run(copy, ["status", "--socket", "/nonexistent/fs.sock"])
        #expect(alone.status == 1 && alone.stderr.hasPrefix("forcestage status: cannot connect to /nonexistent/fs.sock"), "\(alone.stderr)")
        // Beside a stand-in that prints what it was given: run and status go to it, other commands do not.
        let standIn = dir.appendingPathComponent("forcestage-service")
        try "#!/bin/sh\necho \"stand-in $*\"\n".write(to: standIn, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: standIn.path)
        for arguments in [["run", "--socket", "/run/x.sock", "--no-stdout"], ["status", "--socket", "/run/x.sock", "--json"]] {
            let r = try run(copy, arguments)
            #expect(r.status == 0 && r.stdout == "stand-in \(arguments.joined(separator: " "))\n", "\(r.stdout)\(r.stderr)")
        }
        let version = try run(copy, ["--version"])
        #expect(version.stdout == forceStageVersion + "\n", "\(version.stdout)")
    }

    /// Command lines whose answer is decided by parsing and checking alone (no device,
    /// no service): help, every range check, bad and missing values, unknown options
    /// (with and without a suggestion), unexpected arguments and the order of those checks.
    static let parsingCases: [[String]] = [
        [], ["--help"], ["help", "run"], ["help", "status"], ["--bogus"], ["bogus"], ["--version"],
        ["run", "--help"], ["run", "-h"], ["status", "--help"], ["run", "--version"],
        ["run", "--bogus"], ["run", "--budgetms", "5"], ["run", "--budget-ms"], ["run", "--budget-ms", "abc"],
        ["run", "--budget-ms", "-5"], ["run", "--budget-ms=-5"], ["run", "--budget-ms="], ["run", "--budget-ms", "nan"],
        ["run", "--scans-per-refill", "0"], ["run", "--scans-per-refill", "1.5"], ["run", "--kernel-buffers", "0"],
        ["run", "--timeouts-before-lost", "0"], ["run", "--client-queue", "70000"], ["run", "--max-clients", "2000"],
        ["run", "--no-stdout"], ["run", "--metrics-interval", "0.01"], ["run", "--progress-hz", "2000"],
        ["run", "--haptics-test", "0"], ["run", "--haptics-test", "5"], ["run", "--log-level", "loud"],
        ["run", "--timeout-ms", "99999999999"], ["run", "--uri", "foo:"], ["run", "--profile", "a", "--calibration", "b"],
        ["run", "--rate", "0"], ["run", "--rate", "nan"], ["run", "--trigger", "bogus:"], ["run", "--trigger", "hrtimer:0"],
        ["run", "--blocking=1"], ["run", "extra"], ["run", "extra", "more"], ["run", "--", "--x"], ["run", "-x"],
        ["run", "--kernel-buffers", "0", "--bogus"], ["run", "--bogus", "--kernel-buffers", "x"], ["run", "--kernel-buffers", "0", "extra"],
        ["run", "--haptics-test", "5", "--profile", "/nonexistent/p.toml"],
        ["status"], ["status", "--socket"], ["status", "--json"], ["status", "--socket", "/x", "--timeout", "0"],
        ["status", "--socket", "/x", "--timeout-ms", "5"], ["status", "--socket", "/x", "--timeout-ms", "1.5"],
        ["status", "--socket", "/x", "--timeout", "abc"], ["status", "--socket", "/x", "--timeout"], ["status", "--socket", "/nonexistent/fs.sock", "--timeout", "0.5"],
        ["status", "--socket", "/x", "--json", "--prometheus"], ["status", "--socket", "/x", "--jsn"],
        ["status", "--socket", "/nonexistent/fs.sock"],
    ]

    @Test("forcestage-service parses run and status as forcestage's ArgumentParser commands do: same output, messages and exit statuses")
    func serviceParsesAsForcestage() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // forcestage alone parses with ArgumentParser in-process; the service with its own parser.
        let alone = dir.appendingPathComponent("forcestage")
        try FileManager.default.copyItem(at: forcestageBinary, to: alone)
        let service = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-service")
        for columns in ["80", "132"] {
            for arguments in Self.parsingCases {
                let environment = ["COLUMNS": columns, "PATH": "/usr/bin:/bin"]
                let expected = try runProcess([alone.path] + arguments, environment: environment)
                var got = try runProcess([service.path] + arguments, environment: environment)
                // forcestage-service names itself; under forcestage's name (the exec from `forcestage run`) it says forcestage.
                got.stdout = got.stdout.replacingOccurrences(of: "forcestage-service", with: "forcestage")
                got.stderr = got.stderr.replacingOccurrences(of: "forcestage-service", with: "forcestage")
                // The root command differs by design (forcestage has every subcommand): compare status only there.
                let root = arguments.first.map { !["run", "status", "help"].contains($0) } ?? true || arguments == ["help"]
                #expect(got.status == expected.status, "\(arguments): status \(got.status), forcestage \(expected.status)")
                if !root {
                    #expect(got.stdout == expected.stdout, "\(arguments) at \(columns) columns: stdout differs:\n\(got.stdout)\n---\n\(expected.stdout)")
                    #expect(got.stderr == expected.stderr, "\(arguments): stderr differs: \(got.stderr) / \(expected.stderr)")
                }
            }
        }
    }

    @Test("forcestage-service names itself in its help and usage lines; under forcestage's name it says forcestage")
    func serviceNamesItself() throws {
        let service = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-service")
        let help = try runProcess([service.path, "--help"], environment: ["COLUMNS": "80"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: forcestage-service <subcommand>"), "\(help.stdout)")
        #expect(help.stdout.contains("See 'forcestage-service help <subcommand>'"), "\(help.stdout)")
        let runHelp = try runProcess([service.path, "run", "--help"], environment: ["COLUMNS": "80"])
        #expect(runHelp.stdout.contains("USAGE: forcestage-service run"), "\(runHelp.stdout)")
        let usage = try runProcess([service.path, "status", "--jsn"])
        #expect(usage.status == 64 && usage.stderr.hasPrefix("forcestage-service status: "), "\(usage.stderr)")
        // Exec'd from forcestage (the same argv[0]): forcestage's words.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("forcestage")
        try FileManager.default.copyItem(at: forcestageBinary, to: copy)
        try FileManager.default.copyItem(at: service, to: dir.appendingPathComponent("forcestage-service"))
        let viaForcestage = try runProcess([copy.path, "status", "--help"], environment: ["COLUMNS": "80"])
        #expect(viaForcestage.stdout.contains("USAGE: forcestage status"), "\(viaForcestage.stdout)")
    }

    @Test("A usage error is one line ending in `; see ... --help`, never `.;`, in both programs",
          arguments: [["run", "--kernel-buffers", "x"], ["run", "--log-level", "loud"], ["status"], ["run", "--blocking=1"]])
    func usageLineHasNoStrayStop(arguments: [String]) throws {
        let service = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-service")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = dir.appendingPathComponent("forcestage")
        try FileManager.default.copyItem(at: forcestageBinary, to: alone)
        for program in [alone, service] {
            let r = try runProcess([program.path] + arguments)
            #expect(r.status == 64, "\(program.lastPathComponent) \(arguments): \(r.stderr)")
            #expect(lines(r.stderr).count == 1 && r.stderr.hasSuffix(" --help`\n"), "\(r.stderr)")
            #expect(!r.stderr.contains(".;"), "\(program.lastPathComponent) \(arguments): \(r.stderr)")
        }
    }

    @Test("A copy in an empty directory, run from /, prints the version")
    func copiedBinaryRuns() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("forcestage")
        try FileManager.default.copyItem(at: forcestageBinary, to: copy)
        let r = try run(copy, ["--version"], directory: URL(fileURLWithPath: "/"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == forceStageVersion + "\n", "\(r.stdout)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    @Test("forcestage-bench states the same version")
    func benchVersion() throws {
        let r = try forcestageBench(["--version"])
        #expect(r.status == 0 && r.stdout == forceStageVersion + "\n", "\(r.stdout)\(r.stderr)")
    }

    @Test("Completion scripts for bash, zsh and fish; bash's parses", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) throws {
        let r = try forcestage(["completions", shell])
        #expect(r.status == 0, "\(r.stderr)")
        let marker = ["bash": "complete -o filenames -F", "zsh": "#compdef forcestage", "fish": "complete -c 'forcestage'"][shell]!
        #expect(r.stdout.contains(marker), "\(r.stdout.prefix(300))")
        // Every subcommand is offered.
        for sub in ["run", "status", "replay", "evaluate", "completions"] {
            #expect(r.stdout.contains(sub), "\(sub) missing from the \(shell) script")
        }
        #expect(!r.stdout.contains("bench"), "the bench is not a forcestage subcommand any more")
        if shell == "bash" {
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let script = dir.appendingPathComponent("forcestage.bash")
            try r.stdout.write(to: script, atomically: false, encoding: .utf8)
            let syntax = try run(URL(fileURLWithPath: "/bin/bash"), ["-n", script.path])
            #expect(syntax.status == 0, "\(syntax.stderr)")
        }
    }

    @Test("An unknown shell is refused with the choices and a usage exit code")
    func unknownShell() throws {
        let r = try forcestage(["completions", "tcsh"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("'tcsh' is invalid") && r.stderr.contains("bash"), "\(r.stderr)")
    }
}
