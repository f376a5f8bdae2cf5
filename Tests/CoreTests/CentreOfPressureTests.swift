import Testing
import ForceStageCore

/// The centre of pressure on a four-cell plate, bytes in, events out, with
/// each cell reading its own unloaded offset (the drift a real panel has).
@Suite("Centre of pressure")
struct CentreOfPressureTests {
    static let perNewton: Float = 1000   // counts per newton

    /// A press at `at` (peaking at 3 N) on a 500 scans/s plate whose cells read
    /// `offsets` newtons unloaded; noise-free. Returns the gesture events.
    /// `share`: each cell's part of the load (default: bilinear over the four corners).
    static func press(at p: PlatePoint, offsets: [Float], positions: CellPositions?, share given: [Float]? = nil) throws -> [ForceEvent] {
        let cells = offsets.count
        let format = try ChannelFormat(parsing: "le:s32/32>>0")
        let layout = try ScanLayout((0..<cells).map { (index: $0, format: format) })
        let calibration = try PanelCalibration((0..<cells).map { (slot: $0, calibration: ChannelCalibration.linear(zeroRaw: 0, newtonsPerCount: 1 / perNewton)) },
                                               layout: layout)
        var settings = ClassifierSettings(peekNewtons: 1.3, popNewtons: 2.9)
        settings.holdMilliseconds = 0
        var pipeline = ForcePipeline(layout: layout, calibration: calibration,
                                     parameters: try ClassifierParameters(settings, sampleRateHz: 500), timestampSlot: nil,
                                     positions: positions)
        // Corner weights of a point: bilinear, as a rigid plate on four corner cells shares a load.
        let share: [Float] = given ?? [(1 - p.x) * (1 - p.y), p.x * (1 - p.y), (1 - p.x) * p.y, p.x * p.y]
        var bytes = [UInt8](repeating: 0, count: layout.scanSize)
        var ring = EventRing()
        var events: [ForceEvent] = []
        for i in 0..<2000 {
            // 1 s idle, a 100 ms ramp to 3 N, held 0.4 s, a 100 ms ramp down, idle.
            let t = i - 500
            let force: Float = t < 0 ? 0 : t < 50 ? 3 * Float(t) / 50 : t < 250 ? 3 : t < 300 ? 3 * Float(300 - t) / 50 : 0
            bytes.withUnsafeMutableBytes { b in
                for c in 0..<cells {
                    // A count of dither keeps the sensor from looking stuck.
                    let raw = Int64(((offsets[c] + force * share[c]) * perNewton).rounded()) + Int64(i % 3)
                    format.encode(raw, to: b.baseAddress! + 4 * c)
                }
            }
            bytes.withUnsafeBytes { pipeline.process(scan: $0.baseAddress!, into: &ring) }
            while let e = ring.popFirst() { events.append(e) }
        }
        return events.filter { $0.kind.isGesture }
    }

    static func distance(_ a: PlatePoint?, _ b: PlatePoint) -> Float {
        guard let a else { return .infinity }
        let dx = a.x - b.x, dy = a.y - b.y
        return (dx * dx + dy * dy).squareRoot()
    }

    @Test("Peek, pop and release carry the press position, the cells' unloaded offsets taken off")
    func offCentre() throws {
        let at = PlatePoint(x: 0.3, y: 0.7)
        // 0.06 N summed unloaded, all on two cells: uncorrected, it would pull
        // the 1.3 N peek's position about 0.03 towards cells 1 and 3.
        let events = try Self.press(at: at, offsets: [0, 0.04, 0, 0.02], positions: .corners)
        #expect(events.map(\.kind) == [.peek, .pop, .release])
        for e in events {
            #expect(Self.distance(e.position, at) < 0.005, "\(e.kind.name) at \(String(describing: e.position))")
        }
    }

