import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

/// The session plus the scans it has seen: what `calibrate` feeds, shared
/// with the Ctrl-C handler (hence the lock).
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
        case .cell(let i): return "the mass was not set down on cell \(i + 1)'s mark, left still and lifted off"
        case .check: return "the mass was not set down on the check spot"
        case .light, .firm: return "not enough \(s.step) were found"
        default: return "\(s.step)"
        }
    }

    func start() -> [SessionNote] { lock.withLock { _session.start() } }

    /// Hands one input to the session.
    func handle(_ input: SessionInput) -> [SessionNote] { lock.withLock { _session.handle(input) } }

    /// Feeds whole scans, handing each scan's notes to `ui` as they come (a note may ask a question).
    func feed(_ chunk: [UInt8], ui: SessionTerminal) {
        bytes.append(contentsOf: chunk)
        decoder.forEachScan(chunk) { raw, ts in
            let notes = handle(.scan(raw, sample: scansSeen, timestampNs: ts))
            scansSeen += 1
            if !notes.isEmpty { ui.show(notes) }
        }
    }
}

/// The terminal side of a calibration session: prints what the session says
/// (``SessionPrompts``), draws the progress bar, asks for masses and "save?".
/// It decides nothing.
final class SessionTerminal: @unchecked Sendable {
    let interactive: Bool
    /// The step's progress bar goes to standard error, only when that is a terminal.
    let progressTerminal = isatty(2) != 0
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
        // The bar is cleared (it is on standard error; the lines stay on standard output).
        if progressShown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
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
        exit(ExitStatus.interrupted.rawValue)
    }

    func show(_ notes: [SessionNote]) {
        for note in notes { show(note) }
    }

    private func show(_ note: SessionNote) {
        guard let driver else { return }
        let plan = driver.session.plan
        // The mass a weighing step asks for: the i-th known mass, or the one mass of a per-cell session.
        var askFor: Int?
        if case .started(let step) = note {
            switch step {
            case .mass(let i): askFor = i
            case .cell(0): askFor = 0
            default: break
            }
        }
        let grams: Double? = {
            guard case .started(let step) = note else { return nil }
            switch step {
            case .mass(let i): return i < masses.count ? masses[i] : nil
            case .cell, .check: return masses.first ?? driver.session.massesGrams.first ?? nil
            default: return nil
            }
        }()
        if case .progress(_, let fraction) = note {
            guard progressTerminal else { return }
            let width = 30
            let filled = Int((fraction * Double(width)).rounded())
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\r  [\(bar)] \(Int((fraction * 100).rounded())) %".utf8))
            progressShown = true
            return
        }
        for line in SessionPrompts.lines(note, plan: plan, grams: grams, interactive: interactive) { say(line) }
        guard let i = askFor else { return }
        if let grams, i < max(1, masses.count) {
            show(driver.handle(.mass(i, grams: grams)))
        } else if driver.session.massesGrams[i] == nil {
            askMass(i, driver: driver)
        }
    }

    private func askMass(_ i: Int, driver: SessionDriver) {
        while true {
            endProgress()
            FileHandle.standardOutput.write(Data("  mass \(i + 1) in grams: ".utf8))
            guard let line = readLine() else {
                say("  ! no answer (end of input); give the masses with --mass")
                exit(ExitStatus.deviceFault.rawValue)
            }
            guard let grams = DecimalNumber.parse(line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "g", with: "")) else {
                say("  ! \"\(line)\" is not a number of grams; type e.g. 500")
                continue
            }
            let notes = driver.handle(.mass(i, grams: grams))
            show(notes)
            if notes.isEmpty { return }
        }
    }
}
