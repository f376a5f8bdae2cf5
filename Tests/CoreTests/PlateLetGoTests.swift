import Testing
import ForceStageCore

/// The let-go rule on a four-cell plate: presses one after another on a zero
/// that a thermal ramp carries up on every cell release on the finger's
/// lift-off, as on a single cell (`LetGoTests`), through the plate's own
/// paths: bytes of four cells in, scan by scan and in blocks, which must agree.
@Suite("Let-go on a drifted zero, on a four-cell plate")
struct PlateLetGoTests {
    static let perNewton: Double = 10_000

    /// Events (`kind@sample`) and the positions of the peeks, for `finger`
    /// newtons pressed at `at` and `drift` newtons added to the plate's
    /// unloaded reading (a quarter on each cell), at 500 scans/s.
    static func run(finger: [Double], drift: [Double], at p: PlatePoint, batched: Bool) throws
        -> (events: [String], peekPositions: [PlatePoint?]) {
        let format = try ChannelFormat(parsing: "le:s32/32>>0")
        let layout = try ScanLayout((0..<4).map { (index: $0, format: format) })
        let calibration = try PanelCalibration((0..<4).map { (slot: $0, calibration: ChannelCalibration.linear(zeroRaw: 0, newtonsPerCount: Float(1 / perNewton))) },
                                               layout: layout)
        let settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        var pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(settings, sampleRateHz: 500), timestampSlot: nil,
                                     positions: .corners)
        let share = [(1 - p.x) * (1 - p.y), p.x * (1 - p.y), (1 - p.x) * p.y, p.x * p.y].map(Double.init)
        let size = layout.scanSize
        var bytes = [UInt8](repeating: 0, count: size * finger.count)
        bytes.withUnsafeMutableBytes { b in
            for i in finger.indices {
                for c in 0..<4 {
                    let n = finger[i] * share[c] + drift[i] / 4
                    format.encode(Int64((n * perNewton).rounded()) + Int64((i + c) % 3), to: b.baseAddress! + i * size + 4 * c)
                }
            }
        }
        var events: [String] = []
        var positions: [PlatePoint?] = []
        LowRateSpikeTests.feed(&pipeline, bytes, scanSize: size, batched: batched) { e in
            guard e.kind.isGesture else { return }
            events.append("\(e.kind.name)@\(e.sample)")
            if e.kind == .peek { positions.append(e.position) }
        }
        return (events, positions)
    }

    @Test("Presses on a plate whose zero a ramp carries up release within the release window of each let-go, at the press's position")
    func releasesOnLetGo() throws {
        let rate = 500.0, slope = 0.05, lead = 5.0
        let presses = LetGoTests.drifting(rest: 0.6)
        let (finger, letGos) = LetGoTests.script(presses, rate: rate, lead: lead, slope: 0, tail: 3)
        let drift = finger.indices.map { slope * Double(max(0, $0 - Int(lead * rate))) / rate }
        let at = PlatePoint(x: 0.3, y: 0.6)
        let scans = try Self.run(finger: finger, drift: drift, at: at, batched: false)
        let blocks = try Self.run(finger: finger, drift: drift, at: at, batched: true)
        #expect(scans.events == blocks.events, "scan by scan \(scans.events), in blocks \(blocks.events)")
        let releases = scans.events.filter { $0.hasPrefix("release@") }.map { Int($0.split(separator: "@")[1])! }
        #expect(scans.events.filter { $0.hasPrefix("peek@") }.count == presses.count, "\(scans.events)")
        #expect(scans.events.filter { $0.hasPrefix("pop@") }.isEmpty, "\(scans.events)")
        #expect(releases.count == letGos.count, "\(scans.events)")
        let late = Int((0.1 * rate).rounded()), letGoScans = Int((0.03 * rate).rounded())
        for (release, letGo) in zip(releases, letGos) {
            #expect(release >= letGo && release <= letGo + letGoScans + late, "release at \(release), let-go from \(letGo): \(scans.events)")
        }
        // The drift is shared by the four cells, so the position is the finger's.
        for p in scans.peekPositions {
            let d = p.map { (($0.x - at.x) * ($0.x - at.x) + ($0.y - at.y) * ($0.y - at.y)).squareRoot() } ?? .infinity
            #expect(d < 0.05, "peek at \(String(describing: p))")
        }
    }
}
