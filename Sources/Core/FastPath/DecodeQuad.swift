// The block path's read of a four-cell plate whose four channels lie side
// by side in one direct 32-bit format: four scans a row, their rails, changes
// and newtons on 4-lane vectors, bit for bit the general read's. Host-only
// (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension _PanelDecoder {
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
            // The callers' totals come in zero (see readBlock): each quarter's sum starts from 0.
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
                held._addCell(i, x: cellX[i], y: cellY[i], zeroSums: &zeroSums, closeAt: closeAt,
                              beforeFrom: beforeFrom, beforeTo: beforeTo, afterFrom: afterFrom) { n[$0] }
            }
            return true
        }
    }

    /// The block read of the four side-by-side channels at ``quadOffset``:
    /// one 16-byte load a scan, its row (channel i in lane i) decoded,
    /// compared with the row before, tested against the rails and
    /// converted to newtons on four lanes with each channel's constants in
    /// its lane (each lane's arithmetic the scan step's); four rows are then
    /// transposed into a quarter of each channel's column and summed, from 0
    /// and in the channels' order, into the totals at `newtons + 80`. `be:s24/32>>8`
    /// without a byte swap: of the native word `b0 | b1 << 8 | b2 << 16 | b3 << 24`
    /// with its 16-bit halves swapped, `b2 | b3 << 8 | b0 << 16 | b1 << 24`,
    /// each half shifted left 8 (`b2 << 8 | b0 << 24`) and the word then
    /// arithmetic right 8 gives b0 sign-extended from bit 16 up, b2 at bits
    /// 0-7 and zeros between; b1 is put at bits 8-15 from the word itself.
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
                let y = SIMD8(w[1], w[0], w[3], w[2], w[5], w[4], w[7], w[6]) &<< 8
                return (unsafeBitCast(y, to: SIMD4<Int32>.self) &>> 8) | (x & SIMD4(repeating: 0xff00))
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
            var total = SIMD4<Float>()
            total += c0
            total += c1
            total += c2
            total += c3
            UnsafeMutableRawPointer(newtons + (4 &+ j)).storeBytes(of: c0, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (24 &+ j)).storeBytes(of: c1, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (44 &+ j)).storeBytes(of: c2, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (64 &+ j)).storeBytes(of: c3, as: SIMD4<Float>.self)
            UnsafeMutableRawPointer(newtons + (80 &+ j)).storeBytes(of: total, as: SIMD4<Float>.self)
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
#endif
