// The baseline tracker's measurements of a block, as the microcontrollers
// take them: the mean of its settled readings and its noise, in loops over
// the block's floats (no vector unit there). The host's vector forms are in
// FastPath/BaselineLanes.swift; both give the same bits.
extension Classifier {
    /// A partly settled block (rare): the others' readings weigh 0; returns
    /// the readings kept and how many. Out of line, so that the baseline
    /// tracker keeps its block in registers (no stack copy for the lane
    /// stores, no stack protector).
    @usableFromInline @inline(never)
    internal static func _settledOnly(_ v: SIMD16<Float>, _ bits: UInt32) -> (SIMD16<Float>, Float) {
        var kept = v
        var count: Float = 0
        withUnsafeMutableBytes(of: &kept) { lanes in
            var k = 0
            while k < Classifier.blockScans {
                if bits & (1 &<< UInt32(truncatingIfNeeded: k)) != 0 {
                    count += 1
                } else {
                    lanes.storeBytes(of: 0, toByteOffset: k &* MemoryLayout<Float>.stride, as: Float.self)
                }
                k &+= 1
            }
        }
        return (kept, count)
    }

    /// The baseline tracker's mean of a block's settled readings (bit k of
    /// `bits`: scan k) and the block's noise, the mean absolute residual
    /// about its straight-line trend, as the microcontrollers take them; nil
    /// where fewer than ``minimumIdleScans`` readings are settled. The same
    /// as on hosts: the settled readings kept and counted as `_settledOnly`
    /// does (the others 0), `_sum16` of them over the count, the trend
    /// `_sum16((v - mean) * blockRamp)` times ``inverseRampSquares``, and
    /// `_sum16` of the magnitudes of `v - (mean + trend * blockRamp)` (sign bit cleared) times
    /// ``inverseBlockScans``: the same operations on each lane and each sum in
    /// `_sum16`'s pairwise order, so the same bits, in loops over the block's
    /// floats on the stack: with no vector unit (and no FPU on riscv32) a
    /// `SIMD16` form unrolls into a soft-float call per lane and operation,
    /// where a loop keeps the tracker small. BlockFitTests checks this
    /// against the vector form, bit for bit.
    @usableFromInline @inline(never)
    internal static func _meanAndSpread(_ v: SIMD16<Float>, settled bits: UInt32) -> (mean: Float, spread: Float)? {
        withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 2) { lanes in
            lanes.initializeElement(at: 0, to: v)
            lanes.initializeElement(at: 1, to: v)
            return lanes.baseAddress!.withMemoryRebound(to: Float.self, capacity: 2 &* Classifier.blockScans) {
                _meanAndSpread(lanes: $0, scans: Classifier.blockScans, settled: bits)
            }
        }
    }

    /// `_meanAndSpread` on the block's `scans` (16) floats at `p` twice: the
    /// first copy is overwritten (the kept readings, then the sums' terms).
    /// The count is a parameter: a constant, LLVM unrolled each loop.
    @usableFromInline
    internal static func _meanAndSpread(lanes p: UnsafeMutablePointer<Float>, scans: Int,
                                        settled bits: UInt32) -> (mean: Float, spread: Float)? {
        var count: Float = 0
        var k = 0
        while k < scans {
            if bits & (1 &<< UInt32(truncatingIfNeeded: k)) != 0 { count += 1 } else { p[k] = 0 }
            k &+= 1
        }
        guard count >= Classifier.minimumIdleScans else { return nil }
        let mean = _pairwiseSum(p, scans) / count
        // `blockRamp`'s lane k is k - 7.5, counted up by ones (exact).
        let firstRamp = -Float(Classifier.blockScans &- 1) / 2
        var ramp = firstRamp
        k = 0
        while k < scans {
            p[k] = (p[scans &+ k] - mean) * ramp
            ramp += 1
            k &+= 1
        }
        let trend = _pairwiseSum(p, scans) * Classifier.inverseRampSquares
        ramp = firstRamp
        k = 0
        while k < scans {
            let residual = p[scans &+ k] - (mean + trend * ramp)
            p[k] = Float._abs(residual)
            ramp += 1
            k &+= 1
        }
        return (mean, _pairwiseSum(p, scans) * Classifier.inverseBlockScans)
    }

    /// `_sum16` of the `scans` (16) floats at `p`, in place: lanes k and k + 8
    /// added, then k and k + 4, k and k + 2, 0 and 1 (the same additions in the same order).
    @usableFromInline
    internal static func _pairwiseSum(_ p: UnsafeMutablePointer<Float>, _ scans: Int) -> Float {
        var width = scans >> 1
        while width > 0 {
            var k = 0
            while k < width {
                p[k] = p[k] + p[k &+ width]
                k &+= 1
            }
            width >>= 1
        }
        return p[0]
    }
}
