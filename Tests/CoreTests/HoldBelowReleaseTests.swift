import Testing
import ForceStageCore

/// A hold is a peek held for the hold time: never
/// reported on a reading at or below the release level, where the press is
/// letting go. Through the public pipeline at 10 scans/s (a scan longer than
/// a spike, so the filtered reading is the previous scan's), scan by scan and
/// in blocks (`LowRateSpikeTests.kinds`: peek 1 N, release 0.5 N, pop 2.5 N,
/// hold 500 ms = 5 scans).
@Suite("No hold below the release level")
struct HoldBelowReleaseTests {
    /// 6 s of rest, `above` readings of 1.5 N (a peek, past the release
    /// level), one reading of 0.45 N (below the release level by less than
    /// the held press's margin, a tenth of the peek level), then rest.
    static func tap(above: Int) -> [Double] {
        LowRateSpikeTests.rest(60) + Array(repeating: 1.5, count: above) + [0.45] + LowRateSpikeTests.rest(40)
    }

    @Test("A tap whose let-go reaches the hold time below the release level releases and is no hold")
    func letGoIsNoHold() throws {
        // The filtered reading lags a scan, so the peek comes a scan after the
        // first 1.5 N reading and the let-go's 0.45 N reading falls on the
        // scan the hold time ends. Before, that scan reported a hold on a
        // reading already below the release level, and the release waited a
        // scan (the held press's margin) for the reading after.
        let kinds = try LowRateSpikeTests.kinds(Self.tap(above: 5), holdMilliseconds: 500)
        #expect(kinds == ["peek", "release"])
        // The 1.5 N readings are scans 60-64 and the let-go's 65: peek at 61,
        // release on the let-go's filtered reading (66), not a scan later.
        #expect(try LowRateSpikeTests.run(Self.tap(above: 5), batched: true, holdMilliseconds: 500)
                == ["peek@61", "release@66"])
    }

    @Test("The same press a scan longer is held, and its let-go still releases")
    func heldOneScanLonger() throws {
        #expect(try LowRateSpikeTests.kinds(Self.tap(above: 6), holdMilliseconds: 500) == ["peek", "hold", "release"])
    }
}
