import ArgumentParser
import ForceStageCommandLine
import Foundation
import ForceStageFormats
import ForceStageTools

extension ForceStage {
    /// `forcestage synth`: labelled recordings from physical models of the supported panels.
    struct Synth: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Synthesize labelled forcestage-recording/1 recordings from panel models.",
            discussion: """
                The same options always give the same bytes. Labels follow the recording spec and \
                come from the noise-free press force; artefacts never change them.
                Examples:
                  forcestage synth --panel hx711-80 --seed 7 --duration 60 -o out/hx711.json
                  forcestage synth --corpus corpus/
                  forcestage synth --panel panel4 --seed 3 --duration 120 --scenario vibration,tapping-bursts -o out/p4.json
                  forcestage synth --corpus scenarios/ --scenario all
                  forcestage synth --panel panel4 --seed 21 --duration 60 --scenario sliding -o out/slide.json
                  forcestage synth --panel panel3 --seed 5 --duration 60 -o out/triangle.json
                  forcestage synth --panel hx711-80 --seed 7 --duration 30 --presses 6 --negative-gain -o out/negative.json
                Multi-cell panels (AD7124-4, 500 scans/s, a gain and a zero per cell, labels with x/y): \
                panel2 is a bar on two cells (presses along it, y 0.5), panel3 a plate on three cells \
                (the triangle [0,0] [1,0] [0.5,1]; presses inside it), panel4 a plate on four corner cells.
                """
        )

        @Option(help: "Panel model: \(PanelKind.namesText) (panel2: a bar on two cells, panel3: a triangle of three, panel4: four corners).")
        var panel: String?

        @Option(help: "Seed of the deterministic generator.")
        var seed: UInt64 = 1

        @Option(name: .customLong("duration"), help: ArgumentHelp("Length of the recording in seconds.", valueName: "duration"))
        var durationArgument: DecimalArgument = 60
        var duration: Double { durationArgument.value }

        @Option(help: "Number of presses (default: as many as fit).")
        var presses: Int?

        @Option(help: "Artefacts: all, none, or a comma list of noise,hum,spikes,drift,relaxation,saturation,drops.")
        var artefacts: String = "all"

        @Option(help: "Real-sensor scenarios: none, all, or a comma list of \(ScenarioSet.names.map(\.0).joined(separator: ",")). With --corpus: write the scenario corpus instead of the standard one.")
        var scenario: String = "none"

        @Option(help: "Seed of the manufactured unit (zero, gain, levels); default: --seed. The same unit seed with another --seed is the same panel pressed differently.")
        var unitSeed: UInt64?

        @Option(help: "Presses: standard (the mix of peeks, pops, taps, ramps...) or session (a calibration session: unloaded, masses, 5 light, 5 firm, verification).")
        var script: String = "standard"

        @Option(help: "With --script session: the known masses set down, grams, comma-separated.")
        var masses: String = "500"

        @Option(help: "Label at this profile's levels, on the noise-free force as its calibration reads it (what a classifier with that profile must emit).")
        var labelProfile: String?

        @Flag(help: "Wire the panel's load cells the other way round: force lowers the counts (the raw words are inverted, the calibration's zero and gain follow, the labels stay). Not for a force-sensing resistor's curve.")
        var negativeGain = false

        @Option(name: [.short, .customLong("output")], help: "Where to write: DIR/STEM.json (STEM.iio is written beside it).")
        var output: String?

        @Option(help: "Write the standard corpus (every panel, several seeds) into this directory instead.")
        var corpus: String?

        func validate() throws {
            if case .failure(let bad) = ScenarioSet.parse(scenario) {
                throw ValidationError("unknown scenario '\(bad.word)'; use all, none, or a comma list of \(ScenarioSet.names.map(\.0).joined(separator: ","))")
            }
            if corpus != nil {
                guard output == nil else { throw ValidationError("give either --corpus DIR or -o DIR/STEM.json, not both") }
                guard panel == nil, presses == nil else {
                    throw ValidationError("--corpus writes a fixed set; drop --panel and --presses, or use -o for one recording")
                }
                return
            }
            guard let panel else { throw ValidationError("missing --panel; use one of \(PanelKind.namesText)") }
            guard PanelKind(rawValue: panel) != nil else {
                throw ValidationError("unknown panel '\(panel)'; use one of \(PanelKind.namesText)")
            }
            guard duration > 0, duration.isFinite else {
                throw ValidationError("--duration must be above zero seconds, got \(duration)")
            }
            try checkOption(duration, "--duration", 0.001...86_400, "seconds")
            try checkOption(presses, "--presses", 1...100_000, "presses")
            if case .failure(let bad) = ArtefactSet.parse(artefacts) {
                throw ValidationError("unknown artefact '\(bad.word)'; use all, none, or a comma list of \(ArtefactSet.names.map(\.0).joined(separator: ","))")
            }
            guard script == "standard" || script == "session" else {
                throw ValidationError("unknown --script '\(script)'; use standard or session")
            }
            if case .success(let set) = ScenarioSet.parse(scenario), !set.isDisjoint(with: .multiCell) {
                let names = set.intersection(.multiCell).text
                guard let kind = PanelKind(rawValue: panel), kind.cellCount > 1 else {
                    throw ValidationError("--scenario \(names) moves presses across a plate with several cells, and \(panel) has one; use --panel \(PanelKind.multiCellNamesText)")
                }
                guard script == "standard" else {
                    throw ValidationError("--scenario \(names) moves presses, and a calibration session's masses stay put; drop one of --scenario \(names) and --script session")
                }
            }
            guard parsedMasses != nil else {
                throw ValidationError("--masses must be 1 to 32 masses in grams, each above zero and at most 1000000, comma-separated (e.g. 50,100,200,500), got '\(masses)'")
            }
            guard let output else { throw ValidationError("missing -o DIR/STEM.json (or give --corpus DIR)") }
            guard output.hasSuffix(".json") else {
                throw ValidationError("-o must name the STEM.json half of a recording, got '\(output)'")
            }
        }

        func run() throws {
            if let corpus {
                guard case .success(let scenarios) = ScenarioSet.parse(scenario) else { return }
                let urls = try writeOrFail(URL(fileURLWithPath: corpus)) { try Synthesizer.writeCorpus(to: $0, scenarios: scenarios) }
                print("wrote \(urls.count) recordings to \(corpus)")
                return
            }
            guard let panel, let kind = PanelKind(rawValue: panel), let output,
                  case .success(let set) = ArtefactSet.parse(artefacts),
                  case .success(let scenarios) = ScenarioSet.parse(scenario) else { return }  // validate() refused these already
            var labelCalibration: RecordingCalibration?
            if let labelProfile {
                let profile: Profile
                do { profile = try Profile.load(URL(fileURLWithPath: labelProfile)) } catch { throw CommandFailure(.badInput, error.description) }
                labelCalibration = RecordingCalibration(force: profile.channels, peekNewtons: Double(profile.settings.peekNewtons),
                                                        popNewtons: Double(profile.settings.popNewtons))
            }
            let options = SynthOptions(panel: kind, seed: seed, duration: duration, presses: presses, artefacts: set,
                                       unitSeed: unitSeed,
                                       script: script == "session" ? .calibrationSession(massesGrams: parsedMasses ?? []) : .standard,
                                       labelCalibration: labelCalibration, scenarios: scenarios)
            let result: SynthResult
            var progress = StderrProgress("synth \(URL(fileURLWithPath: output).lastPathComponent)")
            do { result = try Synthesizer.synthesize(options) { progress.update($0) } } catch {
                progress.finish()
                throw CommandFailure(.badInput, error.description)
            }
            progress.finish()
            var recording = result.recording
            if negativeGain {
                let label = recording.metadata.deviceLabel.map { $0 + "-negative-gain" }
                do { recording = try NegativeGain.twin(of: recording, label: label) } catch {
                    throw CommandFailure(.usage, "--negative-gain: \(panel): \(error); use a load-cell panel (\(PanelKind.allCases.filter { $0 != .fsrADS1115 }.map(\.rawValue).joined(separator: ", ")))")
                }
            }
            let url = URL(fileURLWithPath: output)
            try writeOrFail(url) { try recording.write(to: $0) }
            let labels = recording.metadata.labels
            print("wrote \(output): \(recording.scanCount) scans\(negativeGain ? " (negative gain)" : ""), \(result.script.presses.count) presses, "
                  + "\(labels.filter { $0.event == .peek }.count) peek / \(labels.filter { $0.event == .pop }.count) pop / "
                  + "\(labels.filter { $0.event == .release }.count) release labels, "
                  + "\(result.spikeScans.count) spikes, \(result.droppedScans) dropped scans")
            print("presses: " + result.script.presses.map(\.kind.rawValue).joined(separator: " "))
        }

        /// `--masses` as grams, nil when a value is not a positive number.
        private var parsedMasses: [Double]? {
            let values = masses.split(separator: ",").map { DecimalNumber.parse($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.count <= 32, values.allSatisfy({ ($0 ?? 0) > 0 && $0! <= 1_000_000 }) else { return nil }
            return values.map { $0! }
        }

        /// Runs `body`, turning a filesystem failure into one line that names the path.
        private func writeOrFail<T>(_ url: URL, _ body: (URL) throws -> T) throws -> T {
            do { return try body(url) } catch {
                let detail = (error as? POSIXFailure)?.description ?? "cannot write \(url.path)"
                throw CommandFailure(.deviceFault, "\(detail); check that the directory exists and is writable")
            }
        }
    }
}

/// A recording that could not be made or written: one line, exit code 1.

