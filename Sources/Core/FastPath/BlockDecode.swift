// The block path's decode: a block of `blockScans` scans read, decoded and
// judged for health at once, bit for bit what the scan step gives. Host-only
// (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension _PanelDecoder {
    /// The block path's read of ``Classifier/blockScans`` scans `stride` bytes
    /// apart, the first being scan `first` (> 0): what
    /// ``read(_:sample:last:counters:timing:moments:zeroSums:)`` does scan
    /// by scan, done column by column (a channel's format is switched on
    /// once per block, its rails tested once on the column's extremes, its
    /// newtons in one loop), with every sum in the per-scan order, so bit
    /// for bit the same.
    ///
    /// With `positions` it also sums the moments of the window's tail into
    /// `held`, and with `allMoments` (the gesture layer's pressed block, a
    /// constant at each call site) every scan's moments into `momentsX` and
    /// `momentsY`, lane k scan k's, in the scan step's channel order. With
    /// `quad` (a constant at each call site, true only where ``quadOffset``
    /// is set) the four side-by-side channels are read four scans at a time
    /// (``_readBlockQuad(_:stride:last:positions:totals:changed:held:zeroSums:allMoments:momentsX:momentsY:closeAt:beforeFrom:beforeTo:afterFrom:)``).
    ///
    /// - Returns: false when a scan is on a rail (the per-scan path raises
    ///   `saturated`); the state, counters and sums are then half-advanced
    ///   and must be dropped. Otherwise `totals` (zero when passed in) holds each scan's force,
    ///   `stamps` its timestamp, and bit k of `changed` is set where scan
    ///   k's raw words differ from the scan before.
    @inlinable @inline(__always)
    internal mutating func readBlock(_ scans: UnsafeRawPointer, stride: Int, first: Int64, last s: inout _LastScan,
                                     counters c: inout PipelineCounters, timing: _Timing, positions: Bool,
                                     totals: inout SIMD16<Float>, stamps: inout InlineArray<16, Int64>,
                                     changed: inout UInt32, held: inout _BlockPositions,
                                     zeroSums: inout InlineArray<8, Float>, allMoments: Bool = false, quad: Bool = false,
                                     momentsX: inout SIMD16<Float>, momentsY: inout SIMD16<Float>) -> Bool {
        c.scans &+= Int64(Classifier.blockScans)
        if stamp.present {
            // The widest gap first, without a test on every scan; gaps are rare,
            // and only then are they counted scan by scan.
            var last = s.lastTimestamp
            let gapped: Bool
            let at = scans + stamp.offset
            if stamp.direct {
                // Two scans a vector, with the two before them (the pairs
                // shifted by one lane), and `gapNs - gap` of each or-ed: a
                // gap wider than `gapNs` sets its sign (`gapNs - gap` is
                // then in -2^63 < x < 0). So may a difference that wrapped
                // (a gap below gapNs - 2^63), for which the gaps are then
                // counted scan by scan as for any other, exactly.
                @inline(__always) func load(_ k: Int) -> Int64 {
                    // The four-channel read keeps the stride's multiples (`quad` is a constant
                    // at each call site): its loads address stride * 1, 2, 4, 8 directly.
                    Int64(littleEndian: (at + (quad ? k &* stride : scanOffsets[k])).loadUnaligned(as: Int64.self))
                }
                let limit = SIMD2<Int64>(repeating: timing.gapNs)
                var before = SIMD2<Int64>(repeating: last)
                var filter = SIMD2<Int64>()
                // Stored whole (as the other two ways below): the caller's zeroed stamps are then dead.
                var pairs = unsafeBitCast(SIMD16<Int64>(), to: InlineArray<8, SIMD2<Int64>>.self)
                for j in 0..<(Classifier.blockScans / 2) {
                    let now = SIMD2(load(2 &* j), load(2 &* j &+ 1))
                    filter |= SIMD2(before[1], now[0]) &- now &+ limit
                    pairs[j] = now
                    before = now
                }
                stamps = unsafeBitCast(pairs, to: InlineArray<16, Int64>.self)
                last = before[1]
                gapped = filter[0] | filter[1] < 0
            } else {
                var widest = Int64.min
                var column = _zeroed(InlineArray<16, Int64>.self)
                for k in 0..<Classifier.blockScans {
                    let ts = stamp.format.decode(at + k &* stride)
                    let gap = ts &- last
                    widest = gap > widest ? gap : widest
                    last = ts
                    column[k] = ts
                }
                stamps = column
                gapped = widest > timing.gapNs
            }
            if gapped {
                var before = s.lastTimestamp
                for k in 0..<Classifier.blockScans {
                    let gap = stamps[k] &- before
                    if gap > timing.gapNs {
                        c.timestampGaps &+= 1
                        c.droppedScans &+= (gap &+ timing.halfPeriodNs) / timing.periodNs &- 1
                    }
                    before = stamps[k]
                }
            }
            s.lastTimestamp = last
        } else {
            var column = _zeroed(InlineArray<16, Int64>.self)
            for k in 0..<Classifier.blockScans { column[k] = (first &+ Int64(k)) &* timing.periodNs }
            stamps = column
            s.lastTimestamp = column[Classifier.blockScans &- 1]
        }
        // The zero block's sampled scans and its closing scan in this block,
        // the same for every channel: bit k of `sampledBefore` (`sampledAfter`)
        // where scan k is sampled at or before (after) the close. A block
        // holds one close at most (``CentreOfPressure/zeroBlockScans`` is at
        // least ``Classifier/blockScans``), so the scans after it run to the block's end.
        var sampledBefore: UInt32 = 0, sampledAfter: UInt32 = 0
        var closeAt = -1
        if positions {
            if CentreOfPressure.zeroBlockScans == Classifier.blockScans {
                // One close a block; the sampled scans are the zero block's
                // last ones, a pattern of period 16 shifted by the block's phase.
                let phase = Int(truncatingIfNeeded: first) & (CentreOfPressure.zeroBlockScans - 1)
                let window: UInt32 = ((1 &<< UInt32(CentreOfPressure.zeroSampleScans)) &- 1)
                    &<< UInt32(CentreOfPressure.zeroBlockScans - CentreOfPressure.zeroSampleScans)
                let sampled = ((window | window &<< UInt32(CentreOfPressure.zeroBlockScans)) &>> UInt32(phase))
                    & ((1 &<< UInt32(Classifier.blockScans)) &- 1)
                closeAt = CentreOfPressure.zeroBlockScans - 1 - phase
                let upTo: UInt32 = (2 &<< UInt32(closeAt)) &- 1
                sampledBefore = sampled & upTo
                sampledAfter = sampled & ~upTo
            } else {
                for k in 0..<Classifier.blockScans {
                    let sample = first &+ Int64(k)
                    if _CellZeros.samples(sample) {
                        if closeAt < 0 { sampledBefore |= 1 &<< UInt32(k) } else { sampledAfter |= 1 &<< UInt32(k) }
                    }
                    if _CellZeros.closes(sample) && closeAt < 0 { closeAt = k }
                }
            }
            held.closedAt = closeAt
        }
        // Each run of sampled scans is contiguous (the zero block's last
        // scans): before the close, `beforeFrom..<beforeTo`; after it, up to the block's end.
        // Only read with positions (or four side-by-side channels), so other panels pay nothing for it.
        var beforeFrom = 0, beforeTo = 0, afterFrom = 0
        if positions || quad {
            beforeFrom = sampledBefore.trailingZeroBitCount
            beforeTo = 32 &- sampledBefore.leadingZeroBitCount
            afterFrom = sampledAfter.trailingZeroBitCount
        }
        if quad {
            return _readBlockQuad(scans, stride: stride, last: &s, positions: positions, totals: &totals,
                                  changed: &changed, held: &held, zeroSums: &zeroSums, allMoments: allMoments,
                                  momentsX: &momentsX, momentsY: &momentsY, closeAt: closeAt,
                                  beforeFrom: beforeFrom, beforeTo: beforeTo, afterFrom: afterFrom)
        }
        var moved: UInt32 = 0
        // The channels read in 32-bit lanes: the last raw value at 0, the
        // column at 1...16, so lanes 0...15 are each scan's predecessor.
        // Which lanes stayed the same and which are off the rails are
        // gathered over the channels as masks (a compare and an `and` a
        // quarter), made bits once.
        var lanes = _zeroed(InlineArray<17, Int32>.self)
        var sameLanes = SIMDMask<SIMD16<Int32>>(repeating: true)
        var inside = SIMDMask<SIMD4<Int32>>(repeating: true)
        for i in 0..<channels {
            let column: SIMD16<Float>
            // Fields read in place: a copy of the decoder is ~15 instructions a channel.
            if decoders[i].lanes32 {
                let last32 = Int32(truncatingIfNeeded: s.lastRaw[i])
                let (before, now) = withUnsafeMutableBytes(of: &lanes) { raw in
                    let p = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
                    p[0] = last32
                    withUnsafeMutablePointer(to: &scanOffsets) { offsets in
                        decoders[i].column32(scans, offsets: UnsafeRawPointer(offsets).assumingMemoryBound(to: Int.self), into: p + 1)
                    }
                    return (raw.loadUnaligned(fromByteOffset: 0, as: SIMD16<Int32>.self),
                            raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Int32>.self))
                }
                s.lastRaw[i] = Int64(now[Classifier.blockScans &- 1])
                sameLanes .&= now .== before
                // Gathered a quarter at a time into one 4-lane mask (16 lanes of masks spilled).
                let shifted = now &- SIMD16(repeating: decoders[i].railBase)
                let span = SIMD4(repeating: decoders[i].railSpan)
                inside .&= (shifted.lowHalf.lowHalf .< span) .& (shifted.lowHalf.highHalf .< span)
                    .& (shifted.highHalf.lowHalf .< span) .& (shifted.highHalf.highHalf .< span)
                // Lane by lane as the scan step converts (LLVM makes it `cvtdq2ps`).
                let offsets = now &- SIMD16(repeating: decoders[i].zero32)
                let scale = decoders[i].scale
                // Each way's own newtons, written whole before they are read:
                // LLVM drops their zeroing (one array shared by both ways would be zeroed before the branch).
                var newtons = _zeroed(InlineArray<16, Float>.self)
                for k in 0..<Classifier.blockScans { newtons[k] = Float(offsets[k]) * scale }
                column = withUnsafeBytes(of: newtons) { $0.loadUnaligned(as: SIMD16<Float>.self) }
            } else if decoders[i].curveFirst >= 0 && decoders[i].fits32 {
                // A curve channel in 32-bit lanes (an FSR's converter).
                column = _curveColumn32(scans, channel: i, lastRaw: &s.lastRaw[i], same: &sameLanes, inside: &inside)
            } else {
                let d = decoders[i]
                var raws = _zeroed(InlineArray<16, Int64>.self)
                d.column(scans, stride: stride, into: &raws)
                var previous = s.lastRaw[i]
                var lowest = raws[0], highest = raws[0]
                for k in 0..<Classifier.blockScans {
                    let raw = raws[k]
                    moved |= raw != previous ? 1 &<< UInt32(k) : 0
                    previous = raw
                    lowest = raw < lowest ? raw : lowest
                    highest = raw > highest ? raw : highest
                }
                s.lastRaw[i] = previous
                if d.railed(lowest) || d.railed(highest) { return false }
                var newtons = _zeroed(InlineArray<16, Float>.self)
                if d.curveFirst >= 0 {
                    _curveColumn(first: Int(d.curveFirst), last: Int(d.curveLast), &raws, into: &newtons)
                } else if d.line32 {
                    for k in 0..<Classifier.blockScans { newtons[k] = Float(Int32(truncatingIfNeeded: raws[k]) &- d.zero32) * d.scale }
                } else {
                    for k in 0..<Classifier.blockScans { newtons[k] = Float(raws[k] &- d.zero) * d.scale }
                }
                column = withUnsafeBytes(of: newtons) { $0.loadUnaligned(as: SIMD16<Float>.self) }
            }
            totals += column
            if allMoments {
                momentsX += column * cellX[i]
                momentsY += column * cellY[i]
            }
            if positions {
                let cell = column
                held._addCell(i, x: cellX[i], y: cellY[i], zeroSums: &zeroSums, closeAt: closeAt,
                              beforeFrom: beforeFrom, beforeTo: beforeTo, afterFrom: afterFrom) { cell[$0] }
            }
        }
        if !_allLanes(inside) { return false }
        moved |= ~_laneBits(sameLanes) & ((1 &<< UInt32(Classifier.blockScans)) &- 1)
        changed = moved
        return true
    }

    /// A curve channel's newtons for a column of raw values (its points
    /// `first...last` of the pool), each exactly ``_curve(_:_:)``'s: the same
    /// ends held outside the points and the same segment, found by walking
    /// from the scan before's (a column moves a segment or two at most, where
    /// the search took five halvings a scan), then the same interpolation.
    /// Mutating, as ``_curve(_:_:)``, and `raws` in place too: the points
    /// and the column are read where they are, not copied (a borrowed column
    /// was copied whole for every scan's read).
    @inlinable @inline(__always)
    internal mutating func _curveColumn(first: Int, last: Int, _ raws: inout InlineArray<16, Int64>,
                                        into newtons: inout InlineArray<16, Float>) {
        let raw = curveRaw.span, points = curveNewtons.span
        let bottom = raw[first], top = raw[last]
        let atBottom = points[first], atTop = points[last]
        var low = first
        for k in 0..<Classifier.blockScans {
            let value = raws[k]
            if value <= bottom {
                newtons[k] = atBottom
            } else if value >= top {
                newtons[k] = atTop
            } else {
                // bottom < value < top: the walks stop inside first...last - 1.
                while raw[unchecked: low] > value { low &-= 1 }
                while raw[unchecked: low &+ 1] <= value { low &+= 1 }
                newtons[k] = _onSegment(value, low, raw: raw, newtons: points)
            }
        }
    }
}

