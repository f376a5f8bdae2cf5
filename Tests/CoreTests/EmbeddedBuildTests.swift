import Foundation
import TestSupport
import Testing

/// The core must compile as Embedded Swift for the microcontroller targets,
/// and a board's firmware built around it (hardware/firmware/Firmware.swift)
/// must link with nothing but the board's two functions, memory copies,
/// a little libm and the compiler's own runtime: no heap, no operating system.
@Suite("Embedded build")
struct EmbeddedBuildTests {
    static func swiftc() -> String {
        for candidate in ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "swiftc"
    }

    /// Every Swift file of the core, its folders included, as paths from the package root.
    static func coreSources() throws -> [String] {
        let root = packageRoot.appendingPathComponent("Sources/Core").path
        guard let files = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] else {
            throw CocoaError(.fileReadUnknown)
        }
        return files.filter { $0.hasSuffix(".swift") }.sorted().map { "Sources/Core/\($0)" }
    }

    @Test("ForceStageCore compiles with -enable-experimental-feature Embedded -wmo", arguments: ["armv7em-none-none-eabi", "riscv32-none-none-eabi"])
    func compiles(target: String) throws {
        let sources = try Self.coreSources()
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

    /// What an undefined symbol of the linked firmware may be: the board's
    /// functions, memcpy/memset (and ARM's aliases), libm's rounding, the
    /// compiler runtime's soft-float and 64-bit helpers, the stack protector.
    static func boardMaySupply(_ symbol: String) -> Bool {
        if symbol.hasPrefix("forcestage_board_") || symbol.hasPrefix("__aeabi_") || symbol.hasPrefix("__stack_chk_") { return true }
        if ["memcpy", "memset", "memmove", "ceilf", "floorf", "roundf"].contains(symbol) { return true }
        // libgcc/compiler-rt names: __addsf3, __divdi3, __fixsfdi, __floatdisf, __eqsf2 ...
        return symbol.hasPrefix("__") && (symbol.hasSuffix("sf3") || symbol.hasSuffix("di3") || symbol.hasSuffix("sf2")
            || symbol.hasSuffix("sfsi") || symbol.hasSuffix("sfdi") || symbol.hasSuffix("disf") || symbol.hasSuffix("sisf"))
    }

    @Test("A board's firmware links with no heap: only the board's functions, memcpy/memset, libm rounding and compiler-runtime helpers stay undefined",
          arguments: ["armv7em-none-none-eabi", "riscv32-none-none-eabi"])
    func firmwareLinksWithoutHeap(target: String) throws {
        let tools = URL(fileURLWithPath: Self.swiftc()).resolvingSymlinksInPath().deletingLastPathComponent()
        let lld = tools.appendingPathComponent("ld.lld").path, nm = tools.appendingPathComponent("llvm-nm").path
        try #require(FileManager.default.isExecutableFile(atPath: lld), "no ld.lld beside swiftc (\(tools.path))")
        let sources = try Self.coreSources()
        let dir = try makeTemporaryDirectory(prefix: "fs-firmware")
        defer { try? FileManager.default.removeItem(at: dir) }
        let object = dir.appendingPathComponent("firmware.o").path, image = dir.appendingPathComponent("firmware.elf").path
        let compile = try runProcess([tools.appendingPathComponent("swiftc").path, "-enable-experimental-feature", "Embedded",
                                      "-enable-experimental-feature", "Extern", "-wmo", "-Osize", "-module-name", "Firmware",
                                      "-target", target, "-Xfrontend", "-function-sections", "-c"]
                                     + sources + ["hardware/firmware/Firmware.swift", "-o", object],
                                     timeout: 600, directory: packageRoot)
        try #require(compile.status == 0, "firmware build for \(target) failed:\n\(compile.stderr)")
        let link = try runProcess([lld, "--gc-sections", "-e", "main", "--unresolved-symbols=ignore-all", "-o", image, object])
        try #require(link.status == 0, "link failed:\n\(link.stderr)")
        let undefined = try runProcess([nm, "-u", image])
        try #require(undefined.status == 0)
        let symbols = lines(undefined.stdout).compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(symbols.contains("forcestage_board_read_scan"), "the image does not reach the board's read: \(symbols)")
        #expect(symbols.contains("forcestage_board_event"))
        let foreign = symbols.filter { !Self.boardMaySupply($0) }
        #expect(foreign.isEmpty, "the firmware needs more than a bare board supplies: \(foreign)")
    }
}
