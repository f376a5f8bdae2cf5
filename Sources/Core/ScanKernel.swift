// Over 300 lines: the one scan step and its column-by-column block form share the decoder's state and must stay bit-identical; side by side, a change to one is seen against the other.
/// The last scan's raw words and timestamp, which the next scan is compared
/// with, on both paths. The block path advances it in place and puts it
/// back where the block is left to the per-scan path.
@usableFromInline
internal struct _LastScan: BitwiseCopyable, Sendable {
    @usableFromInline internal var lastRaw = InlineArray<8, Int64>(repeating: 0)
    @usableFromInline internal var lastTimestamp: Int64 = 0

    @inlinable internal init() {}
}

/// The health scores one scan advances on both paths (the scan-at-a-time
/// path and the block path), which judge a flat reading. All scalars, apart
/// from the raw words (``_LastScan``). The block path advances them in place
/// (``advance(block:changed:baseline:band:stuckScans:)`` changes nothing
/// where it leaves the block to the per-scan path), once the block's read was taken.
@usableFromInline
internal struct _ScanState: BitwiseCopyable, Sendable {
    @usableFromInline internal var stuckRun: Int32 = 0
    /// The highest force seen, newtons: a flat run near it while pressed is a
    /// press held against a stop (clipping), plausible. Judged on the
    /// calibrated force, so a cell wired with negative gain is treated the same.
    @usableFromInline internal var forceHigh: Float = 0
    /// How often the raw words change, 0...``_ScanState/scoreCeiling``: +1 for a
    /// scan that changed, -1 for one that did not. A sensor that normally shows noise sits high.
    @usableFromInline internal var changeScore: Int32 = 0
    /// Noise at rest, 0...``_ScanState/scoreCeiling``: on scans within the touch band of the baseline,
    /// +2 where the force turns (its change reverses sign), -1 otherwise. Noise
    /// turns two scans in three and climbs; the monotone fall of a light touch
    /// ending, or an exact zero, does not.
    @usableFromInline internal var restScore: Int32 = 0
    @usableFromInline internal var previousForce: Float = 0
    @usableFromInline internal var previousTurn: Int8 = 0
    /// Whether the sensor was showing noise (anywhere, and at rest) when the current flat run began.
    @usableFromInline internal var runNoisy = false
    @usableFromInline internal var runRestNoisy = false

    /// The scores' ceiling, scans: a score saturates after this many noisy scans in a row.
    @usableFromInline internal static let scoreCeiling: Int32 = 64
    /// A score at or above this, half the ceiling, marks a sensor that shows noise.
    @usableFromInline internal static let noisyScore: Int32 = 32
    /// A turn at rest adds this (a non-turn takes 1): noise turns two scans in three and climbs.
    @usableFromInline internal static let turnCredit: Int32 = 2

    @inlinable internal init() {}

    /// The health scores' update for one scan, the same on both paths.
    @inlinable @inline(__always)
    internal mutating func advance(same: Bool, atRest: Bool, force: Float) {
        advanceRun(same: same)
        advanceForce(atRest: atRest, force: force)
    }

    /// The part of ``advance(same:atRest:force:)`` that follows the raw
    /// words: the flat run and the change score (it reads the rest score as
    /// it stood before the scan's ``advanceForce(atRest:force:)``).
    @inlinable @inline(__always)
    internal mutating func advanceRun(same: Bool) {
        stuckRun = same ? stuckRun &+ 1 : 0
        if stuckRun == 1 {
            runNoisy = changeScore >= _ScanState.noisyScore
            runRestNoisy = restScore >= _ScanState.noisyScore
        }
        changeScore = same ? _max(0, changeScore &- 1) : _min(_ScanState.scoreCeiling, changeScore &+ 1)
    }

    /// The part of ``advance(same:atRest:force:)`` that follows the force:
    /// the highest force and the rest score.
    @inlinable @inline(__always)
    internal mutating func advanceForce(atRest: Bool, force: Float) {
        forceHigh = force > forceHigh ? force : forceHigh
        let direction: Int8 = force > previousForce ? 1 : (force < previousForce ? -1 : 0)
        if atRest {
            let turned = direction != 0 && direction == 0 &- previousTurn
            restScore = turned ? _min(_ScanState.scoreCeiling, restScore &+ _ScanState.turnCredit)
                               : _max(0, restScore &- 1)
        }
        if direction != 0 { previousTurn = direction }
        previousForce = force
    }

