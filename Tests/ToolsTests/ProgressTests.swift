import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs forcestage with standard error on a new pseudo-terminal (standard output a pipe),
/// or with both on pipes, and returns what each received.
func runWithTerminalStderr(_ arguments: [String], terminal: Bool, in dir: URL) throws -> (status: Int32, stdout: String, stderr: String) {
    let p = Process()
    p.executableURL = forcestageBinary
    p.arguments = arguments
    p.currentDirectoryURL = dir
    let out = Pipe()
    p.standardOutput = out
    var master: Int32 = -1
    let errPipe = Pipe()
    if terminal {
        // posix_openpt by hand: /dev/ptmx, TIOCSPTLCK to unlock, TIOCGPTN for the slave's number.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw POSIXError(.EIO) }
        var unlock: Int32 = 0, number: UInt32 = 0
        guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else { throw POSIXError(.EIO) }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.EIO) }
        p.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    } else {
        p.standardError = errPipe
    }
    // The terminal's side is read while the program runs (a full pty would block it).
    final class Collected: @unchecked Sendable { var data = Data() }
    let collected = Collected()
    let reader = Thread { [master] in
        var buf = [UInt8](repeating: 0, count: 4096)
        while master >= 0 {
            let n = read(master, &buf, buf.count)
            if n <= 0 { break }
            collected.data.append(contentsOf: buf[0..<n])
        }
    }
    if terminal { reader.start() }
    try p.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderrPipe = terminal ? Data() : errPipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    if terminal {
        (p.standardError as? FileHandle)?.closeFile()
        p.standardError = nil
        // The slave is closed everywhere: the reader gets EIO and stops.
        let deadline = Date().addingTimeInterval(5)
        while !reader.isFinished && Date() < deadline { usleep(10_000) }
        close(master)
    }
    return (p.terminationStatus, String(decoding: stdout, as: UTF8.self),
            terminal ? String(decoding: collected.data, as: UTF8.self) : String(decoding: stderrPipe, as: UTF8.self))
}

@Suite("progress on standard error, only on a terminal", .serialized)
struct ProgressTests {
    let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path

    func dir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fs-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// The progress lines drawn ("\r ESC[K label N %...") and whether the last thing written clears the line.
    func drawn(_ terminal: String, _ label: String) -> (percents: [Int], cleared: Bool) {
        let frames = terminal.components(separatedBy: "\r\u{1B}[K").filter { !$0.isEmpty }
        let percents = frames.compactMap { f -> Int? in
            guard f.hasPrefix(label + " "), let m = f.firstMatch(of: /^[^%]* ([0-9]+) %/) else { return nil }
            return Int(m.1)
        }
        return (percents, terminal.hasSuffix("\r\u{1B}[K"))
    }

    @Test("synth of 10 minutes: percentages rising on a terminal, cleared at the end; nothing on a pipe; the same bytes either way")
    func synth() throws {
        let d = try dir()
        defer { try? FileManager.default.removeItem(at: d) }
        let args = ["synth", "--panel", "fsr-ads1115", "--duration", "600", "--seed", "4"]
        let tty = try runWithTerminalStderr(args + ["-o", "a.json"], terminal: true, in: d)
        #expect(tty.status == 0, "\(tty.stderr)")
        let shown = drawn(tty.stderr, "synth a.json")
        #expect(shown.percents.count >= 2 && shown.percents == shown.percents.sorted() && shown.percents.first! < 50, "\(tty.stderr.debugDescription)")
        #expect(shown.cleared, "the progress line is cleared: \(tty.stderr.suffix(80).debugDescription)")
        #expect(tty.stdout.hasPrefix("wrote a.json"), "results stay on standard output: \(tty.stdout.prefix(200))")
        let pipe = try runWithTerminalStderr(args + ["-o", "b.json"], terminal: false, in: d)
        #expect(pipe.status == 0 && pipe.stderr.isEmpty, "nothing on a pipe: \(pipe.stderr.debugDescription)")
        #expect(try Data(contentsOf: d.appendingPathComponent("a.iio")) == Data(contentsOf: d.appendingPathComponent("b.iio")))
    }

