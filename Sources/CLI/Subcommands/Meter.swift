import ArgumentParser
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
            ssh and in tmux. q or Ctrl-C quits and restores the terminal. The profile is --profile, \
            else the best match in calibration/ for the device (see `forcestage profile which`), \
            else --calibration REC.json (or the recording being emulated).
            """)

        @OptionGroup var source: DeviceOptions

        @Option(help: "Profile to classify with (default: the best match in calibration/).")
        var profile: String?

        @Option(help: "A recording whose calibration to use instead of a profile.")
        var calibration: String?

        @Option(help: "Scans per second when the device has no sampling_frequency.")
        var rate: Double?

        @Option(help: "Screen refreshes per second.")
        var fps: Double = 10

        func validate() throws {
            if !(fps > 0 && fps <= 60) { throw ValidationError("--fps must be between 0 and 60") }
            try checkOption(rate, "--rate", Limits.sampleRateHz, "scans per second")
        }

        /// The force channels and settings: from the profile, a calibration recording, or the library.
        private func resolve(deviceName: String, label: String?) throws -> (channels: [ForceChannelCalibration], settings: ClassifierSettings, name: String) {
            if let profile {
                do {
                    let p = try Profile.load(URL(fileURLWithPath: profile))
                    return (p.channels, p.settings, "profile \(p.name)")
                } catch { throw badInput(error) }
            }
            let calibrationPath = calibration
            if calibration == nil, let dir = profileDirectory(), let library = try? ProfileLibrary(directory: dir),
               let best = library.best(deviceName: deviceName, label: label) {
                return (best.profile.channels, best.profile.settings, "profile \(best.profile.name)")
            }
            if let calibrationPath {
                do {
                    let m = try RecordingMetadata.load(URL(fileURLWithPath: calibrationPath))
                    if let c = m.calibration {
                        return (c.force, c.classifierSettings, "calibration of \(URL(fileURLWithPath: calibrationPath).lastPathComponent)")
                    }
                } catch { throw badInput(error) }
            }
            throw fail("meter", "no profile for \(deviceName)\(label.map { " (label \($0))" } ?? ""); pass --profile, or calibrate one with `forcestage calibrate`")
        }

        func run() throws {
            // Open once to learn the device's name and label, then stream the profile's channels.
            let probe: (name: String, label: String?)
            switch source.open() {
            case .success(let d): probe = (d.name ?? d.id, d.label)
            case .failure(let f): throw fail("meter", f.message)
            }
            let resolved = try resolve(deviceName: probe.name, label: probe.label)
            let live: LiveScans
            switch LiveScans.open(source, channels: resolved.channels.map(\.channel), rate: rate) {
            case .success(let s): live = s
            case .failure(let m): throw fail("meter", m.description)
            }
            let stream = live.stream
            let setup: PanelSetup
            do {
                setup = try PanelSetup(layout: stream.layout, forceChannels: resolved.channels.map(\.channel), slot: stream.slot(of:),
                                       forceCalibration: resolved.channels, settings: resolved.settings,
                                       sampleRateHz: live.sampleRateHz, timestampSlot: stream.timestampSlot)
            } catch {
                throw fail("meter", "\(live.displayName): cannot classify with \(resolved.name): \(error)")
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
                let now = monotonicNow()
                if now >= nextFrame {
                    terminal.draw(screen.lines(width: 80))
                    nextFrame = now + frameNs
                }
            }
        }
    }
}

/// The meter's content: pure text, so it can be tested and drawn anywhere.
struct MeterScreen {
    let device: String
    let source: String
    let settings: ClassifierSettings
    let sampleRateHz: Double
    var net = 0.0
    var baseline = 0.0
    var state = PressState.idle
    var scans = 0
    var noiseSquare = 0.0
    var events: [ForceEvent] = []
    var status: String?
    /// A panel with cell positions shows where it is pressed on a small plate map.
    var hasPositions = false
    var position: PlatePoint?

    init(device: String, source: String, settings: ClassifierSettings, sampleRateHz: Double) {
        self.device = device
        self.source = source
        self.settings = settings
        self.sampleRateHz = sampleRateHz
    }

    private var previousNet: Double?

    mutating func scan(net: Double, baseline: Double, state: PressState) {
        defer { previousNet = net }
        self.net = net
        self.baseline = baseline
        self.state = state
        scans += 1
        // The noise: from scan-to-scan differences while nothing is pressed (so a
        // relaxing panel or drift does not count), averaged over about a second.
        if state == .idle, let previous = previousNet, abs(net) < Double(settings.peekNewtons) * 0.3 {
            let d = net - previous
            let a = 1 / max(1, sampleRateHz)
            noiseSquare += (d * d / 2 - noiseSquare) * a
        }
    }

    mutating func event(_ e: ForceEvent) {
        events.append(e)
        if events.count > 6 { events.removeFirst() }
    }

    /// The screen, each line at most `width` columns.
    func lines(width: Int) -> [String] {
        let peek = Double(settings.peekNewtons), pop = Double(settings.popNewtons), release = Double(settings.releaseNewtons)
        // A fixed scale (twice the pop level), so that the levels stay put and readable;
        // a harder press fills the bar and shows '>' at its end.
        let full = niceTop(pop * 2)
        let barWidth = width - 12
        func col(_ v: Double) -> Int { max(0, min(barWidth - 1, Int((v / full * Double(barWidth)).rounded()))) }
        var bar = Array(repeating: Character(" "), count: barWidth)
        let filled = net <= 0 ? 0 : col(net) + 1
        for i in 0..<filled { bar[i] = "#" }
        for (v, mark) in [(release, Character(":")), (peek, Character("|")), (pop, Character("|"))] where bar[col(v)] != "#" {
            bar[col(v)] = mark
        }
        if net > full { bar[barWidth - 1] = ">" }
        func marker(_ text: String, at c: Int) -> String {
            let start = max(0, min(barWidth - text.count, c))
            return " " + String(repeating: " ", count: start) + text
        }
        let stateText: String
        switch state {
        case .idle: stateText = "idle"
        case .peeking: stateText = "PEEK"
        case .popped: stateText = "POP"
        }
        var out: [String] = []
        out.append(clip("forcestage meter  \(device)  \(JSON.format(sampleRateHz)) scans/s", width))
        out.append(clip("levels from \(source)", width))
        out.append(clip(String(format: "force %7.3f N   state %@", net, stateText), width))
        out.append(clip("[" + String(bar) + "]" + String(format: " %.1f N", full), width))
        out.append(clip(marker("^peek \(String(format: "%.2f", peek)) N  (release below :)", at: col(peek)), width))
        out.append(clip(marker("^pop \(String(format: "%.2f", pop)) N", at: col(pop)), width))
        out.append(clip(String(format: "noise %.4f N rms   baseline %.3f N   release below %.2f N   scans %d", noiseSquare.squareRoot(), baseline, release, scans), width))
        if hasPositions {
            // The plate, 21 x 3 characters, x to the right and y downwards (cell 0 at the top left).
            let cols = 21, rows = 3
            let where_ = position.map { String(format: "pressed at x %.2f y %.2f", Double($0.x), Double($0.y)) } ?? "not pressed"
            out.append(clip("plate +" + String(repeating: "-", count: cols) + "+  " + where_, width))
            for r in 0..<rows {
                var row = Array(repeating: Character(" "), count: cols)
                if let p = position {
                    let c = max(0, min(cols - 1, Int((Double(p.x) * Double(cols - 1)).rounded())))
                    let rr = max(0, min(rows - 1, Int((Double(p.y) * Double(rows - 1)).rounded())))
                    if rr == r { row[c] = "o" }
                }
                out.append(clip("      |" + String(row) + "|", width))
            }
            out.append(clip("      +" + String(repeating: "-", count: cols) + "+", width))
        }
        out.append("last events:")
        for e in events.suffix(6).reversed() {
            let t = Double(e.sample) / sampleRateHz
            out.append(clip(String(format: "  %9.3f s  %@ %6.3f N  latency %d scans", t, e.kind.name.padding(toLength: 9, withPad: " ", startingAt: 0), Double(e.forceNewtons), e.latencyScans), width))
        }
        for _ in events.count..<6 { out.append("") }
        out.append("")
        out.append(clip(status ?? "q or Ctrl-C quits", width))
        return out
    }

    private func clip(_ s: String, _ width: Int) -> String { s.count <= width ? s : String(s.prefix(width)) }

    private func niceTop(_ v: Double) -> Double {
        for step in [0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 500, 1000] where step >= v { return step }
        return (v / 1000).rounded(.up) * 1000
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
