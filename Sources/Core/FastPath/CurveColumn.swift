// A curve channel's column on the block path: read in 32-bit lanes where
// its format fits them, and on one segment all sixteen at once. Host-only
// (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension _PanelDecoder {
    /// The newtons of curve channel `i` in the block at `scans`, for a
    /// channel that ``_ChannelDecoder/fits32``: its column read in 32-bit
    /// lanes as a line channel's is (``_ChannelDecoder/column32(_:offsets:into:)``),
    /// `lastRaw` its last raw value (moved to the block's last), `same`
    /// narrowed to the scans that read what the scan before read and
    /// `inside` to the quarters off the rails, as the line channels' are;
    /// the newtons ``_curveLanes(first:last:_:)``'s.
    @inlinable @inline(__always)
    internal mutating func _curveColumn32(_ scans: UnsafeRawPointer, channel i: Int, lastRaw: inout Int64,
                                          same: inout SIMDMask<SIMD16<Int32>>,
                                          inside: inout SIMDMask<SIMD4<Int32>>) -> SIMD16<Float> {
        // The last raw value at 0, the column at 1...16: lanes 0...15 are each scan's predecessor.
        var lanes = _zeroed(InlineArray<17, Int32>.self)
        let (before, now) = withUnsafeMutableBytes(of: &lanes) { raw in
            let p = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
            p[0] = Int32(truncatingIfNeeded: lastRaw)
            withUnsafeMutablePointer(to: &scanOffsets) { offsets in
                decoders[i].column32(scans, offsets: UnsafeRawPointer(offsets).assumingMemoryBound(to: Int.self), into: p + 1)
            }
            return (raw.loadUnaligned(fromByteOffset: 0, as: SIMD16<Int32>.self),
                    raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Int32>.self))
        }
        lastRaw = Int64(now[Classifier.blockScans &- 1])
        same .&= now .== before
        let shifted = now &- SIMD16(repeating: decoders[i].railBase)
        let span = SIMD4(repeating: decoders[i].railSpan)
        inside .&= (shifted.lowHalf.lowHalf .< span) .& (shifted.lowHalf.highHalf .< span)
            .& (shifted.highHalf.lowHalf .< span) .& (shifted.highHalf.highHalf .< span)
        return _curveLanes(first: Int(decoders[i].curveFirst), last: Int(decoders[i].curveLast), now)
    }

    /// A curve's newtons (its points `first...last` of the pool) for a
    /// column of raw values in 32-bit lanes, each exactly ``_curve(_:_:)``'s:
    /// ``_curveSegment(first:last:_:)``'s where the column is on one segment,
    /// else scan by scan (``_curveColumn(first:last:_:into:)``).
    @inlinable @inline(__always)
    internal mutating func _curveLanes(first: Int, last: Int, _ now: SIMD16<Int32>) -> SIMD16<Float> {
        if let line = _curveSegment(first: first, last: last, now) { return line }
        var raws = _zeroed(InlineArray<16, Int64>.self), newtons = _zeroed(InlineArray<16, Float>.self)
        for k in 0..<Classifier.blockScans { raws[k] = Int64(now[k]) }
        _curveColumn(first: first, last: last, &raws, into: &newtons)
        return unsafeBitCast(newtons, to: SIMD16<Float>.self)
    }

    /// The newtons of a column on one segment of the curve (the segment of
    /// its last reading) or two side by side, where some readings are at or
    /// below the first point too (an FSR at rest), all sixteen at once as
    /// ``_onSegment(_:_:raw:newtons:)`` finds each: on its segment, the same
    /// difference from the segment's start (exact in 32 bits: at least 0 and
    /// below the span, which fits), divided by the same span, on the same
    /// line; the first point's newtons at or below it, as
    /// ``_interpolate(_:first:last:raw:newtons:)`` holds them. Nil where a
    /// reading lies off those segments.
    @inlinable @inline(__always)
    internal mutating func _curveSegment(first: Int, last: Int, _ now: SIMD16<Int32>) -> SIMD16<Float>? {
        guard let (a, pair) = _curveSegments(first: first, last: last, now), var line = _segmentLine(a, now) else { return nil }
        let q = unsafeBitCast(now, to: _Quarters.self)
        if pair {
            guard let next = _segmentLine(a &+ 1, now) else { return nil }
            var l = unsafeBitCast(line, to: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>).self)
            let n = unsafeBitCast(next, to: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>).self)
            let from = SIMD4(repeating: Int32(truncatingIfNeeded: curveRaw[a &+ 1]))
            l.0.replace(with: n.0, where: q.0 .>= from)
            l.1.replace(with: n.1, where: q.1 .>= from)
            l.2.replace(with: n.2, where: q.2 .>= from)
            l.3.replace(with: n.3, where: q.3 .>= from)
            line = unsafeBitCast(l, to: SIMD16<Float>.self)
        }
        let bottom = curveRaw[first]
        if a == first && bottom >= Int64(Int32.min) && bottom <= Int64(Int32.max) {
            // The readings at or below the first point: its newtons.
            var l = unsafeBitCast(line, to: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>).self)
            let held = SIMD4(repeating: curveNewtons[first]), start = SIMD4(repeating: Int32(truncatingIfNeeded: bottom))
            l.0.replace(with: held, where: q.0 .<= start)
            l.1.replace(with: held, where: q.1 .<= start)
            l.2.replace(with: held, where: q.2 .<= start)
            l.3.replace(with: held, where: q.3 .<= start)
            line = unsafeBitCast(l, to: SIMD16<Float>.self)
        }
        return line
    }

    /// The segments of ``_curveSegment(first:last:_:)``: `a` alone, or `a`
    /// and `a + 1` (`pair`); nil where some reading lies off them.
    @inlinable @_transparent
    internal mutating func _curveSegments(first: Int, last: Int, _ now: SIMD16<Int32>) -> (a: Int, pair: Bool)? {
        let raw = curveRaw.span
        let bottom = raw[first], key = Int64(now[Classifier.blockScans &- 1])
        guard key < raw[last] else { return nil }
        // `low` the last point at or below the key (the first where the key
        // is at or below it), walked up from the first: an FSR reads on its
        // first segments most of the time, where the walk is shorter than a
        // binary search (key < raw[last]: the walk stops before the last point).
        var low = first
        while raw[unchecked: low &+ 1] <= key { low &+= 1 }
        let q = unsafeBitCast(now, to: _Quarters.self)
        // At or past the first point, or at or below it where it is an `Int32`: held.
        let held = bottom >= Int64(Int32.min) && bottom <= Int64(Int32.max)
        // The segments: `a` alone, or `a` and `a + 1`.
        var a = low, pair = false
        if !_PanelDecoder._allBelow(q, raw[unchecked: low &+ 1]) {
            guard low &+ 2 <= last && _PanelDecoder._allBelow(q, raw[unchecked: low &+ 2])
                    && ((low == first && held) || _PanelDecoder._allFrom(q, raw[unchecked: low])) else { return nil }
            pair = true
        } else if !((low == first && held) || _PanelDecoder._allFrom(q, raw[unchecked: low])) {
            guard low > first && ((low &- 1 == first && held) || _PanelDecoder._allFrom(q, raw[unchecked: low &- 1])) else { return nil }
            a = low &- 1
            pair = true
        }
        return (a, pair)
    }

    /// A column's lanes a quarter at a time: compared in quarters (16 lanes
    /// of compares were lowered lane by lane).
    @usableFromInline internal typealias _Quarters = (SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>, SIMD4<Int32>)

    /// Whether every lane is below `point` (false, conservatively, for a lane
    /// of `Int32.max` where the point lies beyond it).
    @inlinable @inline(__always)
    internal static func _allBelow(_ q: _Quarters, _ point: Int64) -> Bool {
        let end = SIMD4(repeating: Int32(clamping: point))
        return _allLanes((q.0 .< end) .& (q.1 .< end) .& (q.2 .< end) .& (q.3 .< end))
    }

    /// Whether every lane is at or past `point`, at most the highest lane's value.
    @inlinable @inline(__always)
    internal static func _allFrom(_ q: _Quarters, _ point: Int64) -> Bool {
        let start = SIMD4(repeating: Int32(clamping: point))
        return _allLanes((q.0 .>= start) .& (q.1 .>= start) .& (q.2 .>= start) .& (q.3 .>= start))
    }

    /// Every lane of `now` on segment `low` (from point `low` to `low + 1`),
    /// right for the lanes on it (see ``_curveSegment(first:last:_:)``);
    /// nil where the segment's span does not fit 32 bits. Mutating, as
    /// ``_curve(_:_:)``: the points are read in place (a copy of the decoder
    /// for the reads cost a kilobyte's copy a column).
    @inlinable @inline(__always)
    internal mutating func _segmentLine(_ low: Int, _ now: SIMD16<Int32>) -> SIMD16<Float>? {
        let raw = curveRaw.span, points = curveNewtons.span
        let x0 = raw[unchecked: low], span = raw[unchecked: low &+ 1] &- x0
        guard span > 0 && span <= Int64(Int32.max) else { return nil }
        let offsets = now &- SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: x0))
        // Lane by lane, as the scan step converts (LLVM makes it `cvtdq2ps`;
        // the vector initialiser stayed a call).
        var distances = _zeroed(InlineArray<16, Float>.self)
        for k in 0..<Classifier.blockScans { distances[k] = Float(offsets[k]) }
        let t = unsafeBitCast(distances, to: SIMD16<Float>.self) / SIMD16<Float>(repeating: Float(span))
        let n0 = points[unchecked: low], n1 = points[unchecked: low &+ 1]
        return SIMD16<Float>(repeating: n0) + t * SIMD16<Float>(repeating: n1 - n0)
    }
}
#endif
