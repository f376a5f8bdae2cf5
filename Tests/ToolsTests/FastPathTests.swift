import Foundation
import TestSupport
import Testing
@testable import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// The block fast path must be invisible: the same events, counters and
/// classifier state as stepping every scan, on every recording we have.
@Suite("Fast path")
struct FastPathTests {
    /// Every scan through `process(scan:)`, one at a time; `scores[i]` is the
    /// health scores after `i` scans.
    static func perScan(_ recording: Recording, _ setup: PanelSetup) -> (events: [ForceEvent], pipeline: ForcePipeline, scores: [[Int64]]) {
        var pipeline = setup.makePipeline()
        var ring = EventRing()
        var events: [ForceEvent] = []
        var scores = [healthScores(pipeline._scan)]
        let size = setup.layout.scanSize
        recording.scans.withUnsafeBytes { raw in
            for i in 0..<recording.scanCount {
                pipeline.process(scan: raw.baseAddress! + i * size, into: &ring)
                while let e = ring.popFirst() { events.append(e) }
                scores.append(healthScores(pipeline._scan))
            }
        }
        #expect(ring.overflowCount == 0)
        return (events, pipeline, scores)
    }

    /// The whole recording through `process(scans:)` in chunks of `chunkScans`.
    /// `scores` holds the health scores after each call, keyed by the scans consumed so far.
    static func batched(_ recording: Recording, _ setup: PanelSetup, chunkScans: Int)
        -> (events: [ForceEvent], pipeline: ForcePipeline, scores: [(scans: Int, scores: [Int64])]) {
        var pipeline = setup.makePipeline()
        var ring = EventRing()
        var events: [ForceEvent] = []
        var scores: [(scans: Int, scores: [Int64])] = []
        let size = setup.layout.scanSize
        recording.scans.withUnsafeBytes { raw in
            var offset = 0
            while offset + size <= raw.count {
                let end = min(raw.count, offset + chunkScans * size)
                offset += pipeline.process(scans: UnsafeRawBufferPointer(rebasing: raw[offset..<end]), into: &ring)
                while let e = ring.popFirst() { events.append(e) }
                scores.append((offset / size, healthScores(pipeline._scan)))
            }
        }
        #expect(ring.overflowCount == 0)
        return (events, pipeline, scores)
    }

    /// Every field of the pipeline's health scores, floats as bit patterns.
    static func healthScores(_ s: _ScanState) -> [Int64] {
        [Int64(s.stuckRun), Int64(s.forceHigh.bitPattern), Int64(s.changeScore), Int64(s.restScore),
         Int64(s.previousForce.bitPattern), Int64(s.previousTurn), s.runNoisy ? 1 : 0, s.runRestNoisy ? 1 : 0]
    }

