// The centre of pressure after each scan of a block taken whole, in
// lanes: the window sums every scan's position divides, and what the
// pressed-block entry hands the gesture layer. Host-side: not built for
// Embedded targets.
#if !hasFeature(Embedded)
/// The window sum ``_PressureWindow/position(gate:zeros:)`` takes after each
/// scan of a block whose first scan is a multiple of four: lane k is
/// `(slot 0 + slot 1) + (slot 2 + slot 3)` of the window after scan k, where
/// `before` is the window before the block (its slots hold the four scans
/// before it) and `block` the block's values. With a_d the values d scans
/// back, that sum is (a₁ + a₀) + (a₃ + a₂) after an odd scan and
/// (a₂ + a₁) + (a₀ + a₃) after an even one, the same additions in the same
/// pairs (a float sum does not depend on the order of its two operands), so
/// bit for bit what the window gives scan by scan.
@inlinable @inline(__always)
internal func _windowSums(_ before: InlineArray<4, Float>, _ block: SIMD16<Float>) -> SIMD16<Float> {
    // The even and the odd lanes apart, eight each, none computed and dropped:
    // with e the four values before the block followed by its sixteen,
    // E[m] = e[2m] and O[m] = e[2m + 1], lane 2j is (E[j+1] + O[j+1]) +
    // (E[j+2] + O[j]) and lane 2j + 1 is (E[j+2] + O[j+2]) + (E[j+1] + O[j+1]),
    // the pairs above. Both parities on all sixteen lanes, blended lane by
    // lane, were some 140 instructions of shuffles a call (LLVM kept only the
    // lanes used, two at a time); this is about a third of that.
    let e2 = block.evenHalf, o2 = block.oddHalf
    var ebuf = SIMD16<Float>(), obuf = SIMD16<Float>()
    withUnsafeMutableBytes(of: &ebuf) { raw in
        raw.storeBytes(of: before[2], toByteOffset: 4, as: Float.self)
        raw.storeBytes(of: e2, toByteOffset: 8, as: SIMD8<Float>.self)
    }
    withUnsafeMutableBytes(of: &obuf) { raw in
        raw.storeBytes(of: before[1], as: Float.self)
        raw.storeBytes(of: before[3], toByteOffset: 4, as: Float.self)
        raw.storeBytes(of: o2, toByteOffset: 8, as: SIMD8<Float>.self)
    }
    let e1 = withUnsafeBytes(of: &ebuf) { $0.loadUnaligned(fromByteOffset: 4, as: SIMD8<Float>.self) }
    let (o0, o1) = withUnsafeBytes(of: &obuf) {
        ($0.loadUnaligned(as: SIMD8<Float>.self), $0.loadUnaligned(fromByteOffset: 4, as: SIMD8<Float>.self))
    }
    let near = e1 + o1
    var r = SIMD16<Float>()
    r.evenHalf = near + (e2 + o0)
    r.oddHalf = (e2 + o2) + near
    return r
}

/// One coordinate of a block's positions in 16 lanes: `(sums - zero) / totals`,
/// lane 15 (which the caller fills) a copy of lane 0, with the lanes' least
/// and greatest and whether every lane is finite. Out of line, one coordinate
/// a call: with both in one body, LLVM paired x and y of each scan over their
/// common divisor and divided two lanes at a time, with shuffles to match.
@usableFromInline @inline(never)
internal func _quotients(_ sums: SIMD16<Float>, less zero: Float, over totals: SIMD16<Float>)
    -> (q: SIMD16<Float>, low: Float, high: Float, finite: Bool) {
    var q = (sums - SIMD16(repeating: zero)) / totals
    q[Classifier.blockScans &- 1] = q[0]
    return (q, _minLane(q), _maxLane(q), _sum16(q).isFinite)
}

/// Lane k of ``_windowSums(_:_:)``, from `e`, the four values before the
/// block followed by the block's sixteen (a_d is `e[k + 4 - d]`): the same
/// additions in the same pairs, one lane at a time.
@inlinable @inline(__always)
internal func _windowSum(_ e: UnsafePointer<Float>, _ k: Int) -> Float {
    let a0 = e[k &+ 4], a1 = e[k &+ 3], a2 = e[k &+ 2], a3 = e[k &+ 1]
    return k & 1 != 0 ? (a1 + a0) + (a3 + a2) : (a2 + a1) + (a0 + a3)
}

