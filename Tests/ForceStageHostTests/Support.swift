import Foundation
import Testing

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `../shared/recordings` beside the clone: present in CI, absent in a user's clone.
let sharedRecordings = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/recordings")
let sharedRecordingsPresent = FileManager.default.fileExists(atPath: sharedRecordings.path)
let sharedSkipReason: Comment = "../shared/recordings is absent (it sits beside the clone in CI only); skipping the cross-check against the independent recordings"

/// The built `forcestage` executable, beside the test bundle.
let forcestageBinary: URL = {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for dir in [here, here.deletingLastPathComponent()] {
        let candidate = dir.appendingPathComponent("forcestage")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return repositoryRoot.appendingPathComponent(".build/debug/forcestage")
}()

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real `forcestage` binary.
func forcestage(_ arguments: [String]) throws -> ProcessResult {
    try run(forcestageBinary, arguments)
}

/// Runs an executable and collects its exit status and output.
func run(_ executable: URL, _ arguments: [String], directory: URL? = nil) throws -> ProcessResult {
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    if let directory { p.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ProcessResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("forcestage-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
