import ArgumentParser
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

extension ForceStage {
    /// `forcestage calibrate`: a guided session that measures a new panel and writes its profile.
    struct Calibrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Calibrate a panel step by step and write its profile: zero and noise, known masses, light and firm presses, live verification.",
            discussion: """
            Live (default): reads the device (or the emulator) and asks for each step; the steps \
            advance by themselves as the panel is loaded and pressed, so hands can stay on the panel. \
            Answers can be given as options (--mass). Non-interactive: --from-recording REC.json runs \
            the same analysis over a recording of such a session (e.g. `forcestage synth --script session`). \
            Every recommended value is explained in one line. The profile is saved atomically and only \
            if it validates; Ctrl-C at any step saves nothing.
            Exit status: 0 saved (or declined), 1 bad input or no device, 3 the session could not finish, 130 interrupted.
            """)

        @OptionGroup var source: DeviceOptions

        @OptionGroup var triggerOptions: TriggerOptions

        @Option(name: .customLong("channel"), help: "A force channel to calibrate (repeat for several cells); default: the device's first buffered voltage input.")
        var channels: [String] = []

        @OptionGroup var rateOption: RateOption
        var rate: Double? { rateOption.rate }

        @Option(help: "Analyse a recording of a calibration session instead of a live device.")
        var fromRecording: String?

        @Option(help: "A known mass in grams, in the order they are set down (repeat for several). Not asked for when given.")
        var mass: [Double] = []

        @Option(help: "How many known masses to weigh (default: the --mass count, else 1, or 3 with --curve).")
        var masses: Int?

        @Flag(help: "Calibrate with a monotone curve through the masses (force-sensing resistors) instead of a straight line.")
        var curve = false

        @Option(name: [.short, .customLong("output")], help: "Where to save the profile, e.g. calibration/kiosk-left.toml.")
        var output: String

        @Option(help: "The profile's name (default: the output file's stem).")
        var name: String?

        @Option(help: "[match] label pattern (default: the device's label exactly, when it has one).")
        var matchLabel: String?

        @Flag(help: "Match the device name only, any label.")
        var anyLabel = false

        @Option(help: "Also write an SVG plot of the session with the recommended levels and the events.")
        var plot: String?

        @Option(help: "Also save the session's raw scans as a recording (live sessions).")
        var saveSession: String?

        @Option(help: "Presses to verify live before saving.")
        var verifyPresses: Int = 4

        @Option(help: ArgumentHelp("Verification ends after this many seconds without a press (the recommendation is kept).", valueName: "S"))
        var verifyTimeout: Double = 60

        @Option(help: "Seconds the unloaded panel is measured.")
        var unloadedSeconds: Double = 3

        @Flag(name: .shortAndLong, help: "Save without asking.")
        var yes = false

        func validate() throws {
            guard output.hasSuffix(".toml") else { throw ValidationError("-o must name a .toml profile, got '\(output)'") }
            for m in mass where !(m > 0 && m.isFinite) {
                throw ValidationError("--mass must be above zero grams, got \(JSON.format(m)); weigh the mass and give grams")
            }
            if let masses, masses < 1 { throw ValidationError("--masses must be at least 1") }
            if let masses, !mass.isEmpty, masses != mass.count {
                throw ValidationError("--masses \(masses) but \(mass.count) --mass values; give one --mass per mass")
            }
            if curve && massCount < 2 { throw ValidationError("--curve needs at least two masses (--masses 3, or --mass several times)") }
            if fromRecording != nil && mass.isEmpty {
                throw ValidationError("--from-recording needs the masses that were set down: --mass GRAMS (once per mass)")
            }
            if verifyPresses < 0 { throw ValidationError("--verify-presses must be 0 or more") }
            try checkOption(unloadedSeconds, "--unloaded-seconds", 0.5...3600, "seconds")
            try checkOption(verifyPresses, "--verify-presses", 0...1000, "presses")
            try checkOption(masses, "--masses", 1...32, "masses")
            for m in mass { try checkOption(m, "--mass", 0.001...1_000_000, "grams") }
            if !(verifyTimeout > 0 && verifyTimeout <= 86_400) { throw ValidationError("--verify-timeout must be above 0 and at most 86400 seconds") }
        }

        var massCount: Int { masses ?? (mass.isEmpty ? (curve ? 3 : 1) : mass.count) }

        func run() throws {
            let ui = SessionUI(interactive: fromRecording == nil)
            if let path = fromRecording {
                let recording: Recording
                do { recording = try Recording.load(URL(fileURLWithPath: path)) } catch { throw badInput(error) }
                try runSession(metadata: recording.metadata, layout: recording.layout, ui: ui, source: path) { feed, _ in
                    feed(recording.scans)
                    return false
                }
                return
            }
            let live: LiveScans
            switch LiveScans.open(source, channels: channels, rate: rate, trigger: triggerOptions.trigger) {
            case .success(let s): live = s
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            ui.say("Calibrating \(live.displayName): channel\(live.channelIDs.count == 1 ? "" : "s") \(live.channelIDs.joined(separator: ", ")), \(JSON.format(live.sampleRateHz)) scans/s. Ctrl-C stops at any step; nothing is saved until the end.")
            live.start()
            defer { live.stop() }
            try runSession(metadata: live.metadata, layout: live.layout, ui: ui, source: live.displayName) { feed, session in
                for item in live.next(timeoutMs: 100) {
                    switch item {
                    case .scans(let bytes): feed(bytes)
                    case .lost(let why):
                        ui.say("  ! \(why) during \(session.step); waiting for it to come back (Ctrl-C stops; nothing is saved)")
                    case .back:
                        ui.say("  device back; starting \(session.step) again")
                        ui.handle(session.restartStep(atScan: session.scansSeen))
                    }
                }
                if session.step == .verify, ui.lineWaiting() {
                    _ = readLine()
                    ui.handle(session.finishVerification(atScan: session.scansSeen))
                }
                return true
            }
        }

        /// Runs the session over scans that `pump` delivers (it returns false once there are no more).
        private func runSession(metadata: RecordingMetadata, layout: ScanLayout, ui: SessionUI, source: String,
                                pump: (_ feed: ([UInt8]) -> Void, _ session: SessionDriver) throws -> Bool) throws {
            let force = metadata.forceChannels
            guard !force.isEmpty else { throw CommandFailure(.deviceFault, "\(source) has no force channel") }
            var plan = CalibrationPlan(channels: force.map(\.id), channelMaximumRaw: force.map { $0.format.maximumRaw },
                                       sampleRateHz: metadata.sampleRateHz)
            plan.massCount = massCount
            plan.curve = curve
            plan.verificationPresses = verifyPresses
            plan.verificationTimeoutSeconds = verifyTimeout
            plan.unloadedSeconds = unloadedSeconds
            let driver = SessionDriver(CalibrationSession(plan: plan), decoder: ScanDecoder(metadata: metadata, layout: layout))
            ui.masses = mass
            ui.driver = driver
            let stop = StopSignal {
                ui.interrupted(step: driver.step)
            }
            _ = stop
            ui.handle(driver.start())
            var more = true
            while driver.step != .done && more {
                more = try pump({ bytes in driver.feed(bytes, ui: ui) }, driver)
            }
            if driver.step == .verify { ui.handle(driver.finishVerification(atScan: driver.scansSeen)) }
            guard driver.step == .done, let result = driver.result else {
                throw CommandFailure(.incomplete, "the session ended during step \(driver.step) (\(driver.progressText)); nothing saved. Record a whole session: unloaded, the mass\(massCount == 1 ? "" : "es"), \(plan.lightPresses) light and \(plan.firmPresses) firm presses")
            }
            let url = URL(fileURLWithPath: output)
            let label: String? = anyLabel ? nil : (matchLabel ?? metadata.deviceLabel)
            let profileName = name ?? url.deletingPathExtension().lastPathComponent
            let profile = result.profile(name: profileName, matchName: metadata.deviceName, matchLabel: label, file: url.path)
            let stamp = ISO8601DateFormatter().string(from: Date())
            let header = ["Made by `forcestage calibrate` at \(stamp) from \(source) (\(metadata.deviceName)\(metadata.deviceLabel.map { ", label \($0)" } ?? "")).",
                          "Why each value is what it is:"] + result.reasons.map { "  " + $0 }
            let text = profile.tomlText(header: header)
            if ui.interactive && !yes {
                guard ui.confirm("Save the profile to \(output)? [Y/n] ") else {
                    ui.say("Not saved.")
                    return
                }
            }
            do {
                try ui.saving(output) { try Profile.save(text, to: url) }
            } catch {
                throw CommandFailure(.deviceFault, "cannot save \(output): \(error); nothing was replaced")
            }
            ui.say("Saved \(output) (profile \"\(profileName)\", matches name \(metadata.deviceName)\(label.map { ", label \($0)" } ?? ", any label")).")
            let recording = try Recording(metadata: RecordingMetadata(
                deviceName: metadata.deviceName, deviceLabel: metadata.deviceLabel, sampleRateHz: metadata.sampleRateHz,
                timestampClock: metadata.timestampClock, channels: metadata.channels,
                calibration: RecordingCalibration(force: result.calibration, peekNewtons: Double(result.settings.peekNewtons),
                                                  popNewtons: Double(result.settings.popNewtons)),
                labels: fromRecording == nil ? [] : metadata.labels), scans: driver.bytes)
            if let saveSession {
                do { try recording.write(to: URL(fileURLWithPath: saveSession)) } catch {
                    throw CommandFailure(.deviceFault, "cannot write the session recording \(saveSession): \(error)")
                }
                ui.say("Session recording: \(saveSession)")
            }
            if let plot {
                do {
                    let setup = try profile.setup(for: recording.metadata, file: source)
                    var p = ForcePlot(title: "Calibration session: \(metadata.deviceName) \(metadata.deviceLabel ?? "") with profile \(profileName)")
                    p.marks = driver.session.stepStarts.map { ForcePlot.Mark(scan: $0.scan, text: $0.step.description) }
                    try AtomicFile.write(Data(p.svg(recording, setup: setup).utf8), to: URL(fileURLWithPath: plot))
                    ui.say("Plot: \(plot)")
                } catch {
                    throw CommandFailure(.deviceFault, "cannot write the plot \(plot): \(error)")
                }
            }
        }
    }
}