    @Test("evaluate of three files: 'N of 3: name' on a terminal, then cleared before the report; nothing on a pipe")
    func evaluate() throws {
        let d = try dir()
        defer { try? FileManager.default.removeItem(at: d) }
        for n in 1...3 {
            let r = try runWithTerminalStderr(["synth", "--panel", "hx711-80", "--duration", "20", "--seed", "\(n)", "-o", "r\(n).json"], terminal: false, in: d)
            #expect(r.status == 0)
        }
        let files = ["r1.json", "r2.json", "r3.json"]
        let tty = try runWithTerminalStderr(["evaluate"] + files, terminal: true, in: d)
        #expect(tty.status == 0, "\(tty.stderr)")
        #expect(tty.stderr.contains("evaluate 0 %  1 of 3: r1.json"), "\(tty.stderr.debugDescription)")
        #expect(drawn(tty.stderr, "evaluate").cleared)
        let pipe = try runWithTerminalStderr(["evaluate"] + files, terminal: false, in: d)
        #expect(pipe.status == 0 && pipe.stderr.isEmpty, "\(pipe.stderr.debugDescription)")
        #expect(pipe.stdout == tty.stdout, "the report is the same")
    }

    @Test("replay --trace to a pipe with standard error on a terminal: progress by scan; on a pipe: nothing")
    func trace() throws {
        let d = try dir()
        defer { try? FileManager.default.removeItem(at: d) }
        let tty = try runWithTerminalStderr(["replay", demo, "--trace", "0:100000"], terminal: true, in: d)
        #expect(tty.status == 0, "\(tty.stderr)")
        let shown = drawn(tty.stderr, "replay --trace")
        #expect(!shown.percents.isEmpty && shown.cleared, "\(tty.stderr.debugDescription)")
        #expect(tty.stderr.contains("scan 0"))
        let pipe = try runWithTerminalStderr(["replay", demo, "--trace", "0:100000"], terminal: false, in: d)
        #expect(pipe.status == 0 && pipe.stderr.isEmpty, "\(pipe.stderr.debugDescription)")
        #expect(pipe.stdout == tty.stdout && pipe.stdout.hasPrefix("0 force "))
    }
}

@Suite("calibrate's step progress on standard error, only on a terminal")
struct CalibrateProgressTests {
    @Test("calibrate --from-recording: the bar on a terminal standard error (then cleared), never on standard output or a pipe")
    func calibrateSteps() throws {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fs-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        let s = try runWithTerminalStderr(["synth", "--panel", "hx711-80", "--script", "session", "--masses", "500", "--unit-seed", "21",
                                           "--duration", "1", "-o", "session.json"], terminal: false, in: d)
        #expect(s.status == 0, "\(s.stderr)")
        let args = ["calibrate", "--from-recording", "session.json", "--mass", "500", "-y"]
        let tty = try runWithTerminalStderr(args + ["-o", "a.toml"], terminal: true, in: d)
        try FileManager.default.removeItem(at: d.appendingPathComponent("a.toml"))
        #expect(tty.status == 0, "\(tty.stdout) \(tty.stderr)")
        #expect(tty.stderr.contains("] 100 %") && tty.stderr.contains("\r  [#"), "\(tty.stderr.prefix(300).debugDescription)")
        #expect(tty.stderr.contains("\r\u{1B}[K"), "the bar is cleared before the next line")
        #expect(!tty.stdout.contains("[#"), "standard output has the steps only")
        let pipe = try runWithTerminalStderr(args + ["-o", "a.toml"], terminal: false, in: d)
        #expect(pipe.status == 0 && !pipe.stderr.contains("[#") && !pipe.stdout.contains("[#"), "\(pipe.stderr.debugDescription)")
        #expect(pipe.stdout == tty.stdout, "the same steps either way")
    }
}
