import Foundation
import Testing

// What every test target shares. Product code knows nothing of it: the tests
// reach the program the way a user does, by running the built binaries.

/// The package root, found from this file's path (Tests/Support/TestSupport.swift).
public let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `../shared/recordings` beside the clone: present in CI, absent in a user's clone.
public let sharedRecordings = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/recordings")
public let sharedRecordingsPresent = FileManager.default.fileExists(atPath: sharedRecordings.path)
/// Why a test skips its cross-check against the shared recordings.
public let sharedSkipReason: Comment = "../shared/recordings is absent (it sits beside the clone in CI only); skipping the cross-check against the independent recordings"

/// A built executable of this package (`forcestage`, `forcestage-bench`):
/// beside the running test bundle first, then `.build/debug`, then `.build/release`.
public func builtExecutable(_ name: String) -> URL? {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [here, here.deletingLastPathComponent()].map { $0.appendingPathComponent(name) }
        + ["debug", "release"].map { packageRoot.appendingPathComponent(".build/\($0)/\(name)") }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// Whether this machine can run the emulator: root and a working `unshare -m`.
public let emulatorAvailable: Bool = {
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    return (try? runProcess(["/usr/bin/unshare", "-m", "--propagation", "private", "true"], timeout: 10).status) == 0
}()

/// A fresh directory under /tmp with a short name (Unix socket paths are limited to 107 bytes).
public func makeTemporaryDirectory(prefix: String = "fs-test") throws -> URL {
    let dir = URL(fileURLWithPath: "/tmp/\(prefix)-\(UUID().uuidString.prefix(12))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// How a process ended and what it wrote.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a real process with its output in files (no pipe to fill and stall
/// it), killed after `timeout` seconds.
public func runProcess(_ arguments: [String], timeout: Double = 120, environment: [String: String]? = nil,
                       directory: URL? = nil) throws -> ProcessResult {
    let dir = try makeTemporaryDirectory(prefix: "fs-run")
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let p = try launchRetryingBusyText {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: arguments[0])
        p.arguments = Array(arguments.dropFirst())
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = directory }
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        return p
    }
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(20_000) }
    if p.isRunning { kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
    return ProcessResult(status: p.terminationStatus,
                         stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                         stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// Starts the process `make` builds. A binary a test has just copied can be
/// "busy" for a moment: another test thread that forked while the copy's file
/// was open for writing holds that descriptor in its child until the child's
/// exec. In that case only, a fresh process (a `Process` runs once) is tried
/// again for up to a second.
public func launchRetryingBusyText(_ make: () throws -> Process) throws -> Process {
    var attempt = 0
    while true {
        let p = try make()
        do {
            try p.run()
            return p
        } catch let error as NSError where attempt < 50 && isTextFileBusy(error) {
            attempt += 1
            usleep(20_000)
        }
    }
}

/// Whether `error` is ETXTBSY, directly or as the underlying POSIX error.
private func isTextFileBusy(_ error: NSError) -> Bool {
    if error.domain == NSPOSIXErrorDomain { return error.code == Int(ETXTBSY) }
    guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError else { return false }
    return underlying.domain == NSPOSIXErrorDomain && underlying.code == Int(ETXTBSY)
}

/// Non-empty lines.
public func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
}

/// The built `forcestage` executable (`.build/debug/forcestage` when none is built yet, so a test fails naming it).
public let forcestageBinary: URL = builtExecutable("forcestage") ?? packageRoot.appendingPathComponent(".build/debug/forcestage")

/// `text` as one word of a POSIX shell command line (single quotes, `'\''` for a quote), so a
/// path with spaces or non-ASCII letters (a clone under `/tmp/fs tëst.d/p`) stays one argument.
public func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
