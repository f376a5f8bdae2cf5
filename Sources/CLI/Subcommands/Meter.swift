import ForceStageClock
import ArgumentParser
import ForceStageCommandLine
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

extension ForceStage {
    /// `forcestage meter`: a live terminal view of the panel's force.
    struct Meter: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a live device's force as a bar with the levels marked, the press state, the noise and the last events.",
            discussion: """
            Fits an 80-column terminal and needs nothing but ANSI cursor movement, so it works over \
            ssh and in tmux. q or Ctrl-C quits and restores the terminal. The calibration is --profile, \
            else --calibration REC.json, else the profile in calibration/ that best matches the device's \
            name and label (see `forcestage profile which`). An emulated device is treated as a real one: \
            the recording being emulated lends it no calibration (pass --calibration REC.json for that). \
            A device that states no rate (an HX711) is read at --rate, else the calibration's rate.
            """)

        /// Device, calibration and rate: the options every live command shares.
        @OptionGroup var panel: PanelOptions

        @Option(name: .customLong("fps"), help: ArgumentHelp("Screen refreshes per second.", valueName: "fps"))
        var fpsArgument: DecimalArgument = 10
        var fps: Double { fpsArgument.value }

        func validate() throws {
            if !(fps > 0 && fps <= 60) { throw ValidationError("--fps must be between 0 and 60") }
        }

        func run() throws {
            // Open once to learn the device's name and label, then stream the profile's channels.
            let probe: (name: String, label: String?)
            let choice: CalibrationChoice?
            switch panel.device.open() {
            case .success(let d):
                probe = (d.name ?? d.id, d.label)
                choice = try panel.choice(for: d)
            case .failure(let f): throw CommandFailure(.deviceFault, f.message)
            }
            guard let choice else {
                throw CommandFailure(.deviceFault, "no profile for \(probe.name)\(probe.label.map { " (label \($0))" } ?? ""); pass --profile, or calibrate one with `forcestage calibrate`")
            }
            let resolved = (channels: choice.forceCalibration, settings: choice.settings, name: choice.name)
            let live: LiveScans
            switch LiveScans.open(panel.device, channels: resolved.channels.map(\.channel), rate: panel.rate.rate ?? choice.sampleRateHz) {
            case .success(let s): live = s
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            let stream = live.stream
            let setup: PanelSetup
            do {
                setup = try PanelSetup(layout: stream.layout, forceChannels: resolved.channels.map(\.channel), slot: stream.slot(of:),
                                       forceCalibration: resolved.channels, settings: resolved.settings,
                                       sampleRateHz: live.sampleRateHz, timestampSlot: stream.timestampSlot)
            } catch {
                throw CommandFailure(.deviceFault, "\(live.displayName): cannot classify with \(resolved.name): \(error)")
            }
            var pipeline = setup.makePipeline()
            var ring = EventRing()
            let terminal = Terminal()
            let stop = StopSignal {}
            terminal.enter()
            defer { terminal.leave() }
            live.start()
            defer { live.stop() }
            var screen = MeterScreen(device: live.displayName, source: resolved.name, settings: resolved.settings,
                                     sampleRateHz: live.sampleRateHz)
            screen.hasPositions = setup.positions != nil
            let frameNs = Int64(1e9 / fps)
            var nextFrame: Int64 = 0
            while !stop.stopped && !terminal.quitRequested() {
                for item in live.next(timeoutMs: 20) {
                    switch item {
                    case .scans(let bytes):
                        bytes.withUnsafeBytes { raw in
                            var offset = 0
                            while offset + setup.layout.scanSize <= raw.count {
                                let scan = raw.baseAddress! + offset
                                let force = pipeline.force(scan: scan)
                                pipeline.process(scan: scan, into: &ring)
                                screen.scan(net: Double(force - pipeline.classifier.baseline), baseline: Double(pipeline.classifier.baseline),
                                            state: pipeline.classifier.state)
                                while let e = ring.popFirst() { screen.event(e) }
                                if screen.hasPositions {
                                    screen.position = pipeline.classifier.state == .idle ? nil : pipeline.centreOfPressure
                                }
                                offset += setup.layout.scanSize
                            }
                        }
                        screen.status = nil
                    case .lost(let why):
                        pipeline.sensorLost(timestampNs: pipeline.lastTimestampNs, into: &ring)
                        while let e = ring.popFirst() { screen.event(e) }
                        screen.status = "\(why); reconnecting"
                    case .back:
                        screen.status = "device back"
                    }
                }
                let now = monotonicNanoseconds()
                if now >= nextFrame {
                    terminal.draw(screen.lines(width: 80))
                    nextFrame = now + frameNs
                }
            }
        }
    }
}

/// The terminal in raw-ish mode (no echo, no line buffering; Ctrl-C still signals)
/// on the alternate screen; ``leave()`` puts everything back.
final class Terminal: @unchecked Sendable {
    private var saved = termios()
    private var isRaw = false
    private let isTTY = isatty(0) != 0

    func enter() {
        if isTTY && tcgetattr(0, &saved) == 0 {
            var t = saved
            t.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutableBytes(of: &t.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            isRaw = tcsetattr(0, TCSANOW, &t) == 0
        }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    func leave() {
        write("\u{1B}[?25h\u{1B}[?1049l")
        if isRaw { tcsetattr(0, TCSANOW, &saved) }
        isRaw = false
    }

    /// Whether q was typed.
    func quitRequested() -> Bool {
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, 0) > 0, fds.revents & Int16(POLLIN) != 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(0, &buffer, buffer.count)
        if n <= 0 { return isTTY ? false : false }
        return buffer[0..<n].contains(UInt8(ascii: "q")) || buffer[0..<n].contains(UInt8(ascii: "Q"))
    }

    func draw(_ lines: [String]) {
        var frame = "\u{1B}[H"
        for line in lines { frame += line + "\u{1B}[K\r\n" }
        frame += "\u{1B}[J"
        write(frame)
    }

    private func write(_ s: String) {
        let bytes = Array(s.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(1, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
    }
}
