import Foundation
import Testing
import TestSupport
@testable import ForceStageCore

/// A block the block step refuses is taken in runs of scans in closed form,
/// each up to the next scan that can decide something, which alone is
/// stepped (`Classifier._stepRefused`): the classifier's whole state after
/// it must be what stepping its scans one by one leaves, on presses that cross every level inside a block, holds due in a
/// block, swings below the touch band and spikes, at a low, a middle and a high rate.
@Suite("Refused blocks in runs")
struct RefusedBlockTests {
    /// The classifier's whole state, compared with `==`: every stored
    /// property at every depth, found by reflection (so a field added to the
    /// classifier or to one of its rules is compared without being listed
    /// here), each leaf by its bytes (floats by bit pattern). Two stored
    /// properties are not state: the per-scan block buffer past its fill,
    /// which no step reads before writing it, and the count of blocks the
    /// fast path took whole, which says which path ran. The creep rules'
    /// trace reading (`creepForce`, which no later scan reads) is compared
    /// on its own (``traceDiffers(_:)``), so that a difference in it is
    /// reported as the trace's, apart from any other.
    struct WholeState: Equatable, CustomStringConvertible {
        let classifier: Classifier

        init(_ classifier: Classifier) { self.classifier = classifier }

        static func == (lhs: WholeState, rhs: WholeState) -> Bool { lhs.difference(rhs) == nil }

        var description: String { "classifier in state \(classifier._state)" }

        /// Whether the creep rules' trace reading differs (bit for bit).
        func traceDiffers(_ other: WholeState) -> Bool {
            classifier._creepForce.bitPattern != other.classifier._creepForce.bitPattern
        }

        /// The path of the first stored property that differs, nil where none does.
        func difference(_ other: WholeState) -> String? {
            Self.firstDifference(classifier, other.classifier, path: "Classifier", fill: Int(classifier._blockFill))
        }

        private static func bytes<T>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

        private static func firstDifference(_ a: Any, _ b: Any, path: String, fill: Int) -> String? {
            let ma = Mirror(reflecting: a), mb = Mirror(reflecting: b)
            let ca = Array(ma.children), cb = Array(mb.children)
            guard ca.count == cb.count else { return path }
            if ca.isEmpty { return bytes(a) == bytes(b) ? nil : path }
            for (x, y) in zip(ca, cb) {
                let label = x.label ?? "?"
                guard label == (y.label ?? "?") else { return path }
                if path == "Classifier" && (label == "_fastBlocks" || label == "_creepForce") { continue }
                if path == "Classifier" && label == "_block" {
                    let (u, v) = (x.value as! InlineArray<16, Float>, y.value as! InlineArray<16, Float>)
                    for k in 0..<fill where u[k].bitPattern != v[k].bitPattern { return "\(path)._block[\(k)]" }
                    continue
                }
                if let d = firstDifference(x.value, y.value, path: "\(path).\(label)", fill: fill) { return d }
            }
            return nil
        }
    }

