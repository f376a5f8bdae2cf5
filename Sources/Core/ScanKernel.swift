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
    @usableFromInline internal let periodNs: Int64
    @usableFromInline internal let halfPeriodNs: Int64
    /// A gap longer than this (1.5 periods) lost scans.
    @usableFromInline internal let gapNs: Int64

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
    /// What the block path alone reads of the layout, worked out here once
    /// (empty where the block path is off: ``Classifier/blockPathEnabled``).
    @usableFromInline internal let _blockTables: _BlockReadTables
    /// Scan k's offset in a block for the block read (none where the block path is off).
    @usableFromInline internal var scanOffsets: _ScanOffsets

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
        _blockTables = _BlockReadTables(channels: channels, decoders: decoders)
        scanOffsets = _BlockReadTables.scanOffsets(scanSize: layout.scanSize)
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