/// The session plus the scans it has seen.
final class SessionDriver: @unchecked Sendable {
    private let lock = NSLock()
    private var _session: CalibrationSession
    let decoder: ScanDecoder
    private(set) var bytes: [UInt8] = []
    private(set) var scansSeen = 0

    init(_ session: CalibrationSession, decoder: ScanDecoder) {
        _session = session
        self.decoder = decoder
    }

    var session: CalibrationSession { lock.withLock { _session } }
    var step: CalibrationStep { lock.withLock { _session.step } }
    var result: CalibrationResult? { lock.withLock { _session.result } }

    var progressText: String {
        let s = session
        switch s.step {
        case .unloaded: return "the panel was never measured unloaded for \(JSON.format(s.plan.unloadedSeconds)) s"
        case .mass(let i): return "mass \(i + 1) of \(s.plan.massCount) was not set down, left still and lifted off"
        case .light, .firm: return "not enough \(s.step) were found"
        default: return "\(s.step)"
        }
    }

    func start() -> [SessionNote] { lock.withLock { _session.start() } }

    func setMass(_ i: Int, grams: Double) throws(CalibrationInputError) {
        lock.lock()
        defer { lock.unlock() }
        try _session.setMass(i, grams: grams)
    }

    func restartStep(atScan scan: Int) -> [SessionNote] { lock.withLock { _session.restartStep(atScan: scan) } }
    func finishVerification(atScan scan: Int) -> [SessionNote] { lock.withLock { _session.finishVerification(atScan: scan) } }