/// A 16-lane mask as its lanes (all ones where set).
@inlinable @inline(__always)
internal func _laneMask(_ m: SIMDMask<SIMD16<Int32>>) -> SIMD16<Int32> { unsafeBitCast(m, to: SIMD16<Int32>.self) }

/// A 16-lane mask as bits, bit k for lane k: the lanes (0 or -1) narrowed
/// to bytes (each lane's low half kept, exact for 0 and -1; LLVM makes it
/// `packssdw`/`packsswb`, as in ``_PanelDecoder/_readQuad(_:stride:last:newtons:)``),
/// each byte's weight (1 << k mod 8) kept where set, and each 8-byte word's
/// bytes summed by one multiply into its top byte (distinct bits, so the sum
/// is the or and never carries). The lanes' weights and-ed as 32-bit lanes,
/// then or-ed by halving, were scalarised: some 70 instructions.
@inlinable @inline(__always)
internal func _laneBits(_ m: SIMDMask<SIMD16<Int32>>) -> UInt32 {
    let q = unsafeBitCast(m, to: (SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>, SIMD8<Int16>).self)
    @inline(__always) func narrow(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD16<Int8> {
        unsafeBitCast(SIMD8(a[0], a[2], a[4], a[6], b[0], b[2], b[4], b[6]), to: SIMD16<Int8>.self)
    }
    let e01 = narrow(q.0, q.1), e23 = narrow(q.2, q.3)
    let bytes = unsafeBitCast(SIMD16(e01[0], e01[2], e01[4], e01[6], e01[8], e01[10], e01[12], e01[14],
                                     e23[0], e23[2], e23[4], e23[6], e23[8], e23[10], e23[12], e23[14]),
                              to: SIMD2<UInt64>.self)
    let weighted = bytes & SIMD2<UInt64>(repeating: 0x8040_2010_0804_0201)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let low = (weighted[0] &* ones) &>> 56, high = (weighted[1] &* ones) &>> 56
    return UInt32(truncatingIfNeeded: low | high &<< 8)
}
/// Whether every lane of a 4-lane mask is set, as the `and` of its two
/// halves' 64-bit words against all ones: `all(_:)` is lowered as a lane
/// minimum by halving (13 instructions on SSE2: compare, select, shuffle).
@inlinable @inline(__always)
internal func _allLanes(_ m: SIMDMask<SIMD4<Int32>>) -> Bool {
    let words = unsafeBitCast(m, to: SIMD2<UInt64>.self)
    return words[0] & words[1] == UInt64.max
}
/// Whether every lane of a 16-lane mask is set: its four quarters and-ed,
/// then ``_allLanes(_:)`` of the 4-lane result (made bits, then compared with
/// all ones, the lanes were widened and halved: some 30 instructions).
@inlinable @inline(__always)
internal func _allLanes(_ m: SIMDMask<SIMD16<Int32>>) -> Bool {
    // Quarters by a bit cast (`lowHalf` and `highHalf` were calls where the inliner gave up).
    let q = unsafeBitCast(m, to: (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>).self)
    let words = unsafeBitCast((q.0 & q.1) & (q.2 & q.3), to: SIMD2<UInt64>.self)
    return words[0] & words[1] == UInt64.max
}

/// Zeroed inline arrays of the block path, made from zero vectors of the
/// same size: `InlineArray(repeating:)` stayed a call there (about 20
/// instructions, several times a block).
@inlinable @inline(__always)
internal func _zeroed(_: InlineArray<16, Int64>.Type) -> InlineArray<16, Int64> {
    unsafeBitCast(SIMD16<Int64>(), to: InlineArray<16, Int64>.self)
}
@inlinable @inline(__always)
internal func _zeroed(_: InlineArray<17, Int32>.Type) -> InlineArray<17, Int32> {
    unsafeBitCast((SIMD16<Int32>(), Int32(0)), to: InlineArray<17, Int32>.self)
}
@inlinable @inline(__always)
internal func _zeroed(_: InlineArray<16, Float>.Type) -> InlineArray<16, Float> {
    unsafeBitCast(SIMD16<Float>(), to: InlineArray<16, Float>.self)
}
@inlinable @inline(__always)
internal func _zeroed(_: InlineArray<18, Float>.Type) -> InlineArray<18, Float> {
    unsafeBitCast((SIMD16<Float>(), SIMD2<Float>()), to: InlineArray<18, Float>.self)
}

extension _BlockPositions {
    /// Channel `i`'s part of a block's positions, on the cell at (`x`, `y`)
    /// with its newtons at scan k `newtons(k)`: the window's moments over
    /// the block's last ``CentreOfPressure/windowScans`` scans, and the zero
    /// block's sums in scan order, as the scan step adds them (the sampled
    /// scans `beforeFrom..<beforeTo` before its close at `closeAt` into
    /// `closedSums`, those from `afterFrom` to the block's end after it).
    /// Both block reads take it (the general one and the plate's quad read).
    @inlinable @inline(__always)
    internal mutating func _addCell(_ i: Int, x: Float, y: Float, zeroSums: inout InlineArray<8, Float>, closeAt: Int,
                                    beforeFrom: Int, beforeTo: Int, afterFrom: Int, _ newtons: (Int) -> Float) {
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
        for k in tail..<Classifier.blockScans {
            momentsX[k &- tail] += newtons(k) * x
            momentsY[k &- tail] += newtons(k) * y
        }
        var sum = zeroSums[i]
        var k = beforeFrom
        while k < beforeTo { sum += newtons(k); k &+= 1 }
        if closeAt >= 0 {
            closedSums[i] = sum
            sum = 0
            k = afterFrom
            while k < Classifier.blockScans { sum += newtons(k); k &+= 1 }
        }
        zeroSums[i] = sum
    }
}
#endif
