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

    @Test("forcestage-service (run, status) loads no Foundation, FoundationInternationalization or Foundation's ICU")
    func serviceWithoutFoundation() throws {
        let service = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-service")
        let r = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [service.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count > 1, "ldd listed nothing: \(r.stdout)")
        #expect(!r.stdout.contains("not found"), "\(r.stdout)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
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
