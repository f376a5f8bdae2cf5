import Foundation
import Testing
import ForceStageCore
import ForceStageHost
import ForceStageService

/// Whether this kernel offers uinput (the QEMU kernel harness does; many containers do not).
let uinputPresent = FileManager.default.fileExists(atPath: "/dev/uinput")

/// `forcestage run --uinput` in the emulator, read back through evdev.
@Suite("run --uinput in the emulator", .serialized, .enabled(if: emulatorAvailable && forcestage != nil,
       "needs root, `unshare -m`, and the built forcestage binary"))
struct UInputServiceTests {
    let fs = forcestage ?? ""

    @Test("Without /dev/uinput: one line naming the node and what to load, exit 1",
          .enabled(if: !uinputPresent, "this kernel has /dev/uinput; the end-to-end test below covers it"))
    func refusedWithoutUInput() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 50, presses: 1)
        let profile = dir.appendingPathComponent("panel.toml")
        try profileText(peek: 1.0, pop: 2.5).write(to: profile, atomically: true, encoding: .utf8)
        let r = try runProcess([fs, "emulate", url.path, "--", fs, "run", "--profile", profile.path, "--uinput"], in: dir)
        #expect(r.status == 1, "\(r.stderr)")
        let errors = lines(r.stderr).filter { $0.hasPrefix("forcestage run:") }
        #expect(errors.count == 1, "\(r.stderr)")
        #expect(errors.first?.contains("cannot open /dev/uinput: No such file or directory") == true, "\(r.stderr)")
        #expect(errors.first?.contains("modprobe uinput") == true, "\(r.stderr)")
        #expect(r.stdout.isEmpty, "no events before the refusal")
    }

    @Test("With /dev/uinput: the device is named after the panel, BTN_TOUCH/BTN_LEFT/KEY_ENTER and ABS_PRESSURE arrive in order, and it goes away at exit",
          .enabled(if: uinputPresent, "this kernel has no /dev/uinput (modprobe uinput; CONFIG_INPUT_UINPUT); the QEMU kernel harness runs this"))
    func evdevReadBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (url, _) = try writePressTrain(in: dir, leadIn: 750, presses: 3, hold: 40, rest: 60)
        let profile = dir.appendingPathComponent("panel.toml")
        try profileText(peek: 1.0, pop: 2.5, extra: "[uinput]\npeek = \"BTN_LEFT\"\npop = \"KEY_ENTER\"\nmax_newtons = 5")
            .write(to: profile, atomically: true, encoding: .utf8)
        let service = try Running([fs, "emulate", "--speed", "2", url.path, "--", fs, "run", "--profile", profile.path,
                                   "--uinput", "--exit-on-timeout"], in: dir)
        defer { if service.process.isRunning { kill(service.process.processIdentifier, SIGKILL) } }
        var node: String?
        #expect(waitUntil(20) {
            node = service.stderr.firstMatch(of: /uinput\.device=(\/dev\/input\/event[0-9]+)/).map { String($0.1) }
            return node != nil
        }, "\(service.stderr)")
        let path = try #require(node)
        let reader = try EvdevReader(path: path)
        #expect(reader.name == "ForceStage test-panel")
        #expect(reader.absMaximum(InputCodes.absPressure) == 5000)
        var records: [InputEventRecord] = []
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && records.filter({ $0 == InputEventRecord(1, InputCodes.btnTouch, 0) }).count < 3 {
            records += reader.read(timeoutMs: 200)
        }
        let keys = records.filter { $0.type == InputCodes.evKey }.map { "\(InputCodes.name(of: $0.code))=\($0.value)" }
        let press = ["BTN_TOUCH=1", "BTN_LEFT=1", "KEY_ENTER=1", "KEY_ENTER=0", "BTN_LEFT=0", "BTN_TOUCH=0"]
        #expect(Array(keys.prefix(18)) == press + press + press, "\(keys)")
        let pressures = records.filter { $0.type == InputCodes.evAbs && $0.code == InputCodes.absPressure }.map(\.value)
        #expect(pressures.contains { $0 > 2500 && $0 <= 5000 }, "a pop's pressure: \(pressures)")
        #expect(service.wait(timeout: 60) == 0, "\(service.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path) || (try? EvdevReader(path: path))?.name != "ForceStage test-panel",
                "the device is removed at exit")
    }
}

