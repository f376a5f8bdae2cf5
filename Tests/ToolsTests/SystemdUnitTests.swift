import Foundation
import TestSupport
import Testing

/// The shipped unit and its uinput drop-in, as systemd reads them.
@Suite("systemd unit and the uinput drop-in")
struct SystemdUnitTests {
    let unit = repositoryRoot.appendingPathComponent("hardware/systemd/forcestage.service")
    let dropIn = repositoryRoot.appendingPathComponent("hardware/systemd/forcestage.service.d/uinput.conf")

    func settings(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && $0.contains("=") }
    }

    @Test("the unit passes $FORCESTAGE_OUTPUTS (empty) to run and keeps /dev/uinput closed; the drop-in sets --uinput and allows the node; udev gives group forcestage the node")
    func dropInReachesExecStart() throws {
        let u = try settings(unit), d = try settings(dropIn)
        let exec = try #require(u.first { $0.hasPrefix("ExecStart=") })
        #expect(exec.hasSuffix(" $FORCESTAGE_OUTPUTS"), "the variable is its own unquoted word at the end: \(exec)")
        #expect(u.contains("Environment=FORCESTAGE_OUTPUTS="))
        #expect(u.contains("DevicePolicy=closed") && !u.contains { $0.contains("/dev/uinput") })
        #expect(d.contains("Environment=FORCESTAGE_OUTPUTS=--uinput"), "\(d)")
        #expect(d.contains("DeviceAllow=/dev/uinput rw"), "\(d)")
        #expect(!d.contains { $0.hasPrefix("ExecStart") || $0.hasPrefix("User") }, "the drop-in changes only the outputs and the device policy: \(d)")
        let rule = try String(contentsOf: repositoryRoot.appendingPathComponent("hardware/debian/61-forcestage-uinput.rules"), encoding: .utf8)
        #expect(rule.contains(#"KERNEL=="uinput""#) && rule.contains(#"GROUP="forcestage""#) && rule.contains(#"MODE="0660""#))
        #expect(u.contains("Group=forcestage"), "the rule's group is the service's own group: no SupplementaryGroups needed")
    }

    @Test("systemd-analyze verify accepts the unit with the drop-in beside it, without a warning",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") && FileManager.default.isExecutableFile(atPath: forcestageBinary.path),
                   "needs systemd-analyze and the built forcestage"))
    func verify() throws {
        let dir = URL(fileURLWithPath: "/var/tmp/forcestage-unit-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("forcestage.service.d"), withIntermediateDirectories: true)
        // The binary's path as installed is not on this machine: point ExecStart at the build,
        // in double quotes, which systemd reads as one word (the clone's path may hold spaces).
        let service = forcestageBinary.deletingLastPathComponent().appendingPathComponent("forcestage-service").path
        let text = try String(contentsOf: unit, encoding: .utf8).replacingOccurrences(of: "/usr/local/bin/forcestage-service", with: "\"\(service)\"")
        try text.write(to: dir.appendingPathComponent("forcestage.service"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: dropIn, to: dir.appendingPathComponent("forcestage.service.d/uinput.conf"))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        p.arguments = ["verify", dir.appendingPathComponent("forcestage.service").path]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = err
        try p.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0 && said.isEmpty, "systemd-analyze verify: \(said)")
    }
}
