import ArgumentParser
import ForceStageCommandLine
import ForceStageClock
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
            A panel of 2 to 4 force channels (--channel once per cell) is calibrated cell by cell: one \
            known mass is set down on a mark over each cell, each cell gets its own zero and gain, the \
            result is checked on a spot no placement used, and the profile holds each cell's position \
            (the recording spec's corners in channel order).
            Live verification reads presses while you answer at the terminal, so a live session with \
            standard input not a terminal is refused unless --no-verify is given; the profile then says \
            it was not verified live.
            Exit status: 0 saved (or declined; also when verification timed out, its recommendation kept), 1 no device, 2 bad input, 3 the session could not finish, 64 usage (also: a live session without a terminal and without --no-verify), 130 interrupted.
            """)

        @OptionGroup var source: DeviceOptions

        @OptionGroup var triggerOptions: TriggerOptions

        @Option(name: .customLong("channel"), help: "A force channel to calibrate (repeat for several cells); default: the device's first buffered voltage input.")
        var channels: [String] = []

        @OptionGroup var rateOption: RateOption
        var rate: Double? { rateOption.rate }

        @Option(help: "Analyse a recording of a calibration session instead of a live device.")
        var fromRecording: String?

        @Option(help: "A known mass in grams, in the order they are set down (repeat for several). Not asked for when given.", transform: DecimalNumber.argument)
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

        @Flag(help: "Save the profile without live verification (the profile says so); needed when standard input is not a terminal.")
        var noVerify = false

        @Option(name: .customLong("verify-timeout-ms"), help: ArgumentHelp("Verification ends after this many milliseconds without an event: nobody pressing, or a press never released (the recommendation is kept).", valueName: "MS"), transform: DecimalNumber.argument)
        var verifyTimeoutMs: Double?

        /// The seconds spelling of --verify-timeout-ms, kept working for existing scripts and hidden from help.
        @Option(name: .customLong("verify-timeout"), help: .hidden, transform: DecimalNumber.argument)
        var verifyTimeoutSeconds: Double?

        /// Seconds, from whichever spelling was given (default 60 s).
        var verifyTimeout: Double { verifyTimeoutMs.map { $0 / 1000 } ?? verifyTimeoutSeconds ?? 60 }

        @Option(name: .customLong("unloaded-seconds"), help: ArgumentHelp("Seconds the unloaded panel is measured.", valueName: "unloaded-seconds"))
        var unloadedSecondsArgument: DecimalArgument = 3
        var unloadedSeconds: Double { unloadedSecondsArgument.value }

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
            if verifyTimeoutMs != nil && verifyTimeoutSeconds != nil { throw ValidationError("give --verify-timeout-ms or --verify-timeout, not both") }
            if let ms = verifyTimeoutMs, !(ms > 0 && ms <= 86_400_000) { throw ValidationError("--verify-timeout-ms must be above 0 and at most 86400000 milliseconds") }
            if let s = verifyTimeoutSeconds, !(s > 0 && s <= 86_400) { throw ValidationError("--verify-timeout must be above 0 and at most 86400 seconds") }
        }

        /// Whether the profile is saved without live verification.
        var unverified: Bool { noVerify || verifyPresses == 0 }

        /// The header line of a profile saved without live verification.
        static let unverifiedNote = "Not verified live (--no-verify or --verify-presses 0): no press was classified with it before saving."

        var massCount: Int { masses ?? (mass.isEmpty ? (curve ? 3 : 1) : mass.count) }

        func run() throws {
            let ui = SessionTerminal(interactive: fromRecording == nil)
            if let path = fromRecording {
                let recording: Recording
                do { recording = try Recording.load(URL(fileURLWithPath: path)) } catch { throw badInput(error) }
                try runSession(metadata: recording.metadata, layout: recording.layout, ui: ui, source: path) { feed, _ in
                    feed(recording.scans)
                    return false
                }
                return
            }
            // Live verification classifies presses while the person may answer at the terminal; without
            // one nobody is there, so saving an unverified profile must be asked for by name.
            if verifyPresses > 0 && !noVerify && isatty(0) == 0 {
                throw CommandFailure(.usage, "live verification needs a terminal (standard input is not one); pass --no-verify to save the profile without it")
            }
            if noVerify {
                printError("forcestage calibrate: --no-verify: the profile is not verified live (it says so); replay a recording of the panel with it, or calibrate again at a terminal")
            }
            let live: LiveScans
            switch LiveScans.open(source, channels: channels, rate: rate, trigger: triggerOptions.trigger) {
            case .success(let s): live = s
            case .failure(let m): throw CommandFailure(.deviceFault, m.description)
            }
            ui.say("Calibrating \(live.displayName): channel\(live.channelIDs.count == 1 ? "" : "s") \(live.channelIDs.joined(separator: ", ")), \(JSON.format(live.sampleRateHz)) scans/s. Ctrl-C stops at any step; nothing is saved until the end.")
            live.start()
            defer { live.stop() }
            // When the last scans came (host clock): verification's timeout counts scans, so a
            // device that stops sending them is timed here and told to the session (`stalled`).
            var lastScansNs = monotonicNanoseconds()
            try runSession(metadata: live.metadata, layout: live.layout, ui: ui, source: live.displayName) { feed, session in
                for item in live.next(timeoutMs: 100) {
                    switch item {
                    case .scans(let bytes):
                        lastScansNs = monotonicNanoseconds()
                        feed(bytes)
                    case .lost(let why):
                        if session.step == .verify {
                            ui.say("  ! \(why) during verification; waiting for it to come back (verification ends after \(JSON.format(verifyTimeout)) s without scans, the recommendation kept)")
                        } else {
                            ui.say("  ! \(why) during \(session.step); waiting for it to come back (Ctrl-C stops; nothing is saved)")
                        }
                    case .back:
                        ui.say("  device back; starting \(session.step) again")
                        ui.show(session.handle(.deviceBack(atScan: session.scansSeen)))
                    }
                }
                if session.step == .verify, ui.lineWaiting() {
                    _ = readLine()
                    ui.show(session.handle(.enough(atScan: session.scansSeen)))
                }
                if session.step == .verify {
                    let stalled = Double(monotonicNanoseconds() - lastScansNs) / 1e9
                    ui.show(session.handle(.stalled(seconds: stalled, atScan: session.scansSeen)))
                }
                return true
            }
        }

        /// Runs the session over scans that `pump` delivers (it returns false once there are no more).
        private func runSession(metadata: RecordingMetadata, layout: ScanLayout, ui: SessionTerminal, source: String,
                                pump: (_ feed: ([UInt8]) -> Void, _ session: SessionDriver) throws -> Bool) throws {
            let force = metadata.forceChannels
            guard !force.isEmpty else { throw CommandFailure(.deviceFault, "\(source) has no force channel") }
            var plan = CalibrationPlan(channels: force.map(\.id), channelMaximumRaw: force.map { $0.format.maximumRaw },
                                       sampleRateHz: metadata.sampleRateHz)
            plan.channelMinimumRaw = force.map { $0.format.minimumRaw }
            plan.massCount = massCount
            plan.curve = curve
            plan.verificationPresses = unverified ? 0 : verifyPresses
            plan.verificationTimeoutSeconds = verifyTimeout
            plan.unloadedSeconds = unloadedSeconds
            if plan.perCell && (massCount > 1 || curve) {
                throw CommandFailure(.usage, "\(source): a panel of \(force.count) cells is calibrated cell by cell with one known mass, set down on each cell's mark in turn; give one --mass (no --masses, no --curve)")
            }
            let driver = SessionDriver(CalibrationSession(plan: plan), decoder: ScanDecoder(metadata: metadata, layout: layout))
            ui.masses = mass
            ui.driver = driver
            let stop = StopSignal {
                ui.interrupted(step: driver.step)
            }
            _ = stop
            ui.show(driver.start())
            var more = true
            while driver.step != .done && more {
                more = try pump({ bytes in driver.feed(bytes, ui: ui) }, driver)
            }
            if driver.step == .verify { ui.show(driver.handle(.enough(atScan: driver.scansSeen))) }
            guard driver.step == .done, let result = driver.result else {
                throw CommandFailure(.incomplete, "the session ended during step \(driver.step) (\(driver.progressText)); nothing saved. Record a whole session: unloaded, the mass\(massCount == 1 ? "" : "es"), \(plan.lightPresses) light and \(plan.firmPresses) firm presses")
            }
            let url = URL(fileURLWithPath: output)
            let label: String? = anyLabel ? nil : (matchLabel ?? metadata.deviceLabel)
            let profileName = name ?? url.deletingPathExtension().lastPathComponent
            var profile = result.profile(name: profileName, matchName: metadata.deviceName, matchLabel: label, file: url.path)
            // Where the device states no rate (an HX711), the profile's rate is what `run`, `meter` and `record` stream at.
            profile.sampleRateHz = metadata.sampleRateHz
            let stamp = ISO8601DateFormatter().string(from: Date())
            var header = ["Made by `forcestage calibrate` at \(stamp) from \(source) (\(metadata.deviceName)\(metadata.deviceLabel.map { ", label \($0)" } ?? ""))."]
            if fromRecording == nil && unverified {
                header.append(Self.unverifiedNote)
            }
            header += ["Why each value is what it is:"] + result.reasons.map { "  " + $0 }
            let text = profile.tomlText(header: header)
            // The question needs someone at the terminal; without one, --no-verify (required above) was the consent.
            if ui.interactive && !yes && isatty(0) != 0 {
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
                calibration: RecordingCalibration(force: result.calibration, settings: result.settings),
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