    // The block path only: not built where it is off (Classifier.blockPathEnabled).
    #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
    /// ``advance(same:atRest:force:)`` for each scan of a block in turn, the
    /// block path's: bit k of `changed` is set where scan k's raw words
    /// changed, `forces[k]` is its force. Where every scan changed
    /// (a sensor showing noise) or none did (a flat reading), the run and
    /// the change score move in closed form, exactly as scan by scan.
    ///
    /// `forces - 1` must be readable (both callers pass their window of the
    /// scans before and the block, from its third reading); its value is not used.
    ///
    /// - Returns: false where a flat run reaches `stuckScans` (> 0) inside
    ///   the block, which the per-scan path judges, having changed nothing
    ///   (so the block path may advance its scores in place).
    @inlinable @inline(__always)
    internal mutating func advance(block forces: UnsafePointer<Float>, changed: UInt32,
                                   baseline: Float, band: Float, stuckScans: Int32) -> Bool {
        let n = Int32(Classifier.blockScans)
        let all: UInt32 = (1 &<< UInt32(Classifier.blockScans)) &- 1
        if changed & all == all {
            // No scan is the same as the one before: the run stays 0 (so no
            // run starts, and none reaches `stuckScans`); the score climbs.
            stuckRun = 0
            changeScore = _min(_ScanState.scoreCeiling, changeScore &+ n)
        } else if changed & all == 0 {
            // Every scan the same: the run grows by one a scan and starts
            // (reading the scores as they stood) only at the first scan.
            let before = stuckRun
            if stuckScans > before && stuckScans <= before &+ n { return false }
            if before == 0 {
                runNoisy = changeScore >= _ScanState.noisyScore
                runRestNoisy = restScore >= _ScanState.noisyScore
            }
            stuckRun = before &+ n
            changeScore = _max(0, changeScore &- n)
        } else {
            // Scan by scan on a copy, kept only where no run reached `stuckScans`.
            var walked = self
            for k in 0..<Classifier.blockScans {
                let force = forces[k]
                walked.advance(same: changed & (1 &<< UInt32(k)) == 0,
                               atRest: ForcePipeline._atRest(force, baseline: baseline, band: band), force: force)
                if stuckScans > 0 && walked.stuckRun == stuckScans { return false }
            }
            self = walked
            return true
        }
        advanceForces(block: forces, baseline: baseline, band: band)
        return true
    }

    /// ``advanceForce(atRest:force:)`` for each scan of a block in turn. The
    /// common quiet block (every scan at rest, every force above or below the
    /// one before: a sensor showing noise) is judged on lane masks and takes
    /// the turns as bits: scan k turns where its direction differs from scan
    /// k-1's, so only the rest score's clamped steps stay scan by scan, on
    /// integers. With no NaN among the forces (each compared), their highest
    /// is the same whatever the order. Any other block goes scan by scan.
    @inlinable @inline(__always)
    internal mutating func advanceForces(block forces: UnsafePointer<Float>, baseline: Float, band: Float) {
        let f = UnsafeRawPointer(forces).loadUnaligned(as: SIMD16<Float>.self)
        var before = UnsafeRawPointer(forces - 1).loadUnaligned(as: SIMD16<Float>.self)
        before[0] = previousForce
        let d = f - SIMD16<Float>(repeating: baseline)
        let rises = f .> before
        let moves = rises .| (f .< before)
        let near = (d .< SIMD16<Float>(repeating: band)) .& (d .> SIMD16<Float>(repeating: -band))
        let all: UInt32 = (1 &<< UInt32(Classifier.blockScans)) &- 1
        guard _allLanes(moves .& near) else {
            if _allLanes(moves .& .!near) {
                // A pressed block whose every force moved (so none is NaN):
                // no scan is at rest, so the rest score stays; the last
                // direction is the last scan's.
                previousTurn = f[Classifier.blockScans &- 1] > before[Classifier.blockScans &- 1] ? 1 : -1
                let top = _maxLane(f)
                forceHigh = top > forceHigh ? top : forceHigh
                previousForce = f[Classifier.blockScans &- 1]
                return
            }
            for k in 0..<Classifier.blockScans {
                let force = forces[k]
                advanceForce(atRest: ForcePipeline._atRest(force, baseline: baseline, band: band), force: force)
            }
            return
        }
        let up = _laneBits(rises)
        // Every direction is +1 or -1: scan k turned where it differs from
        // the direction before it (scan 0: the last nonzero one, none at first).
        var turned = (up ^ ((up &<< 1) | (previousTurn > 0 ? 1 : 0))) & all
        if previousTurn == 0 { turned &= ~1 }
        restScore = _ScanState._restScore(restScore, turned: turned)
        previousTurn = up & (1 &<< UInt32(Classifier.blockScans &- 1)) != 0 ? 1 : -1
        let top = _maxLane(f)
        forceHigh = top > forceHigh ? top : forceHigh
        previousForce = f[Classifier.blockScans &- 1]
    }

