import ForceStageCore

/// A force cell that read clearly negative newtons (after its zero) while the
/// panel was pressed: a reversed bridge, a wrong sign of gain, or a position
/// that does not match the wiring. Positions from such a panel are wrong.
public struct NegativeCell: Equatable, Sendable {
    /// Force channel index (0-based, calibration order) and its id.
    public var cell: Int
    public var channel: String
    /// The first scan where it happened, and what the cell read there.
    public var sample: Int64
    public var newtons: Float

    /// One line for people: what, where, what to do.
    public func message(file: String) -> String {
        "\(file): calibration.force[\(cell)] (\(channel)) reads \(fixed(Double(newtons), 3)) N under a press at scan \(sample); " +
            "a cell cannot pull the plate: check its wiring and the sign of its gain, and that its position matches where it sits"
    }
}

/// Checks every press of a recording for cells reading negative force: below
/// -max(0.03 N, 3 % of the press force) while the classifier is pressed.
/// Empty on a panel without cell positions (no position depends on it).
public func negativeCells(_ recording: Recording, setup: PanelSetup, channels: [String]) -> [NegativeCell] {
    guard setup.positions != nil else { return [] }
    var pipeline = setup.makePipeline()
    var ring = EventRing()
    var found: [NegativeCell] = []
    let size = setup.layout.scanSize
    recording.scans.withUnsafeBytes { raw in
        for i in 0..<recording.scanCount {
            pipeline.process(scan: raw.baseAddress! + i * size, into: &ring)
            while ring.popFirst() != nil {}
            guard pipeline.classifier.state != .idle else { continue }
            let limit = -max(0.03, 0.03 * pipeline.pressForce)
            for c in 0..<pipeline.calibration.count where !found.contains(where: { $0.cell == c }) {
                let n = pipeline.cellNewtons(c)
                if n < limit {
                    found.append(NegativeCell(cell: c, channel: c < channels.count ? channels[c] : "cell \(c)", sample: Int64(i), newtons: n))
                }
            }
        }
    }
    return found
}
