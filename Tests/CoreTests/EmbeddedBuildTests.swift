import Foundation
import TestSupport
import Testing

/// The core must compile as Embedded Swift for the microcontroller targets,
/// and its code must not call the allocator (only the embedded runtime's
/// own allocation entry points may mention it).
@Suite("Embedded build")
struct EmbeddedBuildTests {
    static func swiftc() -> String {
        for candidate in ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "swiftc"
    }

    @Test("ForceStageCore compiles with -enable-experimental-feature Embedded -wmo", arguments: ["armv7em-none-none-eabi", "riscv32-none-none-eabi"])
    func compiles(target: String) throws {
        let sources = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Sources/Core").path)
            .filter { $0.hasSuffix(".swift") }.sorted().map { "Sources/Core/\($0)" }
        #expect(sources.count >= 8)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("forcestage-core-\(target)-\(UUID().uuidString).o")
        defer { try? FileManager.default.removeItem(at: out) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [Self.swiftc(), "-enable-experimental-feature", "Embedded", "-wmo", "-Osize", "-parse-as-library",
                       "-target", target, "-module-name", "ForceStageCore", "-c"] + sources + ["-o", out.path]
        p.currentDirectoryURL = packageRoot
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "embedded build for \(target) failed:\n\(message)")
        #expect(FileManager.default.fileExists(atPath: out.path))
    }
}