    /// The rest score after a block's clamped steps, every scan at rest:
    /// from `score` (0...``scoreCeiling``), +``turnCredit`` (at most to the
    /// ceiling) where bit k of `turned` is set, -1 (at least to 0) where it
    /// is not; the same value as the 16 steps scan by scan, in closed form.
    ///
    /// With S_j the unclamped sum of the first j steps, a walk clamped only
    /// at the ceiling C ends at `S16 + min(score, C - max S_j)` (j = 1...16),
    /// one clamped only at 0 at `S16 + max(score, -min S_j)`. In 16 steps
    /// the score falls by 16 at most and climbs by 32 at most, so from 16 or
    /// more it never reaches 0 (the floor never clamps: each step takes at
    /// most 1, down to 1 at worst before the last) and from below 16 it
    /// never passes 62 (the ceiling never clamps: 15 + 2 × 15 before the
    /// last step), so one of the two forms is exact. The prefix sums are
    /// taken as 16 byte lanes of two words (each step's bit spread to its
    /// byte, 3 where it turned, then one multiply each: byte k sums bytes
    /// 0...k, at most 48, no carry), and their extremes as lane reductions.
    @inlinable @inline(__always)
    internal static func _restScore(_ score: Int32, turned: UInt32) -> Int32 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // Bit k of an 8-bit half to byte k, 3 where set: the bit in place in
        // its byte, then any set bit carried into the byte's top one.
        @inline(__always) func spread(_ b: UInt64) -> UInt64 {
            let marked = (b &* ones) & 0x8040_2010_0804_0201
            return (((marked &+ 0x7f7f_7f7f_7f7f_7f7f) &>> 7) & ones) &* 3
        }
        // Byte k: 3 × the turns of scans 0...k, plus 15 - k, i.e. S_(k+1) + 16 (0...63).
        let low = spread(UInt64(turned & 0xff)) &* ones
        let high = spread(UInt64((turned &>> 8) & 0xff)) &* ones &+ (low &>> 56) &* ones
        let sum = Int32(truncatingIfNeeded: high &>> 56) &- 16
        let lanes = unsafeBitCast(SIMD2<UInt64>(low &+ 0x0809_0a0b_0c0d_0e0f, high &+ 0x0001_0203_0405_0607),
                                  to: SIMD16<UInt8>.self)
        if score >= 16 {
            let top = _maxByte(lanes)
            return sum &+ _min(score, _ScanState.scoreCeiling &- (Int32(top) &- 16))
        }
        let bottom = _minByte(lanes)
        return sum &+ _max(score, 16 &- Int32(bottom))
    }
    #endif
}


/// What one scan reads, on either path.
@usableFromInline
internal struct _Reading: BitwiseCopyable {
    @usableFromInline internal var total: Float = 0
    @usableFromInline internal var momentX: Float = 0
    @usableFromInline internal var momentY: Float = 0
    @usableFromInline internal var timestamp: Int64 = 0
    @usableFromInline internal var same = false
    @usableFromInline internal var railed = false

    @inlinable internal init() {}
}

/// The nominal scan period and the gap thresholds derived from it, worked out once.
@usableFromInline
internal struct _Timing: BitwiseCopyable, Sendable {
    @usableFromInline internal var periodNs: Int64
    @usableFromInline internal var halfPeriodNs: Int64
    /// A gap longer than this (1.5 periods) lost scans.
    @usableFromInline internal var gapNs: Int64

