// The creep rules over scans taken in closed form, where they change
// neither the readings nor a decision: only what they keep. Host-only
// (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension Classifier {
    /// What the creep rules leave after a block the block step takes whose
    /// every scan reads past the release level, `filtered` its spike-filtered
    /// readings: the reading the levels saw last (`_creepForce`), and while
    /// peeking the settled level the creep allowance measures from, moved
    /// scan by scan as `_whilePeeking` moves it. Only without creep
    /// compensation (the block step leaves a compensated press to `step`).
    @usableFromInline @inline(never)
    internal mutating func _creepBlock(_ filtered: SIMD16<Float>) {
        let baseline = _baseline
        _creepForce = filtered[Classifier.blockScans &- 1] - baseline
        if _state == .peeking { _settle({ filtered[$0] - baseline }, from: 0, upTo: Classifier.blockScans) }
    }

    /// Whether a run of a refused block whose scans have the conditions
    /// `code` (see `_stepRun`) is stepped for the creep rules: with creep
    /// compensation, which moves the readings the levels see on every scan
    /// not wholly below the release level until the pop. The creep allowance
    /// alone raises only the pop level, never below `pop`: followed at the
    /// run's end (`_creepRun`).
    @usableFromInline @inline(never)
    internal func _creepStepped(_ code: Int32) -> Bool {
        _parameters.creepAmount > 0 && (_state == .peeking || (_state == .idle && !Classifier._whollyBelowRelease(code)))
    }

    /// `_creepBlock` for scans `from..<upTo` of a refused block taken in a
    /// run, `y` the filtered readings less the baseline, `code` the scans'
    /// conditions (see `_stepRun`): nothing where both readings of its scans
    /// are below the release level (the creep rules do not run there).
    @usableFromInline @inline(never)
    internal mutating func _creepRun(_ y: UnsafeRawPointer, from: Int, upTo: Int, code: Int32) {
        if Classifier._whollyBelowRelease(code) { return }
        _creepForce = y.load(fromByteOffset: (upTo &- 1) &* 4, as: Float.self)
        if _state == .peeking { _settle({ y.load(fromByteOffset: $0 &* 4, as: Float.self) }, from: from, upTo: upTo) }
    }

    /// Whether both readings of the scans with conditions `code` (see
    /// `_stepRun`) are below the release level: the creep rules do not run there.
    @inlinable @inline(__always)
    internal static func _whollyBelowRelease(_ code: Int32) -> Bool {
        code & (4 | 32) == (4 | 32)
    }

    /// The creep allowance's settled level over scans `from..<upTo`, `y(k)`
    /// scan k's filtered reading less the baseline: `_whilePeeking`'s
    /// smoothing, in the same order.
    @inlinable @inline(__always)
    internal mutating func _settle(_ y: (Int) -> Float, from: Int, upTo: Int) {
        guard _parameters.creepAllowance > 0 else { return }
        let smoothing = _parameters.creepSmoothing
        var settled = _settled
        var k = from
        while k < upTo {
            settled += smoothing * (y(k) - settled)
            k &+= 1
        }
        _settled = settled
    }
}
#endif
