import Foundation
import ForceStageCore
import ForceStageFormats
import ForceStageFormatsURL
#if canImport(Glibc)
import Glibc
#endif

/// Everything `forcestage emulate` was asked to do.
public struct EmulatorOptions: Sendable {
    /// The recording's `STEM.json`; `nil` in latency mode (a synthetic recording is made).
    public var recordingPath: String?
    public var sensorName: String?
    public var sensorsDirectory: String?
    public var driver = DriverOptions()
    public var iiodPort: Int?
    public var endAfterRecording = false
    /// Measure scan-write-to-event-line latency over the command's stdout.
    public var measureLatency = false
    public var measureSeconds: Double = 60
    public var command: [String] = []
    public var verbose = false

    public init() {}
}

/// Environment variables the emulator sets for the command it runs.
public enum EmulatorEnvironment {
    /// Absolute path of the recording's `STEM.json` being played.
    public static let recording = "FORCESTAGE_EMULATED_RECORDING"
    /// The URI that reaches the emulated device over iiod, when one runs.
    public static let iiodURI = "FORCESTAGE_EMULATED_IIOD_URI"
}

/// Runs inside the private mount namespace: builds the device, plays the
/// driver, optionally serves it through a real iiod, runs the command and
/// tears everything down.
public final class Emulator {
    public let options: EmulatorOptions

    public init(options: EmulatorOptions) { self.options = options }

    private func note(_ text: String) {
        FileHandle.standardError.write(Data("forcestage emulate: \(text)\n".utf8))
    }