    @inlinable
    internal init(periodNs: Int64) {
        self.periodNs = periodNs
        halfPeriodNs = periodNs / 2
        gapNs = periodNs &+ periodNs / 2
    }
}

/// Everything that turns a scan's bytes into per-cell newtons, fixed when
/// the pipeline is built, with the one scan step both paths run.
@usableFromInline
internal struct _PanelDecoder: Sendable {
    /// Force channels.
    @usableFromInline internal let channels: Int
    @usableFromInline internal var decoders: InlineArray<8, _ChannelDecoder>
    /// Every curve channel's points, back to back in one pool of
    /// ``PanelCalibration/maximumCurvePoints`` (768 bytes, not room for 32
    /// points on each of 8 channels), the calibration's own: the hot loop reads scalars in place.
    @usableFromInline internal var curveRaw: InlineArray<64, Int64>
    @usableFromInline internal var curveNewtons: InlineArray<64, Float>
    @usableFromInline internal let stamp: _TimestampDecoder
    @usableFromInline internal let hasPositions: Bool
    @usableFromInline internal var cellX = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var cellY = InlineArray<8, Float>(repeating: 0)
    // The block path only: not built where it is off (Classifier.blockPathEnabled).
    #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
    /// Where four line channels of one direct 32-bit format (`be:s24/32>>8`
    /// or `le:s32`), all in 32-bit lanes (``_ChannelDecoder/lanes32``), lie
    /// side by side in a scan: the offset of their 16 bytes, which the block
    /// path reads with one load a scan (``_readQuad(_:stride:last:newtons:)``); -1 otherwise.
    @usableFromInline internal var quadOffset = -1
    /// The four channels' rail tests and lines where ``quadOffset`` is set,
    /// channel i's in lane i, so that a scan's row is tested and converted
    /// where it is loaded: `railBase`, `railSpan - 1` (a lane is off the
    /// rails where `raw &- railBase > railTop`, which is `>= railSpan`: the
    /// span is never `Int32.min` there), `zero32` and `scale`.
    @usableFromInline internal var quadRailBase = SIMD4<Int32>()
    @usableFromInline internal var quadRailTop = SIMD4<Int32>()
    @usableFromInline internal var quadZero = SIMD4<Int32>()
    @usableFromInline internal var quadScale = SIMD4<Float>()
    /// Scan k's offset in a block, `k * scanSize`, made once here, so that
    /// the one-channel read does not rebuild the multiples of the stride
    /// every block.
    @usableFromInline internal var scanOffsets = InlineArray<16, Int>(repeating: 0)
    #endif

    internal init(layout: ScanLayout, calibration: PanelCalibration, timestampSlot: Int?, positions: CellPositions?) {
        channels = calibration.count
        stamp = _TimestampDecoder(layout: layout, slot: timestampSlot)
        // A pattern, not `!= nil`: that compared through `CellPositions.==`
        // (224 bytes of the riscv32 image, there for this test alone).
        if case .some = positions { hasPositions = true } else { hasPositions = false }
        let first = layout[calibration.count > 0 ? calibration.slot(0) : 0]
        decoders = InlineArray(repeating: _ChannelDecoder(format: first.format, offset: first.offset))
        // The calibration's pool as it is: each curve channel's points stay where it put them.
        curveRaw = calibration._raw
        curveNewtons = calibration._newtons
        for i in 0..<calibration.count {
            let channel = layout[calibration.slot(i)]
            decoders[i] = _ChannelDecoder(format: channel.format, offset: channel.offset)
            let first = Int32(calibration._curveFirst[i])
            if first < 0 {
                decoders[i].setLine(zero: calibration._zero[i], scale: calibration._scale[i])
            } else {
                decoders[i].curveFirst = first
                decoders[i].curveLast = first &+ Int32(calibration._curveCount[i]) &- 1
            }
        }
        #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
        for k in 0..<Classifier.blockScans { scanOffsets[k] = k &* layout.scanSize }
        #endif
        // A little-endian host only: the 16 bytes are read as four native words.
        #if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32))) && _endian(little)
        if channels == 4 && (decoders[0].load == .s24be8 || decoders[0].load == .s32le) {
            var side = true
            for i in 0..<4 {
                side = side && decoders[i].lanes32 && decoders[i].load == decoders[0].load
                    && decoders[i].offset == decoders[0].offset &+ 4 &* i
                    && decoders[i].railSpan != Int32.min
            }
            if side {
                quadOffset = decoders[0].offset
                for i in 0..<4 {
                    quadRailBase[i] = decoders[i].railBase
                    quadRailTop[i] = decoders[i].railSpan &- 1
                    quadZero[i] = decoders[i].zero32
                    quadScale[i] = decoders[i].scale
                }
            }
        }
        #endif
        if let positions {
            for i in 0..<positions.count {
                cellX[i] = positions[i].x
                cellY[i] = positions[i].y
            }
        }
    }

