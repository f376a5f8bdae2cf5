// The block forms of the plate's position state: the four-cell close of
// the cells' zeros on lanes, the position window filled four scans at once,
// and the event ring read in place. Host-only (Classifier.blockPathEnabled);
// the microcontrollers take the general close, through the stub at the end.
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension _CellZeros {
    /// ``close(sums:cells:x:y:reference:idleBand:)`` for four cells, bit for
    /// bit: each cell's product and zero update on four lanes (each lane's
    /// arithmetic the scalar's), the sums over the cells in the same order
    /// from the same 0. The general close held all 16 positions in registers
    /// and tested the count after every cell: some 100 instructions a close,
    /// on a plate's block path once a block.
    @inlinable @inline(__always)
    internal mutating func close4(sums: InlineArray<8, Float>, x: InlineArray<8, Float>, y: InlineArray<8, Float>,
                                  reference: Float, idleBand: Float) {
        @inline(__always) func four(_ a: InlineArray<8, Float>) -> SIMD4<Float> {
            withUnsafeBytes(of: a) { $0.loadUnaligned(as: SIMD4<Float>.self) }
        }
        let scale = 1 / Float(CentreOfPressure.zeroSampleScans)
        let scaled = four(sums) * scale
        var mean: Float = 0
        mean += scaled[0]
        mean += scaled[1]
        mean += scaled[2]
        mean += scaled[3]
        let d = mean - reference
        guard d < idleBand && d > -idleBand else {
            hasCandidate = false
            return
        }
        if hasCandidate {
            let before = four(zero)
            let z = before + CentreOfPressure.zeroSmoothing * (four(candidate) - before)
            withUnsafeMutableBytes(of: &zero) { $0.storeBytes(of: z, as: SIMD4<Float>.self) }
            let zx = z * four(x), zy = z * four(y)
            // The three sums on the lanes of one vector, each cell's (z, zx,
            // zy, 0) a row added in turn from 0 (the cells' order, bit for
            // bit the scalar's): the rows by a transpose as in `_readQuad`
            // (LLVM's own vectorising of the scalar sums shuffled some 60 instructions).
            let t0 = _lanePairs(SIMD4(z[0], zx[0], z[1], zx[1]))
            let t1 = _lanePairs(SIMD4(zy[0], 0, zy[1], 0))
            let t2 = _lanePairs(SIMD4(z[2], zx[2], z[3], zx[3]))
            let t3 = _lanePairs(SIMD4(zy[2], 0, zy[3], 0))
            var sums = SIMD4<Float>()
            sums += _pairedLanes(SIMD2(t0[0], t1[0]))
            sums += _pairedLanes(SIMD2(t0[1], t1[1]))
            sums += _pairedLanes(SIMD2(t2[0], t3[0]))
            sums += _pairedLanes(SIMD2(t2[1], t3[1]))
            total = sums[0]
            momentX = sums[1]
            momentY = sums[2]
        }
        withUnsafeMutableBytes(of: &candidate) { $0.storeBytes(of: scaled, as: SIMD4<Float>.self) }
        hasCandidate = true
    }
}

extension _PressureWindow {
    /// Records four consecutive scans from scan `sample`, lane t scan
    /// `sample + t`: ``record(sample:force:x:y:)`` for each in turn, as one
    /// rotation and three stores (each slot's last writer is the one scan
    /// of the four that maps to it), rather than four records.
    @inlinable @inline(__always)
    internal mutating func record(first sample: Int64, forces f: SIMD4<Float>, x: SIMD4<Float>, y: SIMD4<Float>) {
        // Slot s takes lane (s - sample) & 3: a rotation by the first scan's slot.
        @inline(__always) func slots(_ v: SIMD4<Float>) -> InlineArray<4, Float> {
            let r: SIMD4<Float>
            switch Int(truncatingIfNeeded: sample) & 3 {
            case 0: r = v
            case 1: r = SIMD4(v[3], v[0], v[1], v[2])
            case 2: r = SIMD4(v[2], v[3], v[0], v[1])
            default: r = SIMD4(v[1], v[2], v[3], v[0])
            }
            return _elements(r)
        }
        force = slots(f)
        momentX = slots(x)
        momentY = slots(y)
    }
}

extension Ring where Element == ForceEvent {
    /// The sample of the event at `offset` (`0 <= offset < count`), read in
    /// place: `self[offset]` on an `inout` ring copied the whole ring (3.5 kB) first.
    @inlinable
    internal mutating func _sample(at offset: Int) -> Int64 {
        _storage[(_head &+ offset) & (capacity &- 1)].sample
    }
}
#else
extension _CellZeros {
    /// Never called where the block path is off (``Platform/hasFastPath``
    /// is false): the general close, for four cells.
    @_alwaysEmitIntoClient @inline(__always)
    internal mutating func close4(sums: InlineArray<8, Float>, x: InlineArray<8, Float>, y: InlineArray<8, Float>,
                                  reference: Float, idleBand: Float) {
        close(sums: sums, cells: 4, x: x, y: y, reference: reference, idleBand: idleBand)
    }
}
#endif
