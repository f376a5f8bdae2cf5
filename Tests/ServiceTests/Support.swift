import Foundation
import ForceStageCore
import TestSupport
import ForceStageFormats
import ForceStageTools

/// The built `forcestage` binary (FORCESTAGE_UNDER_TEST names another build, e.g. an older one to show a test failing).
let forcestage: String? = ProcessInfo.processInfo.environment["FORCESTAGE_UNDER_TEST"] ?? builtExecutable("forcestage")?.path

func temporaryDirectory() throws -> URL { try makeTemporaryDirectory(prefix: "fss") }

/// A real process with its output in files (no pipe to fill and stall it).
final class Running {
    let process: Process
    let out: URL
    let err: URL
    let started = Date()

    init(_ arguments: [String], in dir: URL, environment: [String: String]? = nil) throws {
        out = dir.appendingPathComponent("stdout-\(UUID().uuidString.prefix(6))")
        err = dir.appendingPathComponent("stderr-\(UUID().uuidString.prefix(6))")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let (out, err) = (out, err)
        process = try launchRetryingBusyText {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: arguments[0])
            p.arguments = Array(arguments.dropFirst())
            if let environment { p.environment = environment }
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = try FileHandle(forWritingTo: err)
            return p
        }
    }

    /// Waits for the exit (killing after `timeout` s); returns the status.
    @discardableResult
    func wait(timeout: Double = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var stdout: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
}

/// Runs to completion.
func runProcess(_ arguments: [String], in dir: URL, timeout: Double = 60) throws -> (status: Int32, stdout: String, stderr: String) {
    let r = try Running(arguments, in: dir)
    let status = r.wait(timeout: timeout)
    return (status, r.stdout, r.stderr)
}

/// Waits until `condition` holds or `timeout` s pass.
@discardableResult
func waitUntil(_ timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// A client of the service's Unix socket, reading on its own thread so the test can
/// look at what has arrived so far (or, for a stuck client, not read at all until told).
final class SocketClient: @unchecked Sendable {
    let fd: Int32
    private let lock = NSLock()
    private var _lines: [(String, Date)] = []
    private var _closed = false
    private var pending: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        // No close here: a class whose init throws once every property is set still runs its
        // deinit, which closes fd; closing it here too closed a descriptor another test's thread
        // had just been given (seen as "1 of 200 clients found the path before it listened").
        if r != 0 { throw CocoaError(.fileNoSuchFile) }
    }

    /// Starts reading everything into ``lines`` until end of file.
    func startReading() {
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                let now = Date()
                lock.withLock {
                    pending.append(contentsOf: buffer[0..<n])
                    while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        _lines.append((String(decoding: pending[..<nl], as: UTF8.self), now))
                        pending.removeSubrange(...nl)
                    }
                }
            }
            lock.withLock { _closed = true }
        }.start()
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    var lines: [String] { lock.withLock { _lines.map { $0.0 } } }
    var timedLines: [(String, Date)] { lock.withLock { _lines } }
    var closed: Bool { lock.withLock { _closed } }
    /// Event lines only (`{"event":...}`).
    var events: [String] { lines.filter { $0.hasPrefix("{\"event\":") } }

    deinit { close(fd) }
}

/// A datagram socket standing in for systemd's notify socket.
final class NotifyListener: @unchecked Sendable {
    let path: String
    let fd: Int32
    private let lock = NSLock()
    private var _messages: [(String, Date)] = []

    init(path: String) {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n < 0 { break }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                lock.withLock { _messages.append((text, Date())) }
            }
        }.start()
    }

    var messages: [(String, Date)] { lock.withLock { _messages } }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }
}

/// The `"event"` of a JSON event line.
func kind(_ line: String) -> String? {
    guard let r = line.range(of: "\"event\":\"") else { return nil }
    return String(line[r.upperBound...].prefix { $0 != "\"" })
}

/// The status object of a `{"status":...}` line.
func statusObject(_ line: String) -> [String: Any]? {
    guard let d = line.data(using: .utf8), let top = try? JSONSerialization.jsonObject(with: d) as? [String: Any] else { return nil }
    return top["status"] as? [String: Any]
}

func int(_ any: Any?) -> Int? { (any as? NSNumber)?.intValue }

/// The test panel: an ADS1115 (ads1015 driver) at 250 scans/s, calibrated 0.0005 N per count above raw 100.
let panelRate = 250.0