    @Test("Cell positions decide the frame: mirrored cells give the mirrored position")
    func mirrored() throws {
        let mirrored = try CellPositions([PlatePoint(x: 1, y: 0), PlatePoint(x: 0, y: 0),
                                          PlatePoint(x: 1, y: 1), PlatePoint(x: 0, y: 1)])
        let events = try Self.press(at: PlatePoint(x: 0.2, y: 0.6), offsets: [0, 0, 0, 0], positions: mirrored)
        #expect(!events.isEmpty)
        for e in events { #expect(Self.distance(e.position, PlatePoint(x: 0.8, y: 0.6)) < 0.005) }
    }

    @Test("Without cell positions no event carries one")
    func noPositions() throws {
        let events = try Self.press(at: PlatePoint(x: 0.3, y: 0.7), offsets: [0, 0, 0, 0], positions: nil)
        #expect(events.map(\.kind) == [.peek, .pop, .release])
        #expect(events.allSatisfy { $0.position == nil })
    }

    @Test("Positions are validated: outside the plate, not finite, collinear, too few")
    func validation() {
        #expect(throws: PositionError.outsidePlate(cell: 1)) {
            try CellPositions([PlatePoint(x: 0, y: 0), PlatePoint(x: 1.2, y: 0), PlatePoint(x: 0, y: 1)])
        }
        #expect(throws: PositionError.notFinite(cell: 0)) {
            try CellPositions([PlatePoint(x: .nan, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0, y: 1)])
        }
        #expect(throws: PositionError.collinear) {
            try CellPositions([PlatePoint(x: 0, y: 0), PlatePoint(x: 0.5, y: 0.5), PlatePoint(x: 1, y: 1)])
        }
        #expect(throws: PositionError.tooFewCells(1)) { try CellPositions([PlatePoint(x: 0, y: 0)]) }
        #expect(throws: PositionError.samePoint) { try CellPositions([PlatePoint(x: 0.3, y: 0.3), PlatePoint(x: 0.3, y: 0.3)]) }
        #expect(CellPositions.standard(forCells: 4) == .corners)
        #expect(CellPositions.standard(forCells: 1) == nil)
        #expect(CellPositions.standard(forCells: 5) == nil)
    }

    @Test("The default positions are the spec's points as the checked initialiser takes them, each of them")
    func defaultsPassTheChecks() throws {
        let spec: [(CellPositions, [PlatePoint])] = [
            (.bar, [PlatePoint(x: 0, y: 0.5), PlatePoint(x: 1, y: 0.5)]),
            (.triangle, [PlatePoint(x: 0, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0.5, y: 1)]),
            (.corners, [PlatePoint(x: 0, y: 0), PlatePoint(x: 1, y: 0), PlatePoint(x: 0, y: 1), PlatePoint(x: 1, y: 1)]),
        ]
        for (given, points) in spec {
            let checked = try CellPositions(points)
            #expect(given == checked, "\(points)")
            #expect(given.count == points.count)
            for i in 0..<points.count { #expect(given[i] == points[i], "cell \(i) of \(points.count)") }
            #expect(CellPositions.standard(forCells: points.count) == checked)
        }
    }

    @Test("A two-cell panel is a bar: cells at [0, 0.5] and [1, 0.5] by default, the position along x, y always 0.5")
    func twoCellBar() throws {
        let bar = try #require(CellPositions.standard(forCells: 2))
        #expect(bar[0] == PlatePoint(x: 0, y: 0.5) && bar[1] == PlatePoint(x: 1, y: 0.5))
        for x: Float in [0.2, 0.5, 0.85] {
            // A rigid bar on two end cells shares a load at x as (1 - x, x).
            let events = try Self.press(at: PlatePoint(x: x, y: 0.5), offsets: [0.03, 0], positions: bar, share: [1 - x, x])
            #expect(events.map(\.kind) == [.peek, .pop, .release])
            for e in events {
                #expect(Self.distance(e.position, PlatePoint(x: x, y: 0.5)) < 0.005, "x \(x): \(e.kind.name) at \(String(describing: e.position))")
            }
        }
    }

    @Test("A three-cell panel is a triangle: cells at [0, 0], [1, 0], [0.5, 1] by default, positions inside it")
    func threeCellTriangle() throws {
        let triangle = try #require(CellPositions.standard(forCells: 3))
        #expect(triangle[0] == PlatePoint(x: 0, y: 0) && triangle[1] == PlatePoint(x: 1, y: 0) && triangle[2] == PlatePoint(x: 0.5, y: 1))
        for at in [PlatePoint(x: 0.5, y: 0.4), PlatePoint(x: 0.3, y: 0.2), PlatePoint(x: 0.6, y: 0.7)] {
            // Barycentric shares of the three supports (all positive inside the triangle).
            let third = at.y, second = at.x - 0.5 * at.y
            let share: [Float] = [1 - second - third, second, third]
            let events = try Self.press(at: at, offsets: [0, 0.02, 0.04], positions: triangle, share: share)
            #expect(events.map(\.kind) == [.peek, .pop, .release])
            for e in events {
                #expect(Self.distance(e.position, at) < 0.005, "\(at): \(e.kind.name) at \(String(describing: e.position))")
            }
        }
    }
}