extension ForcePipeline {
    /// The centre of pressure after each scan but the last of a block taken
    /// whole (the first scan a multiple of four), as
    /// ``_PressureWindow/position(gate:zeros:)`` gives it scan by scan from
    /// `window` (the window before the block) and `zeros` (the cells' zeros
    /// until the block's last scan): each lane's window sums, then the lane's
    /// position where its force reaches the gate, else the last decided one.
    /// One scalar pass over the lanes: a lane mask of 16 floats (a comparison,
    /// a select) is built and read lane by lane through memory. Static: it
    /// reads nothing else of the pipeline, so a call that is not inlined
    /// passes no copy of it.
    @inlinable @inline(__always)
    internal static func _blockPositions(_ window: _PressureWindow, _ zeros: _CellZeros, forces: SIMD16<Float>,
                                  momentsX: SIMD16<Float>, momentsY: SIMD16<Float>, gate: Float,
                                  into out: inout PressedBlockScans) {
        let n = Float(CentreOfPressure.windowScans)
        let threshold = gate * n
        let zf = n * zeros.total, zx = n * zeros.momentX, zy = n * zeros.momentY
        // The common block of a held press: every window past the gate, every position finite.
        // Sixteen lanes at once (the same additions and divisions as lane by lane below), bounds
        // from lane minima and maxima; lane 15 is left to the caller, so it copies lane 0 here.
        let totals = _windowSums(window.force, forces) - SIMD16(repeating: zf)
        var lowest = totals
        lowest[Classifier.blockScans &- 1] = totals[0]
        if _minLane(lowest) >= threshold {
            let x = _quotients(_windowSums(window.momentX, momentsX), less: zx, over: totals)
            let y = _quotients(_windowSums(window.momentY, momentsY), less: zy, over: totals)
            if x.finite && y.finite {
                // No lane is NaN or infinite: minima and maxima are those of the scalar pass.
                var qx = x.q, qy = y.q
                qx[Classifier.blockScans &- 1] = out._x[Classifier.blockScans &- 1]
                qy[Classifier.blockScans &- 1] = out._y[Classifier.blockScans &- 1]
                withUnsafeMutableBytes(of: &out._x) { $0.storeBytes(of: qx, as: SIMD16<Float>.self) }
                withUnsafeMutableBytes(of: &out._y) { $0.storeBytes(of: qy, as: SIMD16<Float>.self) }
                out._hasPosition = Classifier.blockBits >> 1
                out._low = PlatePoint(x: x.low, y: y.low)
                out._high = PlatePoint(x: x.high, y: y.high)
                out._nan = false
                return
            }
        }
        var ef = InlineArray<20, Float>(repeating: 0), ex = ef, ey = ef
        for j in 0..<CentreOfPressure.windowScans {
            ef[j] = window.force[j]
            ex[j] = window.momentX[j]
            ey[j] = window.momentY[j]
        }
        let body = CentreOfPressure.windowScans &* MemoryLayout<Float>.stride
        withUnsafeMutableBytes(of: &ef) { $0.storeBytes(of: forces, toByteOffset: body, as: SIMD16<Float>.self) }
        withUnsafeMutableBytes(of: &ex) { $0.storeBytes(of: momentsX, toByteOffset: body, as: SIMD16<Float>.self) }
        withUnsafeMutableBytes(of: &ey) { $0.storeBytes(of: momentsY, toByteOffset: body, as: SIMD16<Float>.self) }
        let last = window.last
        var decided: UInt32 = 0
        var bounds = PressedBlockScans()
        withUnsafeBytes(of: &ef) { rf in
            withUnsafeBytes(of: &ex) { rx in
                withUnsafeBytes(of: &ey) { ry in
                    withUnsafeMutableBytes(of: &out._x) { ox in
                        withUnsafeMutableBytes(of: &out._y) { oy in
                            let f = rf.baseAddress!.assumingMemoryBound(to: Float.self)
                            let x = rx.baseAddress!.assumingMemoryBound(to: Float.self)
                            let y = ry.baseAddress!.assumingMemoryBound(to: Float.self)
                            let px = ox.baseAddress!.assumingMemoryBound(to: Float.self)
                            let py = oy.baseAddress!.assumingMemoryBound(to: Float.self)
                            for k in 0..<(Classifier.blockScans &- 1) {
                                let total = _windowSum(f, k) - zf
                                if total >= threshold {
                                    let qx = (_windowSum(x, k) - zx) / total, qy = (_windowSum(y, k) - zy) / total
                                    px[k] = qx
                                    py[k] = qy
                                    bounds._widen(qx, qy)
                                    decided |= 1 &<< UInt32(truncatingIfNeeded: k)
                                } else if let last {
                                    px[k] = last.x
                                    py[k] = last.y
                                    bounds._widen(last.x, last.y)
                                    decided |= 1 &<< UInt32(truncatingIfNeeded: k)
                                }
                            }
                        }
                    }
                }
            }
        }
        out._hasPosition = decided
        out._low = bounds._low
        out._high = bounds._high
        out._nan = bounds._nan
    }
}