    /// A deterministic press mix at `rate` scans/s: rests, taps, light presses
    /// held past the hold time (some still climbing), firm presses, slow
    /// rises, swings below the touch band, single-scan spikes and noise.
    static func forces(rate: Float, seconds: Float) -> [Float] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000
        }
        let count = Int(rate * seconds)
        var out: [Float] = []
        var t = 0
        while out.count < count {
            let shape = t % 6
            let length = Int(rate * (0.4 + Float(t % 5) * 0.35))
            for k in 0..<length {
                let u = Float(k) / Float(length)
                var v: Float
                switch shape {
                case 0: v = 0  // rest
                case 1: v = 1.6 * sin(u * .pi)  // a light press (peek, release)
                case 2: v = u < 0.2 ? 3.6 * u / 0.2 : (u < 0.8 ? 3.6 : 3.6 * (1 - u) / 0.2)  // firm (pop)
                case 3: v = u < 0.1 ? 1.5 * u / 0.1 : (u < 0.9 ? 1.5 + 0.6 * u : 2.1 * (1 - u) / 0.1)  // held, climbing (hold)
                case 4: v = -0.5 * sin(u * 6 * .pi) * (1 - u)  // swings below zero
                default: v = 0.2 + 0.15 * sin(u * 10 * .pi)  // a light touch across the band
                }
                v += 0.02 * noise()
                if (out.count + k) % 53 == 17 { v += 0.7 }  // a one-scan spike
                out.append(v)
            }
            t += 1
        }
        return Array(out.prefix(count))
    }

    /// Steps `forces` two ways: one scan at a time, and as the batch loop
    /// does (the block step, else the refused block's runs and steps),
    /// comparing the whole state at every block end; returns the refused
    /// blocks and whether the creep rules' trace reading ever differed.
    static func compare(_ forces: [Float], rate: Float, parameters: ClassifierParameters) -> (refused: Int, traceDiffered: Bool) {
        let stamps = forces.indices.map { Int64(Double($0) * 1e9 / Double(rate)) }
        var one = Classifier(parameters: parameters), many = one
        var ringOne = EventRing(), ringMany = EventRing()
        var eventsOne: [ForceEvent] = [], eventsMany: [ForceEvent] = []
        var stepped = 0
        func stepOne(upTo end: Int) {
            while stepped < end {
                one.step(force: forces[stepped], sample: Int64(stepped), timestampNs: stamps[stepped], into: &ringOne)
                while let e = ringOne.popFirst() { eventsOne.append(e) }
                stepped += 1
            }
        }
        var refused = 0
        var traceDiffered = false
        var i = 0
        let n = Classifier.blockScans
        while i < forces.count {
            if many._blockFill == 0 && forces.count - i >= n && i >= 2 {
                let a = SIMD16<Float>(forces[(i - 2)..<(i + 14)])
                let b = SIMD16<Float>(forces[(i - 1)..<(i + 15)])
                let c = SIMD16<Float>(forces[i..<(i + 16)])
                if many.stepBlock(older: a, previous: b, forces: c, firstSample: Int64(i), firstTimestampNs: stamps[i]) {
                    i += n
                    stepOne(upTo: i)
                    #expect(WholeState(many) == WholeState(one),
                            "after a block taken whole at scan \(i - n): \(WholeState(many).difference(WholeState(one)) ?? "") differs")
                    traceDiffered = traceDiffered || WholeState(many).traceDiffers(WholeState(one))
                    continue
                }
                stamps.withUnsafeBufferPointer { t in
                    many._stepRefused(older: a, previous: b, forces: c, stamps: t.baseAddress! + i, firstSample: Int64(i),
                                      into: &ringMany)
                }
                while let e = ringMany.popFirst() { eventsMany.append(e) }
                refused += 1
                i += n
                stepOne(upTo: i)
                let (x, y) = (WholeState(many), WholeState(one))
                #expect(x == y, "after a refused block at scan \(i - n): \(x.difference(y) ?? "") differs")
                traceDiffered = traceDiffered || x.traceDiffers(y)
                if x != y { return (refused, traceDiffered) }
                continue
            }
            many.step(force: forces[i], sample: Int64(i), timestampNs: stamps[i], into: &ringMany)
            while let e = ringMany.popFirst() { eventsMany.append(e) }
            i += 1
        }
        stepOne(upTo: forces.count)
        #expect(eventsMany == eventsOne)
        #expect(WholeState(many) == WholeState(one), "at the end: \(WholeState(many).difference(WholeState(one)) ?? "") differs")
        #expect(!eventsOne.isEmpty)
        return (refused, traceDiffered)
    }

    @Test("The state after a refused block is the per-scan steps' state", arguments: [10, 80, 500] as [Float])
    func prefixState(rate: Float) throws {
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: rate)
        let (refused, traceDiffered) = Self.compare(Self.forces(rate: rate, seconds: 120), rate: rate, parameters: parameters)
        // Refused blocks must make a share of them, or nothing was tested.
        #expect(refused > Int(rate) / 4, "only \(refused) refused blocks")
        #expect(!traceDiffered)
    }

    @Test("... with deferred press debounce, and with FSR creep: the allowance alone, and with compensation")
    func prefixStateVariants() throws {
        var deferred = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        deferred.pressDebounce = Debounce(.deferred, milliseconds: 30)
        let p1 = try ClassifierParameters(deferred, sampleRateHz: 500)
        let deferredRun = Self.compare(Self.forces(rate: 500, seconds: 60), rate: 500, parameters: p1)
        #expect(deferredRun.refused > 100)
        #expect(!deferredRun.traceDiffered)
        var creep = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        creep.creepAllowance = 0.15
        let p2 = try ClassifierParameters(creep, sampleRateHz: 500)
        let creepRun = Self.compare(Self.forces(rate: 500, seconds: 60), rate: 500, parameters: p2)
        #expect(creepRun.refused > 100)
        #expect(!creepRun.traceDiffered)
        // With creep compensation as well: the compensation's own state
        // (`_creepWord`, `_creepLast`, ...) after every block.
        creep.creepAmount = 0.1
        let p3 = try ClassifierParameters(creep, sampleRateHz: 500)
        let compensatedRun = Self.compare(Self.forces(rate: 500, seconds: 60), rate: 500, parameters: p3)
        #expect(compensatedRun.refused > 100)
        #expect(!compensatedRun.traceDiffered)
    }

    @Test("The batch loop gives the per-scan events and state on the same mixes")
    func batchLoop() throws {
        for rate in [10, 80, 500] as [Float] {
            let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: rate)
            let forces = Self.forces(rate: rate, seconds: 120)
            let stamps = forces.indices.map { Int64(Double($0) * 1e9 / Double(rate)) }
            let (one, many, a, b) = classifyBothWays(forces, stamps, parameters: parameters)
            #expect(a == b, "\(rate) scans/s: events differ")
            #expect(a.count > 20)
            #expect(WholeState(many) == WholeState(one),
                    "\(rate) scans/s: \(WholeState(many).difference(WholeState(one)) ?? "") differs")
        }
    }
}
