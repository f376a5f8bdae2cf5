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
    ///   and must be dropped. Otherwise `totals` holds each scan's force,
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
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
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
                for k in tail..<Classifier.blockScans {
                    held.momentsX[k &- tail] += column[k] * cellX[i]
                    held.momentsY[k &- tail] += column[k] * cellY[i]
                }
                // The zero block's sums in scan order, as the scan step adds them.
                var sum = zeroSums[i]
                var k = beforeFrom
                while k < beforeTo { sum += column[k]; k &+= 1 }
                if closeAt >= 0 {
                    held.closedSums[i] = sum
                    sum = 0
                    k = afterFrom
                    while k < Classifier.blockScans { sum += column[k]; k &+= 1 }
                }
                zeroSums[i] = sum
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

    /// ``readBlock(_:stride:first:last:counters:timing:positions:totals:stamps:changed:held:zeroSums:allMoments:momentsX:momentsY:)``'s
    /// channels where ``quadOffset`` is set: their columns, changes, rails,
    /// newtons and totals four scans at a time (``_readQuad(_:stride:last:newtons:)``),
    /// then each channel's moments and zero sums as the general read takes
    /// them (the zero block's sampled scans `beforeFrom..<beforeTo` before
    /// its close at `closeAt`, and from `afterFrom` to the block's end after it).
    @inlinable @inline(__always)
    internal mutating func _readBlockQuad(_ scans: UnsafeRawPointer, stride: Int, last s: inout _LastScan, positions: Bool,
                                          totals: inout SIMD16<Float>, changed: inout UInt32, held: inout _BlockPositions,
                                          zeroSums: inout InlineArray<8, Float>, allMoments: Bool,
                                          momentsX: inout SIMD16<Float>, momentsY: inout SIMD16<Float>,
                                          closeAt: Int, beforeFrom: Int, beforeTo: Int, afterFrom: Int) -> Bool {
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
        // Channel i's newtons at 20i + 4, behind -0 where read (see the zero sums), the totals at 80:
        // on the stack uninitialised, every float written before it is read
        // (the 96 floats zeroed whole were some 20 stores a block).
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 96) { buffer -> Bool in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            let n0 = buffer.baseAddress!
            raw.storeBytes(of: totals, toByteOffset: 320, as: SIMD16<Float>.self)
            guard let same = _readQuad(scans, stride: stride, last: &s, newtons: n0) else { return false }
            totals = raw.loadUnaligned(fromByteOffset: 320, as: SIMD16<Float>.self)
            changed = ~same & ((1 &<< UInt32(Classifier.blockScans)) &- 1)
            if allMoments {
                for i in 0..<4 {
                    let column = UnsafeRawPointer(n0 + (20 &* i &+ 4)).loadUnaligned(as: SIMD16<Float>.self)
                    momentsX += column * cellX[i]
                    momentsY += column * cellY[i]
                }
            }
            guard positions else { return true }
            // The pads are read only where the zero block's sampled scans start before the block.
            if closeAt < CentreOfPressure.zeroSampleScans &- 1 {
                for i in 0..<4 { raw.storeBytes(of: SIMD4<Float>(repeating: -0.0), toByteOffset: 80 &* i, as: SIMD4<Float>.self) }
            }
            if CentreOfPressure.zeroBlockScans == Classifier.blockScans && CentreOfPressure.zeroSampleScans == 4
                && CentreOfPressure.windowScans == 4 {
                // On four lanes, lane i channel i's (each lane's sums in the
                // scalar's order): channel i's quarter from scan `from` is at n0 + 20i + 4 + from.
                @inline(__always) func quarter(_ i: Int, _ from: Int) -> SIMD4<Float> {
                    UnsafeRawPointer(n0 + (20 &* i &+ 4 &+ from)).loadUnaligned(as: SIMD4<Float>.self)
                }
                // The window's moments, lane k scan tail + k's, the channels added in order.
                var mx = unsafeBitCast(held.momentsX, to: SIMD4<Float>.self)
                var my = unsafeBitCast(held.momentsY, to: SIMD4<Float>.self)
                for i in 0..<4 {
                    let q = quarter(i, tail)
                    mx += q * cellX[i]
                    my += q * cellY[i]
                }
                held.momentsX = unsafeBitCast(mx, to: InlineArray<4, Float>.self)
                held.momentsY = unsafeBitCast(my, to: InlineArray<4, Float>.self)
                // The zero block's four sampled scans, ending at its close
                // (one in every block; those before the block read -0, and
                // x + -0 is x bit for bit): each channel's four as a quarter,
                // transposed (as in _readQuad) into each scan's four channels, added in scan order.
                let from = closeAt &- (CentreOfPressure.zeroSampleScans &- 1)
                let a0 = quarter(0, from), a1 = quarter(1, from), a2 = quarter(2, from), a3 = quarter(3, from)
                let t0 = unsafeBitCast(SIMD4(a0[0], a1[0], a0[1], a1[1]), to: SIMD2<UInt64>.self)
                let t1 = unsafeBitCast(SIMD4(a2[0], a3[0], a2[1], a3[1]), to: SIMD2<UInt64>.self)
                let t2 = unsafeBitCast(SIMD4(a0[2], a1[2], a0[3], a1[3]), to: SIMD2<UInt64>.self)
                let t3 = unsafeBitCast(SIMD4(a2[2], a3[2], a2[3], a3[3]), to: SIMD2<UInt64>.self)
                var sums = withUnsafeBytes(of: zeroSums) { $0.loadUnaligned(as: SIMD4<Float>.self) }
                sums += unsafeBitCast(SIMD2(t0[0], t1[0]), to: SIMD4<Float>.self)
                sums += unsafeBitCast(SIMD2(t0[1], t1[1]), to: SIMD4<Float>.self)
                sums += unsafeBitCast(SIMD2(t2[0], t3[0]), to: SIMD4<Float>.self)
                sums += unsafeBitCast(SIMD2(t2[1], t3[1]), to: SIMD4<Float>.self)
                withUnsafeMutableBytes(of: &held.closedSums) { $0.storeBytes(of: sums, as: SIMD4<Float>.self) }
                // The next zero block's sampled scans in this block (a close at scan 2 or before), from 0.
                var after = SIMD4<Float>()
                var k = afterFrom
                while k < Classifier.blockScans {
                    after += SIMD4(n0[4 &+ k], n0[24 &+ k], n0[44 &+ k], n0[64 &+ k])
                    k &+= 1
                }
                withUnsafeMutableBytes(of: &zeroSums) { $0.storeBytes(of: after, as: SIMD4<Float>.self) }
                return true
            }
            for i in 0..<4 {
                let n = n0 + (20 &* i &+ 4)
                let x = cellX[i], y = cellY[i]
                for k in tail..<Classifier.blockScans {
                    held.momentsX[k &- tail] += n[k] * x
                    held.momentsY[k &- tail] += n[k] * y
                }
                var sum = zeroSums[i]
                var k = beforeFrom
                while k < beforeTo { sum += n[k]; k &+= 1 }
                if closeAt >= 0 {
                    held.closedSums[i] = sum
                    sum = 0
                    k = afterFrom
                    while k < Classifier.blockScans { sum += n[k]; k &+= 1 }
                }
                zeroSums[i] = sum
            }
            return true
        }
    }

    /// The block read of the four side-by-side channels at ``quadOffset``:
    /// one 16-byte load a scan, its row (channel i in lane i) decoded,
    /// compared with the row before, tested against the rails and
    /// converted to newtons on four lanes with each channel's constants in
    /// its lane (each lane's arithmetic the scan step's); four rows are then
    /// transposed into a quarter of each channel's column and added to the
    /// totals at `newtons + 80` in the channels' order. `be:s24/32>>8`
    /// without a byte swap: of the native word `b0 | b1 << 8 | b2 << 16 | b3 << 24`
    /// with its 16-bit halves swapped, `b2 | b3 << 8 | b0 << 16 | b1 << 24`,
    /// shifting left 8 and arithmetic right 8 gives b0 sign-extended from bit
    /// 16 up and b2 at bits 0-7; b1 is put at bits 8-15 from the word itself.
    ///
    /// - Returns: nil where a scan is on a rail; otherwise bit k set where
    ///   scan k's raw words are all those of the scan before. Channel i's
    ///   newtons are at `newtons + 20i + 4`.
    @inlinable @inline(__always)
    internal func _readQuad(_ scans: UnsafeRawPointer, stride: Int, last s: inout _LastScan,
                            newtons: UnsafeMutablePointer<Float>) -> UInt32? {
        let at = scans + quadOffset
        let s24 = decoders[0].load == .s24be8
        let railBase = quadRailBase, railTop = quadRailTop, zero = quadZero, scale = quadScale
        var previous = SIMD4(Int32(truncatingIfNeeded: s.lastRaw[0]), Int32(truncatingIfNeeded: s.lastRaw[1]),
                             Int32(truncatingIfNeeded: s.lastRaw[2]), Int32(truncatingIfNeeded: s.lastRaw[3]))
        var outside = SIMD4<Int32>()
        // Lane k of a quarter: all ones where scan k is the same as the one
        // before, kept as bit 4q + k (the weights move up 4 a quarter).
        var sameLanes = SIMD4<Int32>()
        var weights = SIMD4<Int32>(1, 2, 4, 8)
        var j = 0
        while j < Classifier.blockScans {
            // Helpers capture only constants (a captured `var` is boxed, a heap allocation, in debug builds).
            @inline(__always) func row(_ scan: Int) -> SIMD4<Int32> {
                let x = (at + scan &* stride).loadUnaligned(as: SIMD4<Int32>.self)
                guard s24 else { return x }
                let w = unsafeBitCast(x, to: SIMD8<Int16>.self)
                let y = unsafeBitCast(SIMD8(w[1], w[0], w[3], w[2], w[5], w[4], w[7], w[6]), to: SIMD4<Int32>.self)
                let low = SIMD4<Int32>(repeating: 0xff00)
                return (((y &<< 8) &>> 8) & ~low) | (x & low)
            }
            let r0 = row(j), r1 = row(j &+ 1), r2 = row(j &+ 2), r3 = row(j &+ 3)
            // Each row's lanes equal to the row before's, narrowed to bytes
            // (the masks' lanes are 0 or -1, so keeping each lane's low half
            // is exact, and LLVM makes it `packssdw`/`packsswb`; the
            // stdlib's `init(truncatingIfNeeded:)` stayed a call): 32-bit
            // lane k is then all ones where every channel of scan k is.
            @inline(__always) func equal(_ a: SIMD4<Int32>, _ b: SIMD4<Int32>) -> SIMD8<Int16> {
                unsafeBitCast(a .== b, to: SIMD8<Int16>.self)
            }
            @inline(__always) func narrow(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
                SIMD8(a[0], a[2], a[4], a[6], b[0], b[2], b[4], b[6])
            }
            let e01 = unsafeBitCast(narrow(equal(r0, previous), equal(r1, r0)), to: SIMD16<Int8>.self)
            let e23 = unsafeBitCast(narrow(equal(r2, r1), equal(r3, r2)), to: SIMD16<Int8>.self)
            let bytes = unsafeBitCast(SIMD16(e01[0], e01[2], e01[4], e01[6], e01[8], e01[10], e01[12], e01[14],
                                             e23[0], e23[2], e23[4], e23[6], e23[8], e23[10], e23[12], e23[14]),
                                      to: SIMD4<Int32>.self)
            sameLanes |= unsafeBitCast(bytes .== SIMD4(repeating: -1), to: SIMD4<Int32>.self) & weights
            weights &<<= 4
            @inline(__always) func off(_ r: SIMD4<Int32>) -> SIMD4<Int32> {
                unsafeBitCast(r &- railBase .> railTop, to: SIMD4<Int32>.self)
            }
            outside |= (off(r0) | off(r1)) | (off(r2) | off(r3))
            let n0 = SIMD4<Float>(r0 &- zero) * scale, n1 = SIMD4<Float>(r1 &- zero) * scale
            let n2 = SIMD4<Float>(r2 &- zero) * scale, n3 = SIMD4<Float>(r3 &- zero) * scale
            // The transpose: channels 0-1 and 2-3 of scan pairs interleaved,
            // then their 64-bit halves paired (written so, LLVM keeps it to
            // eight shuffles; as lanes of four rows it made sixteen).
            let t0 = unsafeBitCast(SIMD4(n0[0], n1[0], n0[1], n1[1]), to: SIMD2<UInt64>.self)
            let t1 = unsafeBitCast(SIMD4(n2[0], n3[0], n2[1], n3[1]), to: SIMD2<UInt64>.self)
            let t2 = unsafeBitCast(SIMD4(n0[2], n1[2], n0[3], n1[3]), to: SIMD2<UInt64>.self)
            let t3 = unsafeBitCast(SIMD4(n2[2], n3[2], n2[3], n3[3]), to: SIMD2<UInt64>.self)
            let c0 = unsafeBitCast(SIMD2(t0[0], t1[0]), to: SIMD4<Float>.self)
            let c1 = unsafeBitCast(SIMD2(t0[1], t1[1]), to: SIMD4<Float>.self)
            let c2 = unsafeBitCast(SIMD2(t2[0], t3[0]), to: SIMD4<Float>.self)
            let c3 = unsafeBitCast(SIMD2(t2[1], t3[1]), to: SIMD4<Float>.self)
            let totals = UnsafeMutableRawPointer(newtons + (80 &+ j))
            var total = totals.loadUnaligned(as: SIMD4<Float>.self)
            total += c0
            total += c1
            total += c2
            total += c3
            UnsafeMutableRawPointer(newtons + (4 &+ j)).storeBytes(of: c0, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (24 &+ j)).storeBytes(of: c1, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (44 &+ j)).storeBytes(of: c2, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (64 &+ j)).storeBytes(of: c3, as: SIMD4<Float>.self)
            totals.storeBytes(of: total, as: SIMD4<Float>.self)
            previous = r3
            j &+= 4
        }
        s.lastRaw[0] = Int64(previous[0])
        s.lastRaw[1] = Int64(previous[1])
        s.lastRaw[2] = Int64(previous[2])
        s.lastRaw[3] = Int64(previous[3])
        let words = unsafeBitCast(outside, to: SIMD2<UInt64>.self)
        guard words[0] | words[1] == 0 else { return nil }
        let h2 = sameLanes.lowHalf | sameLanes.highHalf
        return UInt32(truncatingIfNeeded: h2[0] | h2[1])
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
#endif