    private static func executable(_ name: String) -> String? {
        if name.contains("/") { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let dirs: [String] = path.split(separator: ":").map { String($0) } + ["/usr/sbin", "/sbin"]
        for dir in dirs {
            let p = "\(dir)/\(name)"
            if access(p, X_OK) == 0 { return p }
        }
        return nil
    }

    private static func portAccepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs the whole emulation; returns the exit status for the process.
    public func run() -> Int32 {
        do {
            try MountNamespace.setUp()
        } catch {
            note("\(error)")
            return 3
        }
        // The recording: the one given, or a synthetic one for latency measurement.
        let recording: Recording
        let recordingPath: String
        do {
            if let path = options.recordingPath {
                recordingPath = URL(fileURLWithPath: path).standardizedFileURL.path
                recording = try Recording.load(URL(fileURLWithPath: recordingPath))
            } else {
                recordingPath = MountNamespace.stateDirectory + "/latency-synthetic.json"
                recording = LatencyRecording.make(sampleRateHz: 860, seconds: options.measureSeconds)
                try recording.write(to: URL(fileURLWithPath: recordingPath))
            }
        } catch {
            note("\(error)")
            return 2
        }
        let sensor: SensorDescription
        do {
            let base = try SensorDescription.choose(named: options.sensorName, for: recording.metadata,
                                                    directory: SensorDescription.directory(explicit: options.sensorsDirectory))
            let (merged, notes) = base.merged(with: recording.metadata)
            if options.verbose { for n in notes { note(n) } }
            sensor = merged
        } catch {
            note("\(error)")
            return 2
        }
        let device = EmulatedDevice(sensor: sensor, sampleRateHz: recording.metadata.sampleRateHz)
        do { try device.create() } catch {
            note("cannot build the emulated device: \(error)")
            return 3
        }
        var driverOptions = options.driver
        if options.measureLatency { driverOptions.restamp = true }
        let driver = Driver(device: device, recording: recording, options: driverOptions)
        driver.start()

        var iiod: Child?
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: MountNamespace.insideMarker)
        environment[EmulatorEnvironment.recording] = recordingPath
        defer {
            driver.state.stop = true
            if let iiod, iiod.isRunning {
                iiod.signal(SIGTERM)
                let deadline = Date().addingTimeInterval(1)
                while iiod.isRunning && Date() < deadline { usleep(10_000) }
                iiod.signal(SIGKILL)
                iiod.wait()
            }
            close(devNull)
        }
        if let port = options.iiodPort {
            // Loopback of the private network namespace, so iiod is reachable only from inside.
            if let ip = Self.executable("ip"), let up = try? Child(path: ip, arguments: ["link", "set", "lo", "up"], environment: environment) {
                up.wait()
            }
            guard let path = Self.executable("iiod") else {
                note("iiod not found; install it (apt-get install iiod) or drop --iiod-port")
                return 3
            }
            let p: Child
            do {
                p = try Child(path: path, arguments: ["-p", String(port)], environment: environment,
                              stdoutFD: options.verbose ? nil : devNull, stderrFD: options.verbose ? nil : devNull)
            } catch {
                note("cannot start iiod: \(error)")
                return 3
            }
            iiod = p
            let deadline = Date().addingTimeInterval(10)
            while !Self.portAccepts(port) {
                if !p.isRunning || Date() > deadline {
                    note("iiod did not accept connections on port \(port); is the port in use?")
                    return 3
                }
                usleep(20_000)
            }
            environment[EmulatorEnvironment.iiodURI] = "ip:127.0.0.1:\(port)"
        }

        guard let first = options.command.first, let exe = Self.executable(first) else {
            note("command \(options.command.first ?? "") not found")
            return 127
        }
        let measure = options.measureLatency ? LatencyMeter() : nil
        var pipeFDs: [Int32] = [-1, -1]
        if measure != nil { _ = pipe(&pipeFDs) }
        let command: Child
        do {
            // `{recording}` in the command stands for the recording being played (the synthetic one of
            // --measure-latency included), so the command can name its calibration as a user would: --calibration {recording}.
            command = try Child(path: exe, arguments: options.command.dropFirst().map { $0 == "{recording}" ? recordingPath : $0 }, environment: environment,
                                stdoutFD: measure != nil ? pipeFDs[1] : nil, closeInChild: measure != nil ? [pipeFDs[0]] : [])
        } catch {
            note("cannot run \(first): \((error as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? "spawn failed")")
            return 126
        }
        if let measure {
            close(pipeFDs[1])
            let handle = FileHandle(fileDescriptor: pipeFDs[0], closeOnDealloc: true)
            let reader = Thread { measure.consume(handle) }
            reader.start()
        }
        let endAfter = options.endAfterRecording || options.measureLatency
        var drainedAt: Date?
        var signalled: (sig: Int32, at: Date)?
        // Ctrl-C in a terminal reaches the command too: wait for it to clean up
        // (a meter restores the terminal) instead of dying first; a SIGINT or
        // SIGTERM sent to the emulator alone is passed on to the command.
        EmulatorSignals.catchInterrupts()
        while command.isRunning {
            usleep(5_000)
            if let sig = EmulatorSignals.take() { command.signal(sig) }
            guard endAfter else { continue }
            if drainedAt == nil && driver.state.drained { drainedAt = Date() }
            if let d = drainedAt, Date().timeIntervalSince(d) > 0.3 {
                if signalled == nil {
                    command.signal(SIGINT)
                    signalled = (SIGINT, Date())
                } else if let s = signalled, Date().timeIntervalSince(s.at) > 5 {
                    let next = s.sig == SIGINT ? SIGTERM : SIGKILL
                    command.signal(next)
                    signalled = (next, Date())
                }
            }
        }
        command.wait()
        if let measure {
            measure.finished.wait()
            print(measure.report(rateHz: recording.metadata.sampleRateHz))
        }
        return command.exitCode
    }
}

/// SIGINT and SIGTERM caught while the command runs, to pass on to it.
/// A real handler (not SIG_IGN), so the command still gets the default action after exec.
enum EmulatorSignals {
    nonisolated(unsafe) static var pending: sig_atomic_t = 0

    static func catchInterrupts() {
        let handler: @convention(c) (Int32) -> Void = { sig in EmulatorSignals.pending = sig }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    static func take() -> Int32? {
        let sig = pending
        guard sig != 0 else { return nil }
        pending = 0
        return sig
    }
}
