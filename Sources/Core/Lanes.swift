/// One scan's reading (`Float`) or a block's readings (`SIMD16<Float>`):
/// the spike filter and its median (`SpikeFilter`) are written once over this and
/// specialised for both, so the per-scan and block paths cannot disagree.
/// Every operation is branch-free: comparisons give masks, and a select is a
/// bitwise blend (a conditional move on a scalar).
@usableFromInline
internal protocol _Lanes {
    associatedtype Mask
    init(_ scalar: Float, broadcast: Void)
    static func _sub(_ a: Self, _ b: Self) -> Self
    static func _mul(_ a: Self, _ b: Self) -> Self
    static func _lt(_ a: Self, _ b: Self) -> Mask
    static func _le(_ a: Self, _ b: Self) -> Mask
    static func _and(_ a: Mask, _ b: Mask) -> Mask
    static func _or(_ a: Mask, _ b: Mask) -> Mask
    static func _not(_ a: Mask) -> Mask
    /// `m ? t : f`, lane by lane.
    static func _select(_ m: Mask, _ t: Self, _ f: Self) -> Self
    /// The magnitude: the sign bit cleared.
    static func _abs(_ a: Self) -> Self
    /// `b < a ? b : a`: the smaller, `a` on a tie.
    static func _min(_ a: Self, _ b: Self) -> Self
    /// `a < b ? b : a`: the larger, `a` on a tie.
    static func _max(_ a: Self, _ b: Self) -> Self
}

extension Float: _Lanes {
    @inlinable @inline(__always) internal init(_ scalar: Float, broadcast: Void) { self = scalar }
    @inlinable @inline(__always) internal static func _sub(_ a: Float, _ b: Float) -> Float { a - b }
    @inlinable @inline(__always) internal static func _mul(_ a: Float, _ b: Float) -> Float { a * b }
    @inlinable @inline(__always) internal static func _lt(_ a: Float, _ b: Float) -> Bool { a < b }
    @inlinable @inline(__always) internal static func _le(_ a: Float, _ b: Float) -> Bool { a <= b }
    @inlinable @inline(__always) internal static func _and(_ a: Bool, _ b: Bool) -> Bool { a && b }
    @inlinable @inline(__always) internal static func _or(_ a: Bool, _ b: Bool) -> Bool { a || b }
    @inlinable @inline(__always) internal static func _not(_ a: Bool) -> Bool { !a }
    @inlinable @inline(__always) internal static func _select(_ m: Bool, _ t: Float, _ f: Float) -> Float { m ? t : f }
    @inlinable @inline(__always) internal static func _abs(_ a: Float) -> Float {
        Float(bitPattern: a.bitPattern & 0x7fff_ffff)
    }
    @inlinable @inline(__always) internal static func _min(_ a: Float, _ b: Float) -> Float { b < a ? b : a }
    @inlinable @inline(__always) internal static func _max(_ a: Float, _ b: Float) -> Float { a < b ? b : a }
}

/// Lane-by-lane `a < b ? b : a`, `b < a ? b : a` and `a < 0 ? -a : a`, written
/// as loops over scalars: LLVM turns these selects into one `maxps`/`minps`
/// per four lanes on x86 (whose operand order has exactly these semantics,
/// ties and NaN included), where a mask blend (`replacing(with:where:)`)
/// costs a compare, a sign test and three bitwise operations.
@inlinable @inline(__always)
internal func _laneMax<V: SIMD>(_ a: V, _ b: V) -> V where V.Scalar == Float {
    var r = a
    for i in r.indices { r[i] = a[i] < b[i] ? b[i] : a[i] }
    return r
}
@inlinable @inline(__always)
internal func _laneMin<V: SIMD>(_ a: V, _ b: V) -> V where V.Scalar == Float {
    var r = a
    for i in r.indices { r[i] = b[i] < a[i] ? b[i] : a[i] }
    return r
}
@inlinable @inline(__always)
internal func _laneAbs<V: SIMD>(_ a: V) -> V where V.Scalar == Float {
    var r = a
    for i in r.indices { r[i] = a[i] < 0 ? -a[i] : a[i] }
    return r
}

extension SIMD16: _Lanes where Scalar == Float {
    @usableFromInline internal typealias Mask = SIMDMask<SIMD16<Int32>>
    @inlinable @inline(__always) internal init(_ scalar: Float, broadcast: Void) { self.init(repeating: scalar) }
    @inlinable @inline(__always) internal static func _sub(_ a: Self, _ b: Self) -> Self { a - b }
    @inlinable @inline(__always) internal static func _mul(_ a: Self, _ b: Self) -> Self { a * b }
    @inlinable @inline(__always) internal static func _lt(_ a: Self, _ b: Self) -> Mask { a .< b }
    @inlinable @inline(__always) internal static func _le(_ a: Self, _ b: Self) -> Mask { a .<= b }
    @inlinable @inline(__always) internal static func _and(_ a: Mask, _ b: Mask) -> Mask { a .& b }
    @inlinable @inline(__always) internal static func _or(_ a: Mask, _ b: Mask) -> Mask { a .| b }
    @inlinable @inline(__always) internal static func _not(_ a: Mask) -> Mask { .!a }
    /// A lane select; on a vector unit a blend (x86 `blendvps`/`minps`, NEON `bsl`).
    @inlinable @inline(__always)
    internal static func _select(_ m: Mask, _ t: Self, _ f: Self) -> Self { f.replacing(with: t, where: m) }
    @inlinable @inline(__always) internal static func _abs(_ a: Self) -> Self { _laneAbs(a) }
    @inlinable @inline(__always) internal static func _min(_ a: Self, _ b: Self) -> Self { _laneMin(a, b) }
    @inlinable @inline(__always) internal static func _max(_ a: Self, _ b: Self) -> Self { _laneMax(a, b) }
}

/// A sum in a fixed pairwise order, so that every caller gets the same bits.
@inlinable @inline(__always)
internal func _sum16(_ v: SIMD16<Float>) -> Float {
    let h8 = v.lowHalf + v.highHalf
    let h4 = h8.lowHalf + h8.highHalf
    let h2 = h4.lowHalf + h4.highHalf
    return h2[0] + h2[1]
}