/// Writes a recording of `presses` presses: quiet for `leadIn` scans, then each press
/// ramps to `newtons` over 4 scans, holds `hold` scans, ramps down over 4, and rests `rest` scans.
func writePressTrain(in dir: URL, name: String = "train", leadIn: Int, presses: Int, newtons: Double = 3.5,
                     hold: Int = 12, rest: Int = 20, tail: Int = 250) throws -> (url: URL, recording: Recording) {
    let f16 = try ChannelFormat(parsing: "le:s16/16>>0"), f64 = try ChannelFormat(parsing: "le:s64/64>>0")
    let metadata = RecordingMetadata(
        deviceName: "ads1015", deviceLabel: "test-panel", sampleRateHz: panelRate, timestampClock: "monotonic",
        channels: [RecordingChannel(id: "voltage0", index: 4, format: f16, scale: 0.125, offset: 0, role: .force),
                   RecordingChannel(id: "timestamp", index: 8, format: f64, role: .timestamp)],
        calibration: RecordingCalibration(force: [ForceChannelCalibration(channel: "voltage0", mapping: .linear(zeroRaw: 100, newtonsPerCount: 0.0005))],
                                          peekNewtons: 1.0, popNewtons: 2.5))
    let layout = try metadata.layout()
    let period = 4 + hold + 4 + rest
    let count = leadIn + presses * period + tail
    var bytes = [UInt8](repeating: 0, count: count * layout.scanSize)
    bytes.withUnsafeMutableBytes { out in
        for i in 0..<count {
            var n = 0.0
            if i >= leadIn && i < leadIn + presses * period {
                let k = (i - leadIn) % period
                if k < 4 { n = Double(k + 1) / 4 * newtons }
                else if k < 4 + hold { n = newtons }
                else if k < 8 + hold { n = newtons - Double(k - 4 - hold + 1) / 4 * newtons }
            }
            let raw = 100 + Int64((n / 0.0005).rounded()) + Int64((i * 7919) % 9) - 4
            let scan = out.baseAddress! + i * layout.scanSize
            f16.encode(raw, to: scan + layout[0].offset)
            f64.encode(1_000_000_000 + Int64(i) * 4_000_000, to: scan + layout[1].offset)
        }
    }
    let url = dir.appendingPathComponent("\(name).json")
    let recording = try Recording(metadata: metadata, scans: bytes)
    try recording.write(to: url)
    return (url, recording)
}

/// What replaying the recording through ForcePipeline prints: what the service must send.
func directReplay(_ recording: Recording) -> [String] {
    let setup = try! PanelSetup(metadata: recording.metadata, file: "recording")
    return replay(recording, setup: setup).events.map { eventJSON($0, sampleRateHz: setup.sampleRateHz).rendered() }
}

/// A profile for the test panel with the given levels (and extra TOML lines).
func profileText(peek: Double, pop: Double, extra: String = "") -> String {
    """
    schema = 1
    name = "test-panel-\(pop)"

    [match]
    name = "ads1015"
    label = "test-*"

    [levels]
    peek_newtons = \(peek)
    pop_newtons = \(pop)
    \(extra)

    [[channel]]
    id = "voltage0"
    zero_raw = 100
    newtons_per_count = 0.0005

    """
}

/// Whether `sub` appears in `all` in order (not necessarily contiguous).
func isSubsequence(_ sub: [String], of all: [String]) -> Bool {
    var i = all.startIndex
    for s in sub {
        guard let j = all[i...].firstIndex(of: s) else { return false }
        i = j + 1
    }
    return true
}

/// `run --profile panel.toml --socket ev.sock` in the emulator on a train of 30
/// 3.5 N presses (one every 0.8 s, at double speed), under peek 1.0 N / pop 2.5 N:
/// the service the reload tests send SIGHUP to.
func startReloadableService(_ fs: String, in dir: URL) throws -> (recording: URL, profile: URL, socket: String, service: Running) {
    let (url, _) = try writePressTrain(in: dir, leadIn: 500, presses: 30, hold: 40, rest: 152)
    let profile = dir.appendingPathComponent("panel.toml")
    try profileText(peek: 1.0, pop: 2.5).write(to: profile, atomically: true, encoding: .utf8)
    let socket = dir.appendingPathComponent("ev.sock").path
    let service = try Running([fs, "emulate", "--speed", "2", url.path, "--",
                               fs, "run", "--profile", profile.path, "--socket", socket], in: dir)
    return (url, profile, socket, service)
}