    /// Checks one recording; returns the fraction of blocks the fast path took.
    static func check(_ recording: Recording, name: String) throws -> Double {
        let setup = try PanelSetup(metadata: recording.metadata, file: name)
        let (slow, slowPipe, slowScores) = perScan(recording, setup)
        #expect(slowPipe.classifier.fastBlocks == 0, "the per-scan path never takes a block")
        for chunk in [16, 37, 4096] {
            let (fast, fastPipe, fastScores) = batched(recording, setup, chunkScans: chunk)
            #expect(fast == slow, "\(name), chunks of \(chunk): events differ")
            #expect(fastPipe.counters == slowPipe.counters, "\(name): counters differ")
            #expect(fastPipe.classifier.baseline.bitPattern == slowPipe.classifier.baseline.bitPattern,
                    "\(name): baselines differ")
            #expect(fastPipe.classifier.state == slowPipe.classifier.state)
            #expect(fastPipe.classifier.spikesRejected == slowPipe.classifier.spikesRejected)
            // The health scores, which the block path advances in closed form where it can.
            #expect(healthScores(fastPipe._scan) == healthScores(slowPipe._scan), "\(name), chunks of \(chunk): health scores differ")
            // ... and after every call, not only at the end, where a score
            // pinned at its ceiling could hide a wrong step on the way up.
            let differ = fastScores.first { slowScores[$0.scans] != $0.scores }
            #expect(differ == nil, "\(name), chunks of \(chunk): health scores differ after \(differ?.scans ?? 0) scans")
        }
        // Classify-only over precomputed forces, batched, against per-scan steps.
        var forces: [Float] = []
        var stamps: [Int64] = []
        let probe = setup.makePipeline()
        recording.scans.withUnsafeBytes { raw in
            for i in 0..<recording.scanCount {
                let scan = raw.baseAddress! + i * setup.layout.scanSize
                forces.append(probe.force(scan: scan))
                stamps.append(probe.timestamp(scan: scan, sample: Int64(i)))
            }
        }
        let (one, many, a, b) = classifyBothWays(forces, stamps, parameters: setup.parameters)
        #expect(a == b, "\(name): classify-only events differ")
        #expect(many.spikesRejected == one.spikesRejected, "\(name): classify-only spike counts differ")
        #expect(a.count > 0)
        let (_, fastPipe, _) = batched(recording, setup, chunkScans: 4096)
        return Double(fastPipe.classifier.fastBlocks) / Double(recording.scanCount / Classifier.blockScans)
    }

    @Test("Batched processing gives exactly the per-scan events on the whole synthesized corpus")
    func corpus() throws {
        var taken: [String: Double] = [:]
        for entry in Synthesizer.standardCorpus {
            let recording = try Synthesizer.synthesize(entry.options).recording
            let fraction = try Self.check(recording, name: entry.stem)
            // At 10 scans/s a 16-scan block lasts 1.6 s and the corpus presses
            // more often than that: few blocks are quiet, and none need to be.
            if recording.metadata.sampleRateHz >= 80 { taken[entry.stem] = fraction }
        }
        // The fast path must actually run, or the comparison above proves nothing.
        #expect(taken.count >= 9)
        for (stem, fraction) in taken {
            print("fast path: \(stem) \(Int(fraction * 100)) % of blocks")
            #expect(fraction > 0.5, "\(stem): the fast path took only \(Int(fraction * 100)) % of blocks")
        }
    }

    @Test("… and on the independent recordings")
    func shared() throws {
        guard sharedRecordingsPresent else {
            print("skipped: \(sharedSkipReason)")
            return
        }
        for name in ["hx711-80hz-sample", "fsr-ads1115-860hz-sample", "panel4-500hz-sample", "panel4-500hz-offcentre-sample",
                     "panel4-500hz-vibration-sample", "fsr-475hz-creep-sample", "real/3dtouch-thumb", "real/gait-insole"] {
            let recording = try Recording.load(sharedRecordings.appendingPathComponent(name + ".json"))
            _ = try Self.check(recording, name: name)
        }
    }

    @Test("A held press with tremor and spikes (a window wider than a spike) takes the block path and counts its spikes as per-scan steps do")
    func wideBlocks() throws {
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: 500)
        // Rest, a press to 3.5 N held for 4 s with an 8 Hz tremor of ±0.4 N
        // (a window spans 0.8 N, past the spike size of 0.25 N) and a
        // one-scan spike of +0.6 N every 37 scans, the release, rest.
        var forces: [Float] = []
        for _ in 0..<400 { forces.append(0) }
        for k in 0..<50 { forces.append(3.5 * Float(k) / 50) }
        for k in 0..<2000 {
            let tremor = 0.4 * Float(sin(2 * Double.pi * 8 * Double(k) / 500))
            forces.append(3.5 + tremor + (k % 37 == 18 ? 0.6 : 0))
        }
        for k in 0..<50 { forces.append(3.5 * Float(50 - k) / 50) }
        for _ in 0..<400 { forces.append(0) }
        let stamps = forces.indices.map { Int64($0) * 2_000_000 }
        let (one, many, a, b) = classifyBothWays(forces, stamps, parameters: parameters)
        #expect(a == b)
        #expect(a.map(\.kind) == [.peek, .pop, .release])
        #expect(one.spikesRejected >= 50, "the held press's spikes are rejected")
        #expect(many.spikesRejected == one.spikesRejected)
        #expect(many.baseline.bitPattern == one.baseline.bitPattern)
        // 2,900 scans, 181 blocks: the rest's 50 and most of the held press's 125.
        #expect(many.fastBlocks > 150, "only \(many.fastBlocks) blocks taken whole")
    }

    @Test("An idle touch on both sides of the touch band takes the block path with the last scan at rest as per-scan steps leave it")
    func touchBandBlocks() throws {
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: 500)
        // Rest, 3.2 s of a light touch swinging 0.15 ± 0.24 N at 20 Hz across
        // the touch band (0.3 N), below the release level, rest.
        var forces: [Float] = Array(repeating: 0, count: 800)
        for k in 0..<1600 { forces.append(0.15 + 0.24 * Float(sin(2 * Double.pi * 20 * Double(k) / 500))) }
        forces += Array(repeating: 0, count: 400)
        let stamps = forces.indices.map { Int64($0) * 2_000_000 }
        let (one, many, a, b) = classifyBothWays(forces, stamps, parameters: parameters)
        #expect(a.isEmpty && b.isEmpty)
        #expect(many._rise.restSample == one._rise.restSample && many._rise.restForce.bitPattern == one._rise.restForce.bitPattern)
        #expect(many._rise.mid.bitPattern == one._rise.mid.bitPattern && many._rise.concave == one._rise.concave)
        #expect(many.baseline.bitPattern == one.baseline.bitPattern && many.spikesRejected == one.spikesRejected)
        // 175 blocks: the rest's 75 and the touch's 100, each on both sides of the band.
        #expect(many.fastBlocks > 150, "only \(many.fastBlocks) blocks taken whole")
    }
}
