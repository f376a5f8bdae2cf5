import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

@Suite("Comparison classifiers")
struct ComparatorTests {
    static let parameters = try! ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: 1000)

    static func kinds(_ c: ComparisonClassifier, _ forces: [Float]) -> [String] {
        c.events(forces: forces, parameters: parameters).map { "\($0.kind.name)@\($0.sample)" }
    }

    @Test("Each follows its own rule on a press that wavers around the peek level")
    func rules() {
        // 0, then 1.1 N, a dip to 0.9 N for two scans, 1.1 N again, then 0.
        let f: [Float] = [0, 0, 1.1, 1.1, 0.9, 0.9, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 0, 0, 0, 0, 0, 0, 0]
        // No hysteresis: the dip releases and re-peeks.
        #expect(Self.kinds(.threshold, f) == ["peek@2", "release@4", "peek@6", "release@12"])
        // The dip stays above the 0.6 N release level.
        #expect(Self.kinds(.hysteresis, f) == ["peek@2", "release@12"])
        // 5 ms at 1000 scans/s: a change counts on its fifth steady scan. The first
        // rise lasts two scans before the dip, so the timer restarts at scan 6.
        #expect(Self.kinds(.deferred, f) == ["peek@10", "release@16"])
    }

    @Test("On the synthesized corpus ForceStage beats all three")
    func corpus() throws {
        var ours: [EvaluationReport.Entry] = []
        var theirs: [ComparisonClassifier: [EvaluationReport.Entry]] = [:]
        for entry in Synthesizer.standardCorpus {
            let rec = try Synthesizer.synthesize(entry.options).recording
            let setup = try PanelSetup(metadata: rec.metadata, file: entry.stem)
            let result = replay(rec, setup: setup)
            let labels = rec.metadata.labels
            ours.append(.init(name: entry.stem, score: score(events: result.events, labels: labels, sampleRateHz: setup.sampleRateHz), counters: result.counters))
            let forces = calibratedForces(rec, setup: setup)
            for c in ComparisonClassifier.allCases {
                let s = score(events: c.events(forces: forces, parameters: setup.parameters), labels: labels, sampleRateHz: setup.sampleRateHz)
                theirs[c, default: []].append(.init(name: entry.stem, score: s, counters: result.counters))
            }
        }
        let f1 = EvaluationReport(entries: ours).overall.f1
        #expect(f1 >= 0.999)
        for c in ComparisonClassifier.allCases {
            let other = EvaluationReport(entries: theirs[c]!).overall
            #expect(other.f1 < f1, "\(c.rawValue): F1 \(other.f1) against ForceStage's \(f1)")
            #expect(other.labels == EvaluationReport(entries: ours).overall.labels)
        }
    }
}
