// The block forms' reinterpretations of a vector's lanes as another shape
// of the same bytes, each behind a name that says which lanes go where.
// Host-only: the block forms that use them are (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
/// 16 byte lanes from two little-endian words: bytes 0...7 from `low`'s
/// bytes, lowest first, bytes 8...15 from `high`'s.
@_transparent @usableFromInline
internal func _byteLanes(_ low: UInt64, _ high: UInt64) -> SIMD16<UInt8> {
    unsafeBitCast(SIMD2<UInt64>(low, high), to: SIMD16<UInt8>.self)
}

/// A vector's four lanes as two 64-bit words: lanes 0 and 1 in word 0,
/// lanes 2 and 3 in word 1 (to move lanes in pairs).
@_transparent @usableFromInline
internal func _lanePairs(_ v: SIMD4<Float>) -> SIMD2<UInt64> {
    unsafeBitCast(v, to: SIMD2<UInt64>.self)
}

/// ``_lanePairs(_:)`` undone: word 0 to lanes 0 and 1, word 1 to lanes 2 and 3.
@_transparent @usableFromInline
internal func _pairedLanes(_ pairs: SIMD2<UInt64>) -> SIMD4<Float> {
    unsafeBitCast(pairs, to: SIMD4<Float>.self)
}

/// A vector's four lanes as a fixed array, lane k in element k.
@_transparent @usableFromInline
internal func _elements(_ v: SIMD4<Float>) -> InlineArray<4, Float> {
    unsafeBitCast(v, to: InlineArray<4, Float>.self)
}
#endif
