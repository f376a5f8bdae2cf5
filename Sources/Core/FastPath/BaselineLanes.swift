// The baseline tracker's measurements of a block on a vector unit, and the
// microcontrollers' forms of the same two questions (`_meanAndSpread`, in
// Rules/BaselineFit.swift): the same operations in the same order, so the
// same bits (BlockFitTests).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension Classifier {
    /// The mean of a block's settled readings (bit k of `bits`: scan k) and
    /// its noise, the mean absolute residual about its straight-line trend;
    /// nil where fewer than ``minimumIdleScans`` readings are settled. The
    /// whole block's mean is summed from `v` itself (no copy of the block
    /// merged with `_settledOnly`'s), a partly settled block's out of line.
    @_alwaysEmitIntoClient @inline(__always)
    internal static func _blockFit(_ v: SIMD16<Float>, settled bits: UInt32) -> (mean: Float, spread: Float)? {
        let mean: Float
        if bits == Classifier.blockBits {
            mean = _sum16(v) / Float(Classifier.blockScans)
        } else {
            guard bits != 0, let settledMean = _settledMean(v, bits) else { return nil }
            mean = settledMean
        }
        // The trend: `_trendQuarter`'s lanes halved as `_sum16` halves them.
        let trendQuarter = _trendQuarter(v, mean)
        let trendHalf = trendQuarter.lowHalf + trendQuarter.highHalf
        let trend = (trendHalf[0] + trendHalf[1]) * Classifier.inverseRampSquares
        let residual = v - (mean + trend * Classifier.blockRamp)
        // `_spread` returns the sum's last four lanes: its final halving here
        // (see `_spread`).
        let spreadQuarter = _spread(residual)
        let spreadHalf = spreadQuarter.lowHalf + spreadQuarter.highHalf
        return (mean, (spreadHalf[0] + spreadHalf[1]) * Classifier.inverseBlockScans)
    }

    /// The mean of a block's settled readings, nil where fewer than
    /// ``minimumIdleScans`` are settled (as `_blockFit` takes it).
    @_alwaysEmitIntoClient @inline(__always)
    internal static func _blockSettledMean(_ v: SIMD16<Float>, settled bits: UInt32) -> Float? {
        _settledMean(v, bits)
    }

    /// The mean of a partly settled block's settled readings (`_settledOnly`),
    /// nil where fewer than ``minimumIdleScans`` are settled.
    @usableFromInline @inline(never)
    internal static func _settledMean(_ v: SIMD16<Float>, _ bits: UInt32) -> Float? {
        let (kept, count) = _settledOnly(v, bits)
        guard count >= Classifier.minimumIdleScans else { return nil }
        return _sum16(kept) / count
    }

    /// The trend's sum, `(v - mean) * blockRamp` summed as far as its last
    /// four lanes (as `_spread`, and for the same reason: inlined, LLVM did
    /// the products two lanes at a time for the sake of the last halving).
    @usableFromInline @inline(never)
    internal static func _trendQuarter(_ v: SIMD16<Float>, _ mean: Float) -> SIMD4<Float> {
        let moments = (v - mean) * Classifier.blockRamp
        let h8 = moments.lowHalf + moments.highHalf
        return h8.lowHalf + h8.highHalf
    }

    /// The sum of a block's absolute residuals as far as its last four
    /// lanes (`_sum16`'s first two halvings, the same additions in the same
    /// order); the caller adds those as `_sum16` does and scales by
    /// ``inverseBlockScans``: the mean absolute residual, the same bits.
    /// A residual's magnitude is its sign bit cleared (`Float._abs`, one
    /// bitwise and per four lanes). Out of line, the last halving the
    /// caller's: here LLVM's vectoriser would take its two lanes as its
    /// width and do the whole sum two lanes at a time, each four-lane step twice.
    @usableFromInline @inline(never)
    internal static func _spread(_ residual: SIMD16<Float>) -> SIMD4<Float> {
        let v = unsafeBitCast(unsafeBitCast(residual, to: SIMD16<UInt32>.self) & 0x7fff_ffff, to: SIMD16<Float>.self)
        let h8 = v.lowHalf + v.highHalf
        return h8.lowHalf + h8.highHalf
    }

    /// The baseline tracker for the per-scan path's block (`_closeBlock`):
    /// inlined on hosts, where the block step has entries of its own.
    @inlinable @inline(__always)
    internal mutating func _trackBlock(_ v: SIMD16<Float>, settled bits: UInt32) {
        _trackBaseline(block: v, settled: bits)
    }
}
#else
extension Classifier {
    /// The baseline tracker for the per-scan path's block: out of line, its
    /// one copy in the image.
    @usableFromInline @inline(never)
    internal mutating func _trackBlock(_ v: SIMD16<Float>, settled bits: UInt32) {
        _trackBaseline(block: v, settled: bits)
    }

    /// The microcontrollers' `_blockFit`: loops over the block in memory.
    @_alwaysEmitIntoClient @inline(__always)
    internal static func _blockFit(_ v: SIMD16<Float>, settled bits: UInt32) -> (mean: Float, spread: Float)? {
        _meanAndSpread(v, settled: bits)
    }

    /// The microcontrollers' `_blockSettledMean`.
    @_alwaysEmitIntoClient @inline(__always)
    internal static func _blockSettledMean(_ v: SIMD16<Float>, settled bits: UInt32) -> Float? {
        _meanAndSpread(v, settled: bits)?.mean
    }
}
#endif
