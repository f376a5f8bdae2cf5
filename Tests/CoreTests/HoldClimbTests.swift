import Testing
import ForceStageCore

/// The hold is the touch-and-hold route for a steady press: a peek still
/// climbing toward pop gets none, a peek that settles gets it on time.
/// Through the public pipeline (peek 1 N, pop 2.5 N, hold 500 ms), scan by
/// scan and in blocks (`LowRateSpikeTests.kinds`), which must agree.
@Suite("No hold on a climb toward pop")
struct HoldClimbTests {
    /// `seconds` of forces at `rate` scans/s from `a` to `b` N, in a straight line.
    static func ramp(_ seconds: Double, _ a: Double, _ b: Double, rate: Double) -> [Double] {
        let n = Int((seconds * rate).rounded())
        return (1...n).map { a + (b - a) * Double($0) / Double(n) }
    }

    static func rest(_ seconds: Double, rate: Double) -> [Double] {
        (0..<Int(seconds * rate)).map { Double($0 % 3) * 0.004 }
    }

    /// Past peek in 0.2 s, then a steady climb at `climb` N/s from 1.1 N to
    /// 2.8 N (past pop), held 0.5 s, let go.
    static func climb(_ climb: Double, rate: Double) -> [Double] {
        rest(2, rate: rate) + ramp(0.2, 0, 1.1, rate: rate) + ramp(1.7 / climb, 1.1, 2.8, rate: rate)
            + Array(repeating: 2.8, count: Int(0.5 * rate)) + ramp(0.05, 2.8, 0, rate: rate) + rest(1, rate: rate)
    }

    @Test("A steady climb from peek to pop gets no hold, at every rate",
          arguments: [(60.0, 0.5), (60, 0.75), (80, 0.5), (320, 0.5), (500, 0.45), (860, 0.5)])
    func noHoldOnAClimb(rate: Double, climb: Double) throws {
        // It gains 0.11-0.19 N each 250 ms settle time, under the hold rise
        // (a tenth of the 1.5 N peek-pop gap): the settle clock never
        // restarted and the hold fired on the way up.
        let kinds = try LowRateSpikeTests.kinds(Self.climb(climb, rate: rate), holdMilliseconds: 500,
                                                sampleRateHz: Float(rate))
        #expect(kinds == ["peek", "pop", "release"], "\(rate) scans/s, \(climb) N/s")
    }

    @Test("A press that settles on a plateau below pop gets its hold, at every rate",
          arguments: [60.0, 80, 320, 500, 860])
    func holdOnAPlateau(rate: Double) throws {
        let forces = Self.rest(2, rate: rate) + Self.ramp(0.2, 0, 1.8, rate: rate)
            + Array(repeating: 1.8, count: Int(1.5 * rate)) + Self.ramp(0.05, 1.8, 0, rate: rate) + Self.rest(1, rate: rate)
        let scans = try LowRateSpikeTests.run(forces, batched: false, holdMilliseconds: 500, sampleRateHz: Float(rate))
        let blocks = try LowRateSpikeTests.run(forces, batched: true, holdMilliseconds: 500, sampleRateHz: Float(rate))
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        #expect(scans.map { String($0.split(separator: "@")[0]) } == ["peek", "hold", "release"], "\(scans)")
        // On time: the hold time after the peek (the press settled long before).
        let sample = { (kind: String) in scans.first { $0.hasPrefix(kind + "@") }.flatMap { Int($0.split(separator: "@")[1]) } }
        if let peek = sample("peek"), let hold = sample("hold") {
            #expect(hold - peek == Int((0.5 * rate).rounded(.up)), "\(scans)")
        }
    }

    @Test("A press that climbs, then settles below pop, gets its hold once it settles")
    func holdAfterAClimb() throws {
        // 500 scans/s: past peek, a climb at 0.5 N/s for a second, then held.
        let rate = 500.0
        let forces = Self.rest(2, rate: rate) + Self.ramp(0.2, 0, 1.1, rate: rate) + Self.ramp(1, 1.1, 1.6, rate: rate)
            + Array(repeating: 1.6, count: Int(1.5 * rate)) + Self.ramp(0.05, 1.6, 0, rate: rate) + Self.rest(1, rate: rate)
        let scans = try LowRateSpikeTests.run(forces, batched: false, holdMilliseconds: 500, sampleRateHz: Float(rate))
        let blocks = try LowRateSpikeTests.run(forces, batched: true, holdMilliseconds: 500, sampleRateHz: Float(rate))
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        #expect(scans.map { String($0.split(separator: "@")[0]) } == ["peek", "hold", "release"], "\(scans)")
        // Not before the climb ends (1.2 s after the rest, 0.1 s of it before the peek).
        let climbEnd = Int(3.2 * rate)
        let hold = scans.first { $0.hasPrefix("hold@") }.flatMap { Int($0.split(separator: "@")[1]) } ?? -1
        #expect(hold >= climbEnd && hold <= climbEnd + Int(0.5 * rate), "\(scans)")
    }
}
