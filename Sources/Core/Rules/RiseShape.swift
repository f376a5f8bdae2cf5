/// The last scan at rest and the shape of the rise from it, which the
/// vibration guard reads: a ringing plate starts at its fastest and slows at
/// once (a sine, concave), while a finger's force from rest first speeds up
/// (the fingertip stiffens: convex, or a straight ramp at worst). The rise is
/// read one and two curve spans (`curveScans`) after the last scan at rest;
/// concave means the second span gained less than
/// ``Classifier/vibrationConcaveRatio`` times the first.
///
/// The scan form is ``observe(_:sample:touchBand:curveScans:)``; the block
/// forms are ``observe(_:from:upTo:firstSample:touchBand:curveScans:)`` over
/// scans of a block and ``rested(at:force:)`` for a run of scans all at rest.
@usableFromInline
internal struct RiseShape: Equatable, BitwiseCopyable, Sendable {
    /// The last scan whose filtered reading (less the baseline) was below the
    /// touch band, and that reading.
    @usableFromInline var restSample: Int64 = Classifier.distantPastSample
    @usableFromInline var restForce: Float = 0
    /// The reading one curve span after that scan, and whether the rise to
    /// two spans after it was concave.
    @usableFromInline var mid: Float = 0
    @usableFromInline var concave = false

    @inlinable init() {}

    /// One scan's filtered reading less the baseline; returns whether it was at rest.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func observe(_ y: Float, sample: Int64, touchBand: Float, curveScans m: Int64) -> Bool {
        if y < touchBand {
            restSample = sample
            restForce = y
            return true
        }
        // Never at rest: the quiet panel pays only the store above.
        let since = sample &- restSample
        if since == m {
            mid = y
        } else if since == 2 &* m {
            concave = y - restForce < Classifier.vibrationConcaveRatio * (mid - restForce)
        }
        return false
    }

    /// Scans `from..<upTo` of a block (scan k at `firstSample + k`, reading
    /// `y(k)`), each as the scan form takes it.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func observe(_ y: (Int) -> Float, from: Int, upTo: Int, firstSample: Int64, touchBand: Float,
                          curveScans m: Int64) {
        var k = from
        while k < upTo {
            _ = observe(y(k), sample: firstSample &+ Int64(truncatingIfNeeded: k), touchBand: touchBand, curveScans: m)
            k &+= 1
        }
    }

    /// A run of scans all at rest, the last at `sample` reading `force`: the
    /// scan form's result for each of them in turn (nothing but the last counts).
    @_alwaysEmitIntoClient @inline(__always)
    mutating func rested(at sample: Int64, force: Float) {
        restSample = sample
        restForce = force
    }

    /// Whether the scan form reads the rise's shape at a scan from
    /// `firstSample` through `lastSample`, none of them at rest (one or two
    /// curve spans after the last scan at rest).
    @_alwaysEmitIntoClient @inline(__always)
    func shapeRead(firstSample: Int64, lastSample: Int64, curveScans m: Int64) -> Bool {
        let first = firstSample &- restSample, last = lastSample &- restSample
        return (first <= m && m <= last) || (first <= 2 &* m && 2 &* m <= last)
    }
}
