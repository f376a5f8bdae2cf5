import Foundation
import TestSupport
import Testing

/// One block of the README's five-minute tour: a fenced block whose info string is
/// `sh tour` (or `sh tour emulator`, for one that needs the kernel emulator), the
/// `###` heading it sits under, and its `# prints:` lines, each a line the block
/// must write to standard output.
struct TourBlock: Sendable, CustomTestStringConvertible {
    var title: String
    var line: Int
    var script: String
    var needsEmulator: Bool
    var expectedLines: [String]

    var testDescription: String { "\(title) (README.md:\(line))" }

    static let marker = "# prints: "

    /// The tour blocks of a README's text, in order.
    static func parse(_ text: String) -> [TourBlock] {
        var blocks: [TourBlock] = []
        var title = "(no heading)"
        var current: (info: [Substring], line: Int, body: [String])?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var block = current {
                if line.hasPrefix("```") {
                    let expected = block.body.filter { $0.hasPrefix(marker) }.map { String($0.dropFirst(marker.count)) }
                    blocks.append(TourBlock(title: title, line: block.line, script: block.body.joined(separator: "\n") + "\n",
                                            needsEmulator: block.info.contains("emulator"), expectedLines: expected))
                    current = nil
                } else {
                    block.body.append(String(line))
                    current = block
                }
            } else if line.hasPrefix("### ") {
                title = String(line.dropFirst(4))
            } else if line.hasPrefix("```") {
                let info = line.dropFirst(3).split(separator: " ")
                if info.first == "sh" && info.contains("tour") { current = (info, index + 1, []) }
            }
        }
        return blocks
    }

    static let readme = packageRoot.appendingPathComponent("README.md")
    static let all: [TourBlock] = ((try? String(contentsOf: readme, encoding: .utf8)) ?? "").map { parse($0) } ?? []
}

/// The README's tour, run as a reader runs it: each block with bash, the built
/// `forcestage` (and `forcestage-bench`) first on PATH, from a fresh folder that
/// holds the clone's `hardware/` and `calibration/`, so the README cannot drift
/// from the program.
@Suite("README tour")
struct ReadmeTourTests {
    @Test("The README's tour covers its four tasks, each block with a line it prints")
    func tourIsThere() throws {
        let blocks = TourBlock.all
        #expect(blocks.count >= 4, "README.md has \(blocks.count) `sh tour` blocks")
        for block in blocks {
            #expect(!block.expectedLines.isEmpty, "\(block.testDescription) states no `\(TourBlock.marker)` line")
        }
        #expect(blocks.contains { $0.needsEmulator }, "no tour block runs through the emulator")
    }

    @Test("The README stays a page read in five minutes: at most 250 lines, the rest in docs/")
    func readmeIsShort() throws {
        let text = try String(contentsOf: TourBlock.readme, encoding: .utf8)
        let count = text.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(count <= 250, "README.md has \(count) lines")
    }

    @Test("A tour block runs as written and prints its lines", arguments: TourBlock.all.filter { !$0.needsEmulator })
    func plainBlock(_ block: TourBlock) throws {
        try Self.run(block)
    }

    @Test("A tour block that plays a recording through the emulator runs as written and prints its lines",
          .enabled(if: emulatorAvailable, "needs root and `unshare -m` for `forcestage emulate`"),
          arguments: TourBlock.all.filter { $0.needsEmulator })
    func emulatorBlock(_ block: TourBlock) throws {
        try Self.run(block)
    }

    /// How long a block may run: far above the few seconds each takes, a bound on a failure only.
    static let blockSeconds = 60

    /// Runs one block with bash (`-euo pipefail`: any command that fails fails the
    /// block) in a fresh folder, standard input not a terminal, and checks its exit
    /// status and every `# prints:` line.
    static func run(_ block: TourBlock) throws {
        let dir = try makeTemporaryDirectory(prefix: "fs-tour")
        defer { try? FileManager.default.removeItem(at: dir) }
        for folder in ["hardware", "calibration"] {
            try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent(folder),
                                                       withDestinationURL: packageRoot.appendingPathComponent(folder))
        }
        let script = dir.appendingPathComponent("tour.sh")
        try block.script.write(to: script, atomically: true, encoding: .utf8)
        let programs = [forcestageBinary, builtExecutable("forcestage-bench")].compactMap { $0?.deletingLastPathComponent().path }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (programs + [environment["PATH"] ?? "/usr/bin:/bin"]).joined(separator: ":")
        // `timeout` runs the block in a process group of its own and ends the whole
        // group, so a block whose wait never ends fails without leaving its
        // background emulator behind.
        let r = try runProcess(["/usr/bin/timeout", "--kill-after=5", String(Self.blockSeconds),
                                "/bin/bash", "-c", "exec /bin/bash -euo pipefail \"$0\" </dev/null", script.path],
                               timeout: Double(Self.blockSeconds + 20), environment: environment, directory: dir)
        // 124: timeout's TERM ended it; 9 and 137: its KILL did.
        #expect(![124, 137, 9].contains(r.status), "\(block.testDescription) was still running after \(Self.blockSeconds) s")
        #expect(r.status == 0, "\(block.testDescription) exited \(r.status)\nstderr:\n\(r.stderr)")
        for expected in block.expectedLines {
            #expect(r.stdout.contains(expected), "\(block.testDescription) did not print \"\(expected)\"\nstdout:\n\(r.stdout)\nstderr:\n\(r.stderr)")
        }
    }
}
