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
    /// Every stored field of the classifier that `step` moves (the block's
    /// readings up to its fill), floats as bit patterns.
    static func snapshot(_ c: Classifier) -> [Int64] {
        func f(_ v: Float) -> Int64 { Int64(v.bitPattern) }
        func b(_ v: Bool) -> Int64 { v ? 1 : 0 }
        var s: [Int64] = [Int64(c._state.rawValue), f(c._baseline), b(c._suspended), c._spikesRejected,
                          f(c._older), f(c._previous), Int64(c._history), f(c._smoothed), b(c._seeded), f(c._noise),
                          f(c._slope), Int64(c._warmup), Int64(c._debounce.peekRun), Int64(c._debounce.popRun), Int64(c._debounce.releaseRun),
                          Int64(c._debounce.pressLock), Int64(c._debounce.releaseLock), c._peekSample, b(c._hold.done), f(c._hold.reference),
                          c._hold.referenceSample, f(c._settled), c._undershootSample, c._rise.restSample, f(c._crest),
                          f(c._rise.restForce), f(c._rise.mid), b(c._rise.concave), Int64(c._flatRun), Int64(c._quietScans),
                          Int64(c._lowScans), f(c._lastForce), Int64(c._blockFill), Int64(c._blockBusy), Int64(c._blockPeeks),
                          f(c._trend.rate), f(c._trend.anchor), Int64(c._trend.due), f(c._trend.fall), f(c._trend.fallBefore), f(c._trend.level),
                          f(c._trend.high), f(c._trend.left)]
        for x in [c._debounce.peekCrossing, c._debounce.popCrossing, c._debounce.releaseCrossing] {
            s += [b(x.active), x.sample, x.timestampNs]
        }
        for k in 0..<Int(c._blockFill) { s.append(f(c._block[k])) }
        return s
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
    /// comparing the whole state at every block end; returns the refused blocks.
    static func compare(_ forces: [Float], rate: Float, parameters: ClassifierParameters) -> Int {
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
                    #expect(snapshot(many) == snapshot(one), "after a block taken whole at scan \(i - n): the state differs")
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
                let (x, y) = (snapshot(many), snapshot(one))
                #expect(x == y, "after a refused block at scan \(i - n): the state differs")
                if x != y { return refused }
                continue
            }
            many.step(force: forces[i], sample: Int64(i), timestampNs: stamps[i], into: &ringMany)
            while let e = ringMany.popFirst() { eventsMany.append(e) }
            i += 1
        }
        stepOne(upTo: forces.count)
        #expect(eventsMany == eventsOne)
        #expect(snapshot(many) == snapshot(one))
        #expect(!eventsOne.isEmpty)
        return refused
    }

    @Test("The state after a refused block is the per-scan steps' state", arguments: [10, 80, 500] as [Float])
    func prefixState(rate: Float) throws {
        let parameters = try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2.5), sampleRateHz: rate)
        let refused = Self.compare(Self.forces(rate: rate, seconds: 120), rate: rate, parameters: parameters)
        // Refused blocks must make a share of them, or nothing was tested.
        #expect(refused > Int(rate) / 4, "only \(refused) refused blocks")
    }

    @Test("... with deferred press debounce, and with FSR creep (peeking scans stepped)")
    func prefixStateVariants() throws {
        var deferred = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        deferred.pressDebounce = Debounce(.deferred, milliseconds: 30)
        let p1 = try ClassifierParameters(deferred, sampleRateHz: 500)
        #expect(Self.compare(Self.forces(rate: 500, seconds: 60), rate: 500, parameters: p1) > 100)
        var creep = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        creep.creepAllowance = 0.15
        let p2 = try ClassifierParameters(creep, sampleRateHz: 500)
        #expect(Self.compare(Self.forces(rate: 500, seconds: 60), rate: 500, parameters: p2) > 100)
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
            #expect(Self.snapshot(many) == Self.snapshot(one), "\(rate) scans/s: state differs")
        }
    }
}