/// `run --haptics-test`: the refusals this machine can exercise (it has no actuator).
@Suite("run --haptics-test", .enabled(if: forcestage != nil, "needs the built forcestage binary"))
struct HapticsCommandTests {
    let fs = forcestage ?? ""

    func profile(_ haptics: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent("panel.toml")
        try profileText(peek: 1, pop: 2.5, extra: haptics).write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("A device that is not a force-feedback device, a missing device, and no [haptics] each get one line and exit 2")
    func refusals() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notFF = try runProcess([fs, "run", "--haptics-test", "3", "--profile",
                                    try profile("[haptics]\ndevice = \"/dev/null\"", in: dir)], in: dir)
        #expect(notFF.status == 2)
        #expect(notFF.stderr == "forcestage run: /dev/null cannot play FF_RUMBLE effects; set [haptics] effect to the one its driver offers, or name the actuator's event node\n")
        let missing = try runProcess([fs, "run", "--haptics-test", "3", "--profile",
                                      try profile("[haptics]\ndevice = \"/dev/input/event-none\"\neffect = \"periodic\"", in: dir)], in: dir)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("forcestage run: cannot open the haptics device /dev/input/event-none ([haptics] device): No such file or directory"), "\(missing.stderr)")
        let none = try runProcess([fs, "run", "--haptics-test", "3", "--profile", try profile("", in: dir)], in: dir)
        #expect(none.status == 2)
        #expect(none.stderr.contains("has no [haptics] table"), "\(none.stderr)")
        let noProfile = try runProcess([fs, "run", "--haptics-test", "3"], in: dir)
        #expect(noProfile.status == 64 && noProfile.stderr.contains("--haptics-test needs --profile"), "\(noProfile.stderr)")
    }
}

/// A small evdev reader: the device's name and axis ranges by ioctl, events by read(2).
final class EvdevReader {
    let fd: Int32
    init(path: String) throws {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
    deinit { close(fd) }

    static func ior(_ nr: UInt, _ size: Int) -> UInt { (2 << 30) | (UInt(size) << 16) | (UInt(UInt8(ascii: "E")) << 8) | nr }

    /// EVIOCGNAME.
    var name: String {
        var buf = [UInt8](repeating: 0, count: 128)
        let n = buf.withUnsafeMutableBytes { ioctl(fd, Self.ior(0x06, 128), $0.baseAddress!) }
        return n > 0 ? String(decoding: buf.prefix { $0 != 0 }, as: UTF8.self) : ""
    }

    /// EVIOCGABS(code): struct input_absinfo's maximum.
    func absMaximum(_ code: UInt16) -> Int32? {
        var info = [Int32](repeating: 0, count: 6)
        let n = info.withUnsafeMutableBytes { ioctl(fd, Self.ior(0x40 + UInt(code), 24), $0.baseAddress!) }
        return n < 0 ? nil : info[2]
    }

    /// The records that arrive within `timeoutMs`.
    func read(timeoutMs: Int32) -> [InputEventRecord] {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeoutMs) > 0 else { return [] }
        var buf = [UInt8](repeating: 0, count: 24 * 64)
        let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        guard n > 0 else { return [] }
        return stride(from: 0, to: n - 23, by: 24).map { o in
            func u16(_ i: Int) -> UInt16 { UInt16(buf[o + i]) | UInt16(buf[o + i + 1]) << 8 }
            let v = UInt32(buf[o + 20]) | UInt32(buf[o + 21]) << 8 | UInt32(buf[o + 22]) << 16 | UInt32(buf[o + 23]) << 24
            return InputEventRecord(u16(16), u16(18), Int32(bitPattern: v))
        }
    }
}
