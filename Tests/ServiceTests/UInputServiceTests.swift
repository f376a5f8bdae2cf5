import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools
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
        // Under QEMU's software emulation the three program loads (emulate, run, the exec'd
        // forcestage-service, debug builds over 9p) and libiio's context take 10-15 s before
        // the device exists; 60 s is a bound for a stuck start, not a latency figure.
        #expect(waitUntil(60) {
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

/// `run --haptics-test` against a force-feedback device the test itself drives through
/// uinput: the test answers the effect upload, counts the plays the kernel forwards,
/// and checks the effect ForceStage uploaded. Needs /dev/uinput (the QEMU kernel harness).
@Suite("haptics through a uinput force-feedback device", .enabled(if: uinputPresent && forcestage != nil,
       "this kernel has no /dev/uinput (the QEMU kernel harness runs this); no actuator on this machine either"))
struct HapticsUInputTests {
    @Test("5 taps: one FF_RUMBLE upload of 20 ms, 5 EV_FF plays, the effect erased at exit, the delay printed")
    func fiveTaps() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fd = open("/dev/uinput", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        func iow(_ nr: UInt, _ size: Int) -> UInt { (1 << 30) | (UInt(size) << 16) | (0x55 << 8) | nr }
        func iowr(_ nr: UInt, _ size: Int) -> UInt { (3 << 30) | (UInt(size) << 16) | (0x55 << 8) | nr }
        #expect(ioctl(fd, iow(100, 4), Int32(0x15)) == 0)          // UI_SET_EVBIT EV_FF
        #expect(ioctl(fd, iow(107, 4), Int32(0x50)) == 0)          // UI_SET_FFBIT FF_RUMBLE
        var setup = [UInt8](repeating: 0, count: 92)
        setup[0] = 0x06
        for (i, b) in "forcestage-test-actuator".utf8.enumerated() { setup[8 + i] = b }
        setup[88] = 4                                               // ff_effects_max
        #expect(setup.withUnsafeMutableBytes { ioctl(fd, iow(3, 92), $0.baseAddress!) } == 0)
        #expect(ioctl(fd, UInt(0x5501)) == 0)                       // UI_DEV_CREATE
        defer { _ = ioctl(fd, UInt(0x5502)) }
        var sys = [UInt8](repeating: 0, count: 64)
        #expect(sys.withUnsafeMutableBytes { ioctl(fd, (2 << 30) | (64 << 16) | (0x55 << 8) | 44, $0.baseAddress!) } >= 0)
        let sysname = String(decoding: sys.prefix { $0 != 0 }, as: UTF8.self)
        var node: String?
        #expect(waitUntil(30) {
            node = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/devices/virtual/input/\(sysname)"))?
                .first { $0.hasPrefix("event") }.map { "/dev/input/\($0)" }
            return node.map { FileManager.default.fileExists(atPath: $0) } ?? false
        })
        let device = try #require(node)
        let profile = dir.appendingPathComponent("panel.toml")
        try profileText(peek: 1, pop: 2.5, extra: "[haptics]\ndevice = \"\(device)\"\nduration_ms = 20")
            .write(to: profile, atomically: true, encoding: .utf8)
        let child = try Running([forcestage ?? "", "run", "--profile", profile.path, "--haptics-test", "5"], in: dir)
        defer { if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) } }
        var uploads: [[UInt8]] = [], plays = 0, erases = 0
        let deadline = Date().addingTimeInterval(20)
        while (child.process.isRunning || plays < 5) && Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var buf = [UInt8](repeating: 0, count: 24)
            guard buf.withUnsafeMutableBytes({ read(fd, $0.baseAddress!, 24) }) == 24 else { continue }
            let type = UInt16(buf[16]) | UInt16(buf[17]) << 8, code = UInt16(buf[18]) | UInt16(buf[19]) << 8
            let value = Int32(bitPattern: UInt32(buf[20]) | UInt32(buf[21]) << 8 | UInt32(buf[22]) << 16 | UInt32(buf[23]) << 24)
            if type == 0x15 && value == 1 { plays += 1 }
            if type == 0x0101 && code == 1 {                        // EV_UINPUT UI_FF_UPLOAD
                var up = [UInt8](repeating: 0, count: 104)           // struct uinput_ff_upload
                withUnsafeBytes(of: UInt32(bitPattern: value)) { for i in 0..<4 { up[i] = $0[i] } }
                #expect(up.withUnsafeMutableBytes { ioctl(fd, iowr(200, 104), $0.baseAddress!) } == 0)
                uploads.append(Array(up[8..<56]))
                up[4...7] = [0, 0, 0, 0]                             // retval 0
                #expect(up.withUnsafeMutableBytes { ioctl(fd, iow(201, 104), $0.baseAddress!) } == 0)
            }
            if type == 0x0101 && code == 2 {                        // UI_FF_ERASE
                var er = [UInt8](repeating: 0, count: 12)
                withUnsafeBytes(of: UInt32(bitPattern: value)) { for i in 0..<4 { er[i] = $0[i] } }
                #expect(er.withUnsafeMutableBytes { ioctl(fd, iowr(202, 12), $0.baseAddress!) } == 0)
                er[4...7] = [0, 0, 0, 0]
                #expect(er.withUnsafeMutableBytes { ioctl(fd, iow(203, 12), $0.baseAddress!) } == 0)
                erases += 1
            }
        }
        #expect(child.wait(timeout: 10) == 0, "\(child.stderr)")
        #expect(uploads.count == 1 && plays == 5 && erases == 1, "uploads \(uploads.count), plays \(plays), erases \(erases)")
        if let e = uploads.first {
            #expect(UInt16(e[0]) | UInt16(e[1]) << 8 == 0x50, "FF_RUMBLE")
            #expect(UInt16(e[10]) | UInt16(e[11]) << 8 == 20, "replay.length 20 ms")
            #expect((UInt16(e[16]) | UInt16(e[17]) << 8) > 0, "a strong magnitude")
        }
        #expect(child.stdout.contains("5 taps, 0 failed") && child.stdout.contains("delay (call to write returning), ms: p50"), "\(child.stdout)")
    }
}
