// Creep compensation and the creep allowance: an FSR's reading under a
// steady press keeps rising, so its levels see the finger's force estimated
// from the reading, and pop allows for the creep left over.
extension Classifier {
    /// An FSR's levels on a scan past the release level (the press path;
    /// the creep rules are on):
    ///
    /// - Creep compensation (`creepAmount` > 0): under a press an FSR reads
    ///   its force times `1 + amount (1 - exp(-t / tau))`, t from the press's
    ///   start (the last scan at rest), so a slow rise read raw crosses a
    ///   level before the finger's force does. Until the pop, the raw and
    ///   filtered readings are divided by that factor, then projected
    ///   `creepLeadMilliseconds` ahead on their smoothed rise (never above
    ///   the reading), before the peek and pop levels see them: a fast rise
    ///   crosses with the reading, a slow one at most the lead before the
    ///   compensated reading would. Not once popped: on unloading an FSR reads 5-10 %
    ///   lower than on loading, about what its creep added (1.05-1.14 x
    ///   0.90-0.95), so the release compares the reading as it is.
    /// - Creep allowance: while peeking, pop needs the force above the level
    ///   the press settled at by the allowance (capped at pop x (1 +
    ///   allowance)), so the creep left under a constant load never pops,
    ///   while a deliberate push from a lighter hold still pops at `pop`.
    ///
    /// Advances the crossings and runs on the readings so moved, keeping the
    /// filtered one in `_creepForce` for `_decide`.
    @usableFromInline @inline(never)
    internal mutating func _advanceCreeping(x rawX: Float, y rawY: Float, sample: Int64, timestampNs: Int64) {
        var x = rawX, y = rawY
        if _state != .popped && _parameters.creepAmount > 0 {
            // exp(-u) as (1 / (1 + v + v^2/2 + v^3/6))^8, v = u / 8: within
            // 0.2 % up to u = 3, decaying to 0 beyond (no libm in the core).
            let u = Float._min(Float(sample &- _rise.restSample) * _parameters.creepPerScan, 64)
            let v = u * 0.125
            var decay = 1 / (1 + v * (1 + v * (0.5 + v * (1 / 6))))
            decay *= decay
            decay *= decay
            decay *= decay
            var gain = 1 / (1 + _parameters.creepAmount * (1 - decay))
            // A reading that keeps coming back to its exact highest word is
            // clipped, against a mechanical stop or the converter's full
            // scale: the stop, not the force, sets it, so it carries no creep
            // to take off (compensated, a firm press held at a stop 1.15 x pop
            // would read below pop and never pop). While peeking the reading's
            // highest word is kept, and scored: +4 a scan back on it exactly,
            // -1 one below it (a live reading meets its own maximum's exact
            // word rarely), afresh on a new highest; the compensation stops
            // while the score is at 10 ms of scans or more (the smoothed
            // level's span, `creepLevelSmoothingMilliseconds`).
            let lagScans = ClassifierParameters.creepLevelSmoothingMilliseconds * _parameters.sampleRateHz * 0.001
            let peeking = _state == .peeking
            _creepFlat = !peeking || x > _creepWord ? 0
                : x == _creepWord ? Float._min(_creepFlat + 4, 64) : Float._max(0, _creepFlat - 1)
            _creepWord = peeking ? Float._max(_creepWord, x) : x
            if _creepFlat >= lagScans { gain = 1 }
            // The compensated reading's rise per scan: while peeking (scan by
            // scan on every path) the rise of its smoothed level (below),
            // smoothed from scan to scan; otherwise, and on a peek's first
            // scan, the mean rise since the last scan at rest, which the block
            // paths keep as this path does (they take idle scans below the
            // peek level in closed form, never these), the smoothed level
            // then set where that rise would have left it.
            //
            // A slow climb toward pop (the peek more than
            // `slowCrossingSeconds` ago) is read on that smoothed level
            // (`creepLevelSmoothingMilliseconds`) plus its lag on the rise,
            // not on the reading: an FSR's counts noise reads some five
            // times larger in newtons at the pop level than at rest (its
            // curve flattens: a typical FSR reads some 14,600 counts/N at
            // rest and 2,900 at pop), and on a low-SNR FSR the median of
            // three carries it past pop 40-70 ms before the force.
            // A fast push from the peek keeps the reading (the smoothing
            // would make it late).
            let yc = y * gain
            var level = yc
            if _state == .peeking && _creepLastSample == sample &- 1 {
                let before = _creepLast
                _creepLast += (yc - _creepLast) / (1 + lagScans)
                _creepRate += _parameters.creepRateSmoothing * (_creepLast - before - _creepRate)
                if Float(sample &- _peekSample) > _parameters.sampleRateHz * Classifier.slowCrossingSeconds {
                    level = _creepLast + Float._max(0, _creepRate) * lagScans
                }
            } else {
                _creepRate = (yc - _rise.restForce) / Float._max(1, Float(sample &- _rise.restSample))
                _creepLast = yc - Float._max(0, _creepRate) * lagScans
            }
            if _state == .peeking { _creepLastSample = sample }
            // Projected `creepLeadScans` ahead on that rise, never above the
            // reading: a fast rise crosses a level with the reading (the
            // compensation would move it by less than the lead), a slow one
            // the lead before the compensated reading would.
            let lead = Float._max(0, _creepRate) * _parameters.creepLeadScans
            x = Float._min(x, x * gain + lead)
            y = Float._min(y, level + lead)
        }
        var pop = _parameters.pop
        if _state == .peeking && _parameters.creepAllowance > 0 {
            let grow = 1 + _parameters.creepAllowance
            pop = Float._max(_parameters.pop, Float._min(_parameters.pop * grow, _settled * grow))
        }
        _creepForce = y
        _debounce.advance(crossing: (x >= _parameters.peek, x >= _parameters.pop, rawX < _releaseLevel),
                 runs: (y >= _parameters.peek, y >= pop, rawY < _releaseLevel),
                 scans: 1, sample: sample, timestampNs: timestampNs)
    }
}