    /// Feeds whole scans, handing each scan's notes to `ui` as they come (a note may ask a question).
    func feed(_ chunk: [UInt8], ui: SessionUI) {
        bytes.append(contentsOf: chunk)
        decoder.forEachScan(chunk) { raw, ts in
            let notes = lock.withLock { _session.feed(raw, sample: scansSeen, timestampNs: ts) }
            scansSeen += 1
            if !notes.isEmpty { ui.handle(notes) }
        }
    }
}

/// What the person sees and answers.
final class SessionUI: @unchecked Sendable {
    let interactive: Bool
    let tty = isatty(1) != 0
    var masses: [Double] = []
    weak var driver: SessionDriver?
    private let saveLock = NSLock()
    private var progressShown = false
    /// What a save in progress or done wrote (a Ctrl-C after it must not say "nothing saved").
    private var saved: String?

    init(interactive: Bool) { self.interactive = interactive }

    func say(_ line: String) {
        endProgress()
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func endProgress() {
        if progressShown { FileHandle.standardOutput.write(Data("\n".utf8)) }
        progressShown = false
    }

    /// Whether a line of input is waiting on standard input.
    func lineWaiting() -> Bool {
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, 0) > 0 && fds.revents & Int16(POLLIN) != 0
    }

    func confirm(_ question: String) -> Bool {
        endProgress()
        FileHandle.standardOutput.write(Data(question.utf8))
        guard let answer = readLine() else { return false }
        let a = answer.trimmingCharacters(in: .whitespaces).lowercased()
        return a.isEmpty || a == "y" || a == "yes"
    }

