import Testing
import ForceStageCore

/// A panel that cannot read below a floor (an FSR through its curve, which
/// holds its end values) relaxes after a press down to that floor, and the
/// next press comes as it gets there: the tracker carries the fall it
/// measured through that press, but a relaxation ends at the floor, so the
/// baseline stops there and a slow climb after it peeks and pops on time.
/// Through the public pipeline, scan by scan and in blocks, which must agree.
@Suite("A relaxation that ends at the panel's floor")
struct RelaxationFloorTests {
    /// `rate` scans/s: the unloaded reading falls from 0.3 N at 0.2 N/s to the
    /// floor (0 N) and stays there; a quick press to 2 N just after it gets
    /// there (40 ms up, 0.5 s held, 30 ms let-go); 0.6 s at the floor; a climb
    /// at 2 N/s to 3 N, 0.4 s held, a let-go, 1 s at the floor.
    static func stream(rate: Double) -> (forces: [Double], climbStart: Int) {
        func scans(_ seconds: Double) -> Int { Int(seconds * rate) }
        var f = (0..<scans(1.5)).map { 0.3 - 0.2 * Double($0) / rate }
        f += [Double](repeating: 0, count: scans(0.05))
        f += (0..<scans(0.04)).map { 2 * Double($0 + 1) / Double(scans(0.04)) }
        f += [Double](repeating: 2, count: scans(0.5))
        f += (0..<scans(0.03)).map { 2 * (1 - Double($0 + 1) / Double(scans(0.03))) }
        f += [Double](repeating: 0, count: scans(0.6))
        let climbStart = f.count
        f += (0..<scans(1.5)).map { 3 * Double($0 + 1) / Double(scans(1.5)) }
        f += [Double](repeating: 3, count: scans(0.4))
        f += (0..<scans(0.03)).map { 3 * (1 - Double($0 + 1) / Double(scans(0.03))) }
        f += [Double](repeating: 0, count: scans(1))
        // A count of noise, never below the floor.
        return (f.enumerated().map { i, x in max(0, x) + Double(i % 2) * 0.001 }, climbStart)
    }

    @Test("The climb after a press on a relaxation that reached the floor peeks and pops within max(2 scans, 10 ms)",
          arguments: [320.0, 500.0, 860.0])
    func climbAfterTheFloor(rate: Double) throws {
        let (forces, start) = Self.stream(rate: rate)
        let scans = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate), floorNewtons: 0)
        let blocks = try LowRateSpikeTests.run(forces, batched: true, sampleRateHz: Float(rate), floorNewtons: 0)
        #expect(scans == blocks, "scan by scan \(scans), in blocks \(blocks)")
        #expect(scans.map { String($0.split(separator: "@")[0]) } == ["peek", "release", "peek", "pop", "release"], "\(scans)")
        let target = max(2, Int((0.010 * rate).rounded(.down)))
        func at(_ events: [String], _ kind: String) throws -> Int {
            try #require(events.filter { $0.hasPrefix(kind + "@") }.last.flatMap { Int($0.split(separator: "@")[1]) })
        }
        for (kind, level) in [("peek", 1.0), ("pop", 2.5)] {
            let label = try #require(forces[start...].firstIndex { $0 >= level })
            let event = try at(scans, kind)
            #expect(abs(event - label) <= target, "\(kind) at \(event), the force reaches \(level) N at \(label)")
        }
        // The stream does exercise the floor: without one, the fall carried
        // through the quick press leaves the baseline below the floor, and
        // the climb peeks early.
        let unfloored = try LowRateSpikeTests.run(forces, batched: false, sampleRateHz: Float(rate))
        let label = try #require(forces[start...].firstIndex { $0 >= 1 })
        #expect(try at(unfloored, "peek") < label - target, "without a floor: \(unfloored)")
    }
}
