/// Spike rejection: a single-scan excursion is noise, not a press (the
/// spec's single-scan spike rule), so the classifier reads the median of the
/// last three readings, or where a scan is longer than a spike (9-10
/// scans/s) replaces only a reading that cannot be a press. No state of its
/// own: the classifier keeps the last two readings. One form for a scan
/// (`Float`) and for a block's lanes (`SIMD16<Float>`): the same comparisons
/// in the same order on both paths.
@usableFromInline
internal enum SpikeFilter {
    /// The median of three, lane by lane: max(min(a, b), min(max(a, b), c)), in
    /// the same comparisons on both paths.
    @inlinable @_transparent
    internal static func median<L: _Lanes>(_ a: L, _ b: L, _ c: L) -> L {
        let lo = L._min(a, b), hi = L._max(a, b)
        // `c < hi ? c : hi`, then `lo < m ? m : lo`.
        return L._max(lo, L._min(hi, c))
    }

    /// The spike filter for the reading `b` between `a` and `c`: the median of
    /// three, or with `isolated` (a scan longer than a spike, where a real tap
    /// may be one or two scans) the median only where `b` cannot be a press:
    /// a dip below both neighbours and below `floor` (the baseline less the
    /// touch band: a press never pulls the panel below zero, while a finger
    /// lifting for one scan between two taps leaves it at or above zero), or a
    /// rise whose neighbours agree within `agreement` or that rises above the
    /// higher neighbour by more than ``Classifier/spikeRiseOverSpread`` times
    /// their disagreement, or that rises above two neighbours of a held press
    /// (within its tremor of each other) by more than they differ. The first scan of a two-scan tap has a high neighbour, so it stays.
    @inlinable @inline(__always)
    internal static func filter<L: _Lanes>(_ a: L, _ b: L, _ c: L, isolated: Bool, agreement: Float, floor: Float) -> L {
        let m = median(a, b, c)
        guard isolated else { return m }
        let spread = L._abs(L._sub(a, c))
        let top = L._max(a, c)
        let dip = L._and(L._lt(b, a), L._lt(b, c))
        let excursion = L._sub(b, top)
        // On a held press the neighbours are one level too where they differ by
        // no more than the tremor at that level: a finger holding a force wanders
        // by ±15 % (the spec), so two readings of one held level differ by up to
        // ``Classifier/spikeTremorSpreadOfLevel`` of it (the level above the
        // baseline, `floor + agreement`: the callers pass the touch band and the
        // baseline less it). A reading that rises above both of them by more
        // than they differ is a one-scan excursion from the held level, a spike
        // as much as one from rest; one within their difference is the level's
        // own wander (a plateau's middle reading) and stays. Not clamped at 0:
        // below the baseline the tremor bound is under the touch band, whose
        // clause already holds wherever this one would.
        let level = L._sub(L._min(a, c), L(floor + agreement, broadcast: ()))
        let tremor = L._sub(L(agreement, broadcast: ()), L._mul(level, L(-Classifier.spikeTremorSpreadOfLevel, broadcast: ())))
        let held = L._and(L._le(spread, tremor), L._lt(spread, excursion))
        let rise = L._or(L._or(L._le(spread, L(agreement, broadcast: ())), held),
                         L._lt(L._mul(spread, L(Classifier.spikeRiseOverSpread, broadcast: ())), excursion))
        let replace = L._or(L._and(dip, L._lt(b, L(floor, broadcast: ()))), L._and(L._not(dip), rise))
        return L._select(replace, m, b)
    }
}