    /// Runs `body` so that Ctrl-C waits for it: a save in progress finishes.
    func saving(_ path: String, _ body: () throws -> Void) throws {
        saveLock.lock()
        defer { saveLock.unlock() }
        try body()
        saved = path
    }

    /// Ctrl-C: say where, save nothing, end.
    func interrupted(step: CalibrationStep) {
        saveLock.lock()
        endProgress()
        if let saved {
            FileHandle.standardError.write(Data("\nforcestage calibrate: interrupted after saving \(saved)\n".utf8))
        } else {
            FileHandle.standardError.write(Data("\nforcestage calibrate: interrupted during step \(step); nothing saved\n".utf8))
        }
        exit(130)
    }

    private func stepNumber(_ s: CalibrationStep) -> String {
        switch s {
        case .unloaded: return "Step 1 of 5"
        case .mass: return "Step 2 of 5"
        case .light: return "Step 3 of 5"
        case .firm: return "Step 4 of 5"
        case .verify: return "Step 5 of 5"
        case .done: return "Done"
        }
    }

    func handle(_ notes: [SessionNote]) {
        for note in notes { handle(note) }
    }

    private func handle(_ note: SessionNote) {
        guard let driver else { return }
        let plan = driver.session.plan
        switch note {
        case .started(let step):
            switch step {
            case .unloaded:
                say("\(stepNumber(step)): unloaded panel. Take everything off the panel and do not touch it for \(JSON.format(plan.unloadedSeconds)) s.")
            case .mass(let i):
                let of = plan.massCount > 1 ? " \(i + 1) of \(plan.massCount)" : ""
                if i < masses.count {
                    say("\(stepNumber(step)): known mass\(of). Set the \(JSON.format(masses[i])) g mass down in the middle of the panel, leave it about 3 s, then lift it off.")
                    do { try driver.setMass(i, grams: masses[i]) } catch { say("  ! \(error)") }
                } else {
                    say("\(stepNumber(step)): known mass\(of). Weigh a mass, then set it down in the middle of the panel, leave it about 3 s, and lift it off.")
                    askMass(i, driver: driver)
                }
            case .light:
                say("\(stepNumber(step)): press lightly, as for a peek, \(plan.lightPresses) times: hold each about a second, then let go.")
            case .firm:
                say("\(stepNumber(step)): press firmly, as for a pop, \(plan.firmPresses) times: hold each about a second, then let go.")
            case .verify:
                say("\(stepNumber(step)): verification. Press lightly and firmly; each press is classified with the recommended profile. It ends after \(plan.verificationPresses) presses\(interactive ? " (or press Enter)" : ""), or after \(JSON.format(plan.verificationTimeoutSeconds)) s without a press (--verify-timeout).")
            case .done:
                break
            }
        case .progress(_, let fraction):
            guard tty else { return }
            let width = 30
            let filled = Int((fraction * Double(width)).rounded())
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardOutput.write(Data("\r  [\(bar)] \(Int((fraction * 100).rounded())) %".utf8))
            progressShown = true
        case .measured(_, let text):
            say("  ok: \(text)")
        case .pressCounted(let step, let count, let of, let stats):
            say("  \(step == .light ? "light" : "firm") press \(count)/\(of): held \(fixedText2(stats.holdMedian)) N (\(fixedText2(stats.holdMinimum))-\(fixedText2(stats.holdMaximum))), tremor ±\(Int((stats.tremor * 100).rounded())) %, top \(fixedText2(stats.maximum)) N")
        case .problem(_, let text, let restart):
            say("  ! \(text)")
            say("  starting \(restart) again")
        case .recommended(let result):
            say("Recommended (each value and why):")
            for r in result.reasons { say("  \(r)") }
        case .event(let e):
            say("  \(e.kind.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(fixedText2(Double(e.forceNewtons))) N")
        }
    }

    private func askMass(_ i: Int, driver: SessionDriver) {
        while true {
            endProgress()
            FileHandle.standardOutput.write(Data("  mass \(i + 1) in grams: ".utf8))
            guard let line = readLine() else {
                say("  ! no answer (end of input); give the masses with --mass")
                exit(1)
            }
            guard let grams = Double(line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "g", with: "")) else {
                say("  ! \"\(line)\" is not a number of grams; type e.g. 500")
                continue
            }
            do {
                try driver.setMass(i, grams: grams)
                return
            } catch {
                say("  ! \(error)")
            }
        }
    }
}

func fixedText2(_ v: Double) -> String { String(format: "%.2f", v) }
