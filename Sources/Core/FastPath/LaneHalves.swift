// The largest and smallest lane of a block's 16 (floats; bytes on hosts only). On hosts the halves come
// by bit casts, on the microcontrollers as the standard library gives them:
// the same lanes compared in the same order, so the same result.
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
/// The largest and smallest lane: halving in registers (the standard
/// library's reductions are scalar loops), each level one `maxps`/`minps`.
@inlinable @inline(__always)
internal func _maxLane(_ v: SIMD16<Float>) -> Float {
    // The halves by bit casts (`lowHalf` and `highHalf` were calls
    // where the inliner gave up, in the four-cell block read); the same lanes.
    let h16 = unsafeBitCast(v, to: (SIMD8<Float>, SIMD8<Float>).self)
    let h8 = _laneMax(h16.0, h16.1)
    let q8 = unsafeBitCast(h8, to: (SIMD4<Float>, SIMD4<Float>).self)
    let h4 = _laneMax(q8.0, q8.1)
    let h2 = _laneMax(h4.lowHalf, h4.highHalf)
    return Float._max(h2[0], h2[1])
}
@inlinable @inline(__always)
internal func _minLane(_ v: SIMD16<Float>) -> Float {
    let h16 = unsafeBitCast(v, to: (SIMD8<Float>, SIMD8<Float>).self)
    let h8 = _laneMin(h16.0, h16.1)
    let q8 = unsafeBitCast(h8, to: (SIMD4<Float>, SIMD4<Float>).self)
    let h4 = _laneMin(q8.0, q8.1)
    let h2 = _laneMin(h4.lowHalf, h4.highHalf)
    return Float._min(h2[0], h2[1])
}
/// The highest and the lowest of 16 byte lanes, by halving (the first two
/// halves by bit casts: `lowHalf` and `highHalf` were calls on the plate's block path).
@inlinable @inline(__always)
internal func _maxByte(_ v: SIMD16<UInt8>) -> UInt8 {
    let halves = unsafeBitCast(v, to: (SIMD8<UInt8>, SIMD8<UInt8>).self)
    let h8 = pointwiseMax(halves.0, halves.1)
    let quarters = unsafeBitCast(h8, to: (SIMD4<UInt8>, SIMD4<UInt8>).self)
    let h4 = pointwiseMax(quarters.0, quarters.1)
    let h2 = pointwiseMax(h4.lowHalf, h4.highHalf)
    return Swift.max(h2[0], h2[1])
}
@inlinable @inline(__always)
internal func _minByte(_ v: SIMD16<UInt8>) -> UInt8 {
    let halves = unsafeBitCast(v, to: (SIMD8<UInt8>, SIMD8<UInt8>).self)
    let h8 = pointwiseMin(halves.0, halves.1)
    let quarters = unsafeBitCast(h8, to: (SIMD4<UInt8>, SIMD4<UInt8>).self)
    let h4 = pointwiseMin(quarters.0, quarters.1)
    let h2 = pointwiseMin(h4.lowHalf, h4.highHalf)
    return Swift.min(h2[0], h2[1])
}
#else
/// `_maxLane` and `_minLane` on the microcontrollers: the halves as the
/// standard library gives them.
@inlinable @inline(__always)
internal func _maxLane(_ v: SIMD16<Float>) -> Float {
    let h8 = _laneMax(v.lowHalf, v.highHalf)
    let h4 = _laneMax(h8.lowHalf, h8.highHalf)
    let h2 = _laneMax(h4.lowHalf, h4.highHalf)
    return Float._max(h2[0], h2[1])
}
@inlinable @inline(__always)
internal func _minLane(_ v: SIMD16<Float>) -> Float {
    let h8 = _laneMin(v.lowHalf, v.highHalf)
    let h4 = _laneMin(h8.lowHalf, h8.highHalf)
    let h2 = _laneMin(h4.lowHalf, h4.highHalf)
    return Float._min(h2[0], h2[1])
}
#endif
