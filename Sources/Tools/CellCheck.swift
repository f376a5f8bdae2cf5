import ForceStageCore
import ForceStageFormats

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
/// -max(0.1 N, 35 % of the press force) for 5 scans in a row while the press
/// is at or above the peek level.
///
/// A negative cell alone is no fault: a rigid plate bonded to four cells
/// shares a press in a plane, cell i taking F(1/4 + (x-1/2)(xi-1/2) + (y-1/2)(yi-1/2)),
/// so a press near a corner pulls the far corner down to -25 % of the press
/// (the synthesized corpus shows -21 %). A reversed cell turns its share
/// around: under a press near the centre the panel sums to half the force and
/// that cell reads -50 % of the sum. The margin between the two, the run and
/// the firm part of the press keep noise, drift and a release's tail out.
/// Empty on a panel without cell positions (no position depends on it).
public func negativeCells(_ recording: Recording, setup: PanelSetup, channels: [String]) -> [NegativeCell] {
    guard setup.positions != nil else { return [] }
    var pipeline = setup.makePipeline()
    var ring = EventRing()
    var found: [NegativeCell] = []
    var runs = [Int](repeating: 0, count: setup.calibration.count)
    let runScans = 5
    let size = setup.layout.scanSize
    recording.scans.withUnsafeBytes { raw in
        for i in 0..<recording.scanCount {
            pipeline.process(scan: raw.baseAddress! + i * size, into: &ring)
            while ring.popFirst() != nil {}
            guard pipeline.classifier.state != .idle, pipeline.pressForce >= setup.parameters.peek else {
                for c in runs.indices { runs[c] = 0 }
                continue
            }
            let limit = -max(0.1, 0.35 * pipeline.pressForce)
            for c in 0..<pipeline.cellCount where !found.contains(where: { $0.cell == c }) {
                let n = pipeline.cellNewtons(c)
                runs[c] = n < limit ? runs[c] + 1 : 0
                if runs[c] == runScans {
                    found.append(NegativeCell(cell: c, channel: c < channels.count ? channels[c] : "cell \(c)", sample: Int64(i), newtons: n))
                }
            }
        }
    }
    return found
}
