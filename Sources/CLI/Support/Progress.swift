import ForceStageClock
import ForceStageFormats
import Foundation

/// Progress of long work (`synth`, `evaluate` of many files, `replay --trace` to a
/// file) as one line on standard error, redrawn in place at most ten times a
/// second and cleared at the end, only when standard error is a terminal: a pipe,
/// a file, a log or a CI job gets nothing, and standard output is never touched.
struct StderrProgress {
    private let label: String
    private let enabled: Bool
    private var lastNs: Int64 = 0
    private var shown = false
    /// Redraws at most this often, nanoseconds.
    private static let intervalNs: Int64 = 100_000_000

    /// - Parameters:
    ///   - label: the work, first on the line (e.g. "synth").
    ///   - alsoWhen: a further condition (e.g. standard output is not the same terminal).
    init(_ label: String, alsoWhen: Bool = true) {
        self.label = label
        enabled = alsoWhen && isatty(2) == 1
    }

    /// Shows `fraction` done (clamped to 0...1) and an optional detail.
    mutating func update(_ fraction: Double, _ detail: String = "") {
        guard enabled else { return }
        let now = monotonicNanoseconds()
        guard !shown || now - lastNs >= Self.intervalNs else { return }
        lastNs = now
        shown = true
        let percent = fraction.isFinite ? Int((min(1, max(0, fraction)) * 100).rounded(.down)) : 0
        write("\r\u{1B}[K\(label) \(percent) %" + (detail.isEmpty ? "" : "  \(detail)"))
    }

    /// Clears the line (nothing when nothing was shown).
    mutating func finish() {
        guard shown else { return }
        write("\r\u{1B}[K")
        shown = false
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
