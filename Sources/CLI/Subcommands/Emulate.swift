import ArgumentParser
import ForceStageCommandLine
import ForceStageEmulator
import ForceStageFormats
import Foundation

extension ForceStage {
    /// `forcestage emulate REC.json [options] -- COMMAND ARGS...`
    struct Emulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a recording as a kernel IIO device (sysfs + /dev/iio:device0) in a private mount namespace and run a command against it.",
            discussion: """
            Needs root (it mounts tmpfs over /sys/bus and /dev inside its own mount namespace; \
            nothing outside changes and nothing is left behind). libiio, iio_info, iio_readdev \
            and iiod run unchanged against the emulated device. The command sees \
            FORCESTAGE_EMULATED_RECORDING (the recording's path) and, with --iiod-port, \
            FORCESTAGE_EMULATED_IIOD_URI. Exit status: the command's.
            """)

        @Argument(help: "The recording's STEM.json (optional with --measure-latency).")
        var recording: String?

        @Option(help: "Sensor description to emulate (a hardware/sensors/*.json 'sensor' name); default: the one whose IIO name matches the recording.")
        var sensor: String?

        @Option(help: "Directory of sensor descriptions (default: hardware/sensors found above the executable or the working directory).")
        var sensorsDir: String?

        @Option(name: .customLong("speed"), help: ArgumentHelp("Playback speed over the recording's rate.", valueName: "speed"))
        var speedArgument: DecimalArgument = 1
        var speed: Double { speedArgument.value }

        @Flag(help: "Write scans as fast as the reader takes them.")
        var asFastAsPossible = false

        @Option(help: "Serve the device through a real iiod on this port (in a private network namespace: reach it at ip:127.0.0.1:PORT).")
        var iiodPort: Int?

        @Option(help: "Recording time (s) at which the device vanishes from sysfs and /dev.", transform: DecimalNumber.argument)
        var vanishAt: Double?

        @Option(help: "Recording time (s) at which it comes back.", transform: DecimalNumber.argument)
        var returnAt: Double?

        @Flag(help: "Once every scan has been read, send SIGINT to the command (then SIGTERM, SIGKILL).")
        var endAfterRecording = false

        @Option(help: ArgumentHelp("Write no scan until FILE exists, then play the recording from its start: attach a tool (evtest on run --uinput's device) first. The reader's refills wait meanwhile, so give it a long enough --timeout-ms.", valueName: "FILE"))
        var startAfter: String?

        @Flag(help: "Measure the time from the write of a scan to its event line on the command's stdout; prints p50/p99/p99.9. Without a recording, plays a synthetic 860 scans/s press train.")
        var measureLatency = false

        @Option(name: .customLong("measure-seconds"), help: ArgumentHelp("Length of the synthetic latency recording, seconds.", valueName: "measure-seconds"))
        var measureSecondsArgument: DecimalArgument = 60
        var measureSeconds: Double { measureSecondsArgument.value }

        @Flag(help: "Show emulator notes and iiod's output.")
        var verbose = false

        @Argument(parsing: .postTerminator, help: "The command to run inside, after --.")
        var command: [String] = []

        func validate() throws {
            if recording == nil && !measureLatency { throw ValidationError("give a recording (STEM.json), or --measure-latency") }
            if command.isEmpty { throw ValidationError("give the command to run after --, e.g. -- iio_info") }
            try checkOption(speed, "--speed", 0.001...1000, "times real time")
            try checkOption(vanishAt, "--vanish-at", 0...maximumOptionSeconds, "seconds")
            try checkOption(returnAt, "--return-at", 0...maximumOptionSeconds, "seconds")
            if (vanishAt == nil) != (returnAt == nil) { throw ValidationError("--vanish-at and --return-at go together") }
            if let v = vanishAt, let r = returnAt, !(v >= 0 && r > v) {
                throw ValidationError("--return-at must come after --vanish-at, both in seconds of recording time")
            }
            if let p = iiodPort, !(1...65535).contains(p) { throw ValidationError("--iiod-port must be 1-65535") }
            if let f = startAfter, f.isEmpty || f.utf8.count > Int(PATH_MAX) || f.utf8.contains(0) {
                throw ValidationError("--start-after needs a file path (at most \(PATH_MAX) bytes)")
            }
            try checkOption(measureSeconds, "--measure-seconds", 1.001...86_400, "seconds")
        }

        func run() throws {
            var options = EmulatorOptions()
            options.recordingPath = recording
            options.sensorName = sensor
            options.sensorsDirectory = sensorsDir
            options.driver.speed = asFastAsPossible ? nil : speed
            if let v = vanishAt, let r = returnAt { options.driver.vanish = (v, r) }
            options.driver.startAfter = startAfter
            options.iiodPort = iiodPort
            options.endAfterRecording = endAfterRecording
            options.measureLatency = measureLatency
            options.measureSeconds = measureSeconds
            options.command = command
            options.verbose = verbose

            if ProcessInfo.processInfo.environment[MountNamespace.insideMarker] != nil {
                let status = Emulator(options: options).run()
                throw ExitCode(status)
            }
            try reexecInNamespace()
        }

        /// Runs this same command again under `unshare -m` (and `-n` with iiod), before any
        /// thread of ours could make the namespace switch unsafe.
        private func reexecInNamespace() throws {
            guard geteuid() == 0 else {
                throw CommandFailure(.environment, "needs root to mount the emulated device in a private namespace; run it with sudo")
            }
            let candidates: [String] = ["/usr/bin/unshare", "/bin/unshare"]
            let unshare = candidates.first { (path: String) -> Bool in access(path, X_OK) == 0 }
            guard let unshare else {
                throw CommandFailure(.environment, "unshare not found; install util-linux")
            }
            var namespaces = ["-m"]
            if iiodPort != nil { namespaces.append("-n") }
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: unshare)
            probe.arguments = namespaces + ["--propagation", "private", "true"]
            probe.standardError = FileHandle.nullDevice
            do { try probe.run() } catch { throw CommandFailure(.environment, "cannot run \(unshare): not found or not executable; install util-linux") }
            probe.waitUntilExit()
            guard probe.terminationStatus == 0 else {
                throw CommandFailure(.environment, "cannot create a private mount namespace (unshare \(namespaces.joined(separator: " ")) failed); run as root on a host that allows it (a container needs CAP_SYS_ADMIN)")
            }
            let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            let args = [unshare] + namespaces + ["--propagation", "private", "--", me] + Array(CommandLine.arguments.dropFirst())
            setenv(MountNamespace.insideMarker, MountNamespace.currentNamespace() ?? "unknown", 1)
            var cargs: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) }
            cargs.append(nil)
            execv(unshare, cargs)
            throw CommandFailure(.environment, "cannot exec \(unshare): \(String(cString: strerror(errno)))")
        }
    }
}
