import Foundation
import Testing
import TestSupport

/// The repository root.
let repositoryRoot = packageRoot

/// Runs the real `forcestage` binary.
func forcestage(_ arguments: [String]) throws -> ProcessResult {
    try runProcess([forcestageBinary.path] + arguments)
}

/// Runs an executable and collects its exit status and output.
func run(_ executable: URL, _ arguments: [String], directory: URL? = nil) throws -> ProcessResult {
    try runProcess([executable.path] + arguments, directory: directory)
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL { try makeTemporaryDirectory(prefix: "fs-tools") }