/// What ``ForcePipeline/processPressedBlock(_:into:replay:events:)`` hands the gesture
/// layer for each scan of a block it took whole: the press force and the
/// centre of pressure as ``ForcePipeline/pressForce`` and
/// ``ForcePipeline/centreOfPressure`` read after that scan's
/// ``ForcePipeline/process(scan:into:)``. Fixed size, no allocation.
public struct PressedBlockScans: BitwiseCopyable, Sendable {
    /// The sample number of the block's first scan.
    public var first: Int64 = 0
    @usableFromInline internal var _forces = InlineArray<16, Float>(repeating: 0)
    @usableFromInline internal var _x = InlineArray<16, Float>(repeating: 0)
    @usableFromInline internal var _y = InlineArray<16, Float>(repeating: 0)
    /// Bit k: scan k has a centre of pressure (none before any press reached the gate, or without cell positions).
    @usableFromInline internal var _hasPosition: UInt32 = 0
    /// The smallest and largest x and y of the scans' positions, and whether one is NaN.
    @usableFromInline internal var _low = PlatePoint(x: .infinity, y: .infinity)
    @usableFromInline internal var _high = PlatePoint(x: -.infinity, y: -.infinity)
    @usableFromInline internal var _nan = false

    @inlinable
    public init() {}

    /// The smallest and the largest x and y over the scans that have a
    /// position (a region check of every point is one of these two, as a
    /// float widens to a double monotonically); nil where none has one or one is NaN.
    @inlinable
    public var positionBounds: (low: PlatePoint, high: PlatePoint)? {
        _hasPosition == 0 || _nan ? nil : (_low, _high)
    }

    @inlinable @inline(__always)
    internal mutating func _widen(_ x: Float, _ y: Float) {
        _low.x = x < _low.x ? x : _low.x
        _high.x = x > _high.x ? x : _high.x
        _low.y = y < _low.y ? y : _low.y
        _high.y = y > _high.y ? y : _high.y
        _nan = _nan || x != x || y != y
    }

    /// The press force after scan `k` (0 ..< ``Classifier/blockScans``).
    @inlinable
    public func force(_ k: Int) -> Float { _forces[k] }

    /// Every scan's press force, lane k scan k's: to read once per block
    /// (``force(_:)`` on a block that is not a local copies the whole array per read).
    @inlinable
    public var forces: InlineArray<16, Float> { _forces }
    /// Every scan's centre of pressure, x and y, lane k scan k's; bit k of
    /// ``positionMask`` says whether scan k has one.
    @inlinable
    public var positionsX: InlineArray<16, Float> { _x }
    @inlinable
    public var positionsY: InlineArray<16, Float> { _y }
    /// Bit k: scan k has a centre of pressure.
    @inlinable
    public var positionMask: UInt32 { _hasPosition }

    /// The centre of pressure after scan `k` (0 ..< ``Classifier/blockScans``).
    @inlinable
    public func position(_ k: Int) -> PlatePoint? {
        (_hasPosition >> UInt32(truncatingIfNeeded: k)) & 1 != 0 ? PlatePoint(x: _x[k], y: _y[k]) : nil
    }

    @inlinable
    internal mutating func _set(_ k: Int, _ p: PlatePoint?) {
        guard let p else { return }
        _x[k] = p.x
        _y[k] = p.y
        _hasPosition |= 1 << UInt32(truncatingIfNeeded: k)
        _widen(p.x, p.y)
    }
}
#endif
