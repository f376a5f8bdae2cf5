import ArgumentParser
import ForceStageCommandLine
import ForceStageCore
import ForceStageFormats
import ForceStageTools
import Foundation

extension ForceStage {
    /// `forcestage plot REC.json [--events] -o out.svg`
    struct Plot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Plot a recording's force over time with the levels and the hysteresis band, as an SVG a browser opens.",
            discussion: """
            The curve is the force the classifier compares with its levels: the calibrated force \
            minus the tracked baseline. --events adds the emitted peek/pop/release/hold events with \
            their names; the recording's labels, when it has any, are ticks under the time axis.
            """)

        @Argument(help: "The recording's STEM.json.")
        var recording: String

        /// --profile or --calibration instead of the recording's own calibration.
        @OptionGroup var calibration: CalibrationOptions

        @Flag(help: "Mark the emitted events.")
        var events = false

        @Flag(help: "Leave out the recording's labels.")
        var noLabels = false

        @Option(help: "Plot only from this time, seconds.", transform: DecimalNumber.argument)
        var from: Double?

        @Option(help: "Plot only up to this time, seconds.", transform: DecimalNumber.argument)
        var to: Double?

        @Option(name: .customLong("width"), help: ArgumentHelp("Width in pixels.", valueName: "width"))
        var widthArgument: DecimalArgument = 1200
        var width: Double { widthArgument.value }

        @Option(name: [.short, .customLong("output")], help: "The SVG to write.")
        var output: String

        func validate() throws {
            guard output.hasSuffix(".svg") else { throw ValidationError("-o must name an .svg file, got '\(output)'") }
            try checkOption(from, "--from", 0...maximumOptionSeconds, "seconds")
            try checkOption(to, "--to", 0...maximumOptionSeconds, "seconds")
            if let from, let to, !(to > from) { throw ValidationError("--to must come after --from") }
            if !(width >= 300 && width <= 20000) { throw ValidationError("--width must be 300-20000 pixels") }
        }

        func run() throws {
            let rec = try loadRecording(recording)
            let setup = try makeSetup(for: rec, path: recording, calibration: calibration)
            let force = ForcePlot.netForce(rec, setup: setup)
            let all = replay(rec, setup: setup).events
            let rate = setup.sampleRateHz
            let first = max(0, Int(((from ?? 0) * rate).rounded()))
            let last = min(force.count, to.map { Int(($0 * rate).rounded()) } ?? force.count)
            // A range the recording does not reach is a usage error (64), not a device fault.
            guard last - first >= 2 else {
                throw CommandFailure(.usage, "--from/--to leave fewer than two scans of \(recording) (\(force.count) scans at \(JSON.format(rate))/s, "
                                     + "\(JSON.format(Double(force.count) / rate)) s); choose a range within it")
            }
            // Shift events and labels into the window.
            let shifted = all.filter { Int($0.sample) >= first && Int($0.sample) < last }.map { e -> ForceEvent in
                var e = e
                e.sample -= Int64(first)
                return e
            }
            let labels = noLabels ? [] : rec.metadata.labels.filter { $0.sample >= first && $0.sample < last }.map {
                Label(event: $0.event, sample: $0.sample - first, windowStart: $0.windowStart.map { $0 - first })
            }
            var plot = ForcePlot(title: "\(URL(fileURLWithPath: recording).lastPathComponent): \(rec.metadata.deviceName)\(rec.metadata.deviceLabel.map { " \($0)" } ?? ""), \(calibration.profile.map { "profile \(URL(fileURLWithPath: $0).lastPathComponent)" } ?? "its own calibration")")
            plot.width = width
            plot.startSeconds = Double(first) / rate
            plot.showEvents = events
            plot.showLabels = !noLabels
            plot.positions = ForcePlot.pressPositions(rec, setup: setup).map { Array($0[first..<last]) }
            let svg = plot.svg(force: Array(force[first..<last]), sampleRateHz: rate, settings: setup.settings, events: shifted, labels: labels)
            do { try AtomicFile.write(Data(svg.utf8), to: URL(fileURLWithPath: output)) } catch {
                throw CommandFailure(.deviceFault, "cannot write \(output): \(error)")
            }
            print("wrote \(output): \(last - first) scans, \(shifted.filter { $0.kind.isTransition }.count) events, \(labels.count) labels")
        }
    }
}
