// The health scores' block forms: a block of `blockScans` scans advanced at
// once, bit for bit what ``_ScanState/advance(same:atRest:force:)`` gives
// scan by scan. Host-only (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension _ScanState {
    /// ``advance(same:atRest:force:)`` for each scan of a block in turn, the
    /// block path's: bit k of `changed` is set where scan k's raw words
    /// changed, `forces[k]` is its force. Where every scan changed
    /// (a sensor showing noise) or none did (a flat reading), the run and
    /// the change score move in closed form, exactly as scan by scan.
    ///
    /// `forces - 1` must be readable (both callers pass their window of the
    /// scans before and the block, from its third reading); its value is not used.
    ///
    /// - Returns: false where a flat run reaches `stuckScans` (> 0) inside
    ///   the block, which the per-scan path judges, having changed nothing
    ///   (so the block path may advance its scores in place).
    ///
    /// `@_transparent`, as is ``advanceForces(block:baseline:band:)``: inlined
    /// before the optimiser's own inlining, which inlines a body this large
    /// only into a caller that is still small, and the block path's callers
    /// are not (a call there costs more than the inlined body).
    @_transparent @usableFromInline
    internal mutating func advance(block forces: UnsafePointer<Float>, changed: UInt32,
                                   baseline: Float, band: Float, stuckScans: Int32) -> Bool {
        let n = Int32(Classifier.blockScans)
        let all: UInt32 = (1 &<< UInt32(Classifier.blockScans)) &- 1
        if changed & all == all {
            // No scan is the same as the one before: the run stays 0 (so no
            // run starts, and none reaches `stuckScans`); the score climbs.
            stuckRun = 0
            changeScore = _min(_ScanState.scoreCeiling, changeScore &+ n)
        } else if changed & all == 0 {
            // Every scan the same: the run grows by one a scan and starts
            // (reading the scores as they stood) only at the first scan.
            let before = stuckRun
            if stuckScans > before && stuckScans <= before &+ n { return false }
            if before == 0 {
                runNoisy = changeScore >= _ScanState.noisyScore
                runRestNoisy = restScore >= _ScanState.noisyScore
            }
            stuckRun = before &+ n
            changeScore = _max(0, changeScore &- n)
        } else {
            // Scan by scan on a copy, kept only where no run reached `stuckScans`.
            var walked = self
            for k in 0..<Classifier.blockScans {
                let force = forces[k]
                walked.advance(same: changed & (1 &<< UInt32(k)) == 0,
                               atRest: ForcePipeline._atRest(force, baseline: baseline, band: band), force: force)
                if stuckScans > 0 && walked.stuckRun == stuckScans { return false }
            }
            self = walked
            return true
        }
        advanceForces(block: forces, baseline: baseline, band: band)
        return true
    }

    /// ``advance(block:changed:baseline:band:stuckScans:)`` as a call, for
    /// the gesture layer's block entries: their bodies are large enough that
    /// the form inlined there spills more than the call costs.
    @usableFromInline @inline(never)
    internal mutating func advanceOutOfLine(block forces: UnsafePointer<Float>, changed: UInt32,
                                            baseline: Float, band: Float, stuckScans: Int32) -> Bool {
        advance(block: forces, changed: changed, baseline: baseline, band: band, stuckScans: stuckScans)
    }

    /// ``advanceForce(atRest:force:)`` for each scan of a block in turn. The
    /// common quiet block (every scan at rest, every force above or below the
    /// one before: a sensor showing noise) is judged on lane masks and takes
    /// the turns as bits: scan k turns where its direction differs from scan
    /// k-1's, so only the rest score's clamped steps stay scan by scan, on
    /// integers. With no NaN among the forces (each compared), their highest
    /// is the same whatever the order. Any other block goes scan by scan.
    @_transparent @usableFromInline
    internal mutating func advanceForces(block forces: UnsafePointer<Float>, baseline: Float, band: Float) {
        let f = UnsafeRawPointer(forces).loadUnaligned(as: SIMD16<Float>.self)
        var before = UnsafeRawPointer(forces - 1).loadUnaligned(as: SIMD16<Float>.self)
        before[0] = previousForce
        let d = f - SIMD16<Float>(repeating: baseline)
        let rises = f .> before
        let moves = rises .| (f .< before)
        // At rest where |d| < band: `d < band && d > -band` (the scan
        // step's test) exactly, NaN included, as one compare of the sign
        // cleared (the two compares and their `and` were repacked as bytes).
        let magnitude = unsafeBitCast(unsafeBitCast(d, to: SIMD16<UInt32>.self) & SIMD16<UInt32>(repeating: 0x7fff_ffff),
                                      to: SIMD16<Float>.self)
        let near = magnitude .< SIMD16<Float>(repeating: band)
        let all: UInt32 = (1 &<< UInt32(Classifier.blockScans)) &- 1
        guard _allLanes(moves .& near) else {
            if _allLanes(moves .& .!near) {
                // A pressed block whose every force moved (so none is NaN):
                // no scan is at rest, so the rest score stays; the last
                // direction is the last scan's.
                previousTurn = f[Classifier.blockScans &- 1] > before[Classifier.blockScans &- 1] ? 1 : -1
                let top = _maxLane(f)
                forceHigh = top > forceHigh ? top : forceHigh
                previousForce = f[Classifier.blockScans &- 1]
                return
            }
            for k in 0..<Classifier.blockScans {
                let force = forces[k]
                advanceForce(atRest: ForcePipeline._atRest(force, baseline: baseline, band: band), force: force)
            }
            return
        }
        let up = _laneBits(rises)
        // Every direction is +1 or -1: scan k turned where it differs from
        // the direction before it (scan 0: the last nonzero one, none at first).
        var turned = (up ^ ((up &<< 1) | (previousTurn > 0 ? 1 : 0))) & all
        if previousTurn == 0 { turned &= ~1 }
        restScore = _ScanState._restScore(restScore, turned: turned)
        previousTurn = up & (1 &<< UInt32(Classifier.blockScans &- 1)) != 0 ? 1 : -1
        let top = _maxLane(f)
        forceHigh = top > forceHigh ? top : forceHigh
        previousForce = f[Classifier.blockScans &- 1]
    }

    /// The rest score after a block's clamped steps, every scan at rest:
    /// from `score` (0...``scoreCeiling``), +``turnCredit`` (at most to the
    /// ceiling) where bit k of `turned` is set, -1 (at least to 0) where it
    /// is not; the same value as the 16 steps scan by scan, in closed form.
    ///
    /// With S_j the unclamped sum of the first j steps, a walk clamped only
    /// at the ceiling C ends at `S16 + min(score, C - max S_j)` (j = 1...16),
    /// one clamped only at 0 at `S16 + max(score, -min S_j)`. In 16 steps
    /// the score falls by 16 at most and climbs by 32 at most, so from 16 or
    /// more it never reaches 0 (the floor never clamps: each step takes at
    /// most 1, down to 1 at worst before the last) and from below 16 it
    /// never passes 62 (the ceiling never clamps: 15 + 2 × 15 before the
    /// last step), so one of the two forms is exact. The prefix sums are
    /// taken as 16 byte lanes of two words (each step's bit spread to its
    /// byte, 3 where it turned, then one multiply each: byte k sums bytes
    /// 0...k, at most 48, no carry), and their extremes as lane reductions.
    @inlinable @inline(__always)
    internal static func _restScore(_ score: Int32, turned: UInt32) -> Int32 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // Bit k of an 8-bit half to byte k, 3 where set: the bit in place in
        // its byte, then any set bit carried into the byte's top one.
        @inline(__always) func spread(_ b: UInt64) -> UInt64 {
            let marked = (b &* ones) & 0x8040_2010_0804_0201
            return (((marked &+ 0x7f7f_7f7f_7f7f_7f7f) &>> 7) & ones) &* 3
        }
        // Byte k: 3 × the turns of scans 0...k, plus 15 - k, i.e. S_(k+1) + 16 (0...63).
        let low = spread(UInt64(turned & 0xff)) &* ones
        let high = spread(UInt64((turned &>> 8) & 0xff)) &* ones &+ (low &>> 56) &* ones
        let sum = Int32(truncatingIfNeeded: high &>> 56) &- 16
        let lanes = _byteLanes(low &+ 0x0809_0a0b_0c0d_0e0f, high &+ 0x0001_0203_0405_0607)
        if score >= 16 {
            let top = _maxByte(lanes)
            return sum &+ _min(score, _ScanState.scoreCeiling &- (Int32(top) &- 16))
        }
        let bottom = _minByte(lanes)
        return sum &+ _max(score, 16 &- Int32(bottom))
    }
}
#endif