    /// Force channel `i`'s newtons for a raw value.
    @inlinable @inline(__always)
    internal mutating func newtons(_ i: Int, _ raw: Int64) -> Float {
        guard decoders[i].curveFirst >= 0 else { return decoders[i].line(raw) }
        return _curve(i, raw)
    }

    /// A curve channel's newtons: the points read in place, out of line so
    /// the scan step's frame stays small.
    @usableFromInline @inline(never)
    internal mutating func _curve(_ i: Int, _ raw: Int64) -> Float {
        _interpolate(raw, first: Int(decoders[i].curveFirst), last: Int(decoders[i].curveLast), raw: curveRaw.span, newtons: curveNewtons.span)
    }

    /// The panel's force for one scan (the sum of its channels' newtons).
    @inlinable
    internal mutating func force(_ scan: UnsafeRawPointer) -> Float {
        var total: Float = 0
        for i in 0..<channels { total += newtons(i, decoders[i].raw(scan)) }
        return total
    }

    /// The moments Σ newtons·x and Σ newtons·y of one scan, summed in the
    /// order ``read(_:sample:last:counters:timing:moments:zeroSums:)`` sums them (so bit for bit the same).
    @inlinable
    internal mutating func moments(_ scan: UnsafeRawPointer) -> (Float, Float) {
        var momentX: Float = 0
        var momentY: Float = 0
        for i in 0..<channels {
            let newtons = newtons(i, decoders[i].raw(scan))
            momentX += newtons * cellX[i]
            momentY += newtons * cellY[i]
        }
        return (momentX, momentY)
    }

    /// The one scan step both paths run: the timestamp and its gap, each
    /// channel's raw word (changed? on a rail?) and newtons, the total, and
    /// with `moments` the centre-of-pressure moments and the zero block's sums.
    ///
    /// It reads every channel even past a rail: the per-scan path needs the
    /// total anyway, and the block path drops the whole reading on a rail.
    @inlinable @inline(__always)
    internal mutating func read(_ scan: UnsafeRawPointer, sample: Int64, last s: inout _LastScan,
                       counters c: inout PipelineCounters, timing: _Timing, moments: Bool,
                       zeroSums: inout InlineArray<8, Float>) -> _Reading {
        var r = _Reading()
        c.scans &+= 1
        let ts = stamp.stamp(scan, sample: sample, periodNs: timing.periodNs)
        if stamp.present && sample > 0 {
            let gap = ts &- s.lastTimestamp
            if gap > timing.gapNs { c._countGap(gap, periodNs: timing.periodNs, halfPeriodNs: timing.halfPeriodNs) }
        }
        s.lastTimestamp = ts
        r.timestamp = ts
        var same = sample > 0
        var railed = false
        let zeroScan = moments && _CellZeros.samples(sample)
        for i in 0..<channels {
            let raw = decoders[i].raw(scan)
            same = same && raw == s.lastRaw[i]
            s.lastRaw[i] = raw
            railed = railed || decoders[i].railed(raw)
            let n = newtons(i, raw)
            r.total += n
            if moments {
                if zeroScan { zeroSums[i] += n }
                r.momentX += n * cellX[i]
                r.momentY += n * cellY[i]
            }
        }
        r.same = same
        r.railed = railed
        return r
    }
}

/// Branch-free integer minimum and maximum (a select, not a call).
@inlinable @inline(__always)
internal func _min(_ a: Int32, _ b: Int32) -> Int32 { a < b ? a : b }
@inlinable @inline(__always)
internal func _max(_ a: Int32, _ b: Int32) -> Int32 { a < b ? b : a }
