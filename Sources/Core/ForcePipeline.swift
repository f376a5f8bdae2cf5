/// Counters a pipeline keeps; every loss is counted, none is silent.
public struct PipelineCounters: Equatable, BitwiseCopyable, Sendable {
    /// Scans processed.
    public var scans: Int64 = 0
    /// Scans the timestamps say were missed (gaps longer than 1.5 periods).
    public var droppedScans: Int64 = 0
    /// Gaps seen in the timestamps.
    public var timestampGaps: Int64 = 0
    /// Scans with a force channel on a rail.
    public var saturatedScans: Int64 = 0

    /// Zero counters.
    public init() {}
}

/// Decode, calibrate, check health and classify: a scan's bytes in, events out.
///
/// Built once from a layout, a calibration and settings; afterwards
/// ``process(scan:into:)`` runs with fixed memory and no allocation.
public struct ForcePipeline: Sendable {
    /// Where each channel sits in a scan.
    public let layout: ScanLayout
    /// How force channels become newtons.
    public let calibration: PanelCalibration
    /// The classifier.
    public var classifier: Classifier { _classifier }
    @usableFromInline internal var _classifier: Classifier
    /// Counters.
    public var counters: PipelineCounters { _counters }
    @usableFromInline internal var _counters: PipelineCounters = PipelineCounters()
    /// The index the next scan will get.
    public var nextSample: Int64 { _nextSample }
    @usableFromInline internal var _nextSample: Int64 = 0

    @usableFromInline internal let _timestampSlot: Int
    @usableFromInline internal var _lastTimestamp: Int64 = 0
    @usableFromInline internal var _lastRaw = InlineArray<8, Int64>(repeating: 0)
    @usableFromInline internal var _stuckRun: Int32 = 0
    /// The highest force seen, newtons: a flat run near it while pressed is a
    /// press held against a stop (clipping), plausible. Judged on the
    /// calibrated force, so a cell wired with negative gain is treated the same.
    @usableFromInline internal var _forceHigh: Float = 0
    /// How often the raw words change, 0...64: +1 for a scan that changed, -1
    /// for one that did not. A sensor that normally shows noise sits high.
    @usableFromInline internal var _changeScore: Int32 = 0
    /// Noise at rest, 0...64: on scans within the touch band of the baseline,
    /// +2 where the force turns (its change reverses sign), -1 otherwise. Noise
    /// turns two scans in three and climbs; the monotone fall of a light touch
    /// ending, or an exact zero, does not.
    @usableFromInline internal var _restScore: Int32 = 0
    @usableFromInline internal var _previousForce: Float = 0
    @usableFromInline internal var _previousTurn: Int8 = 0
    /// Whether the sensor was showing noise (anywhere, and at rest) when the current flat run began.
    @usableFromInline internal var _runNoisy = false
    @usableFromInline internal var _runRestNoisy = false
    /// A press held flat against a stop below the converter's rails, reported as `saturated`.
    @usableFromInline internal var _clipped = false
    @usableFromInline internal var _saturatedRun: Int32 = 0
    @usableFromInline internal var _stuck = false
    @usableFromInline internal var _saturated = false
    @usableFromInline internal var _lost = false
    @usableFromInline internal var _lastForce: Float = 0
    /// Per force channel, unpacked for the hot loop: byte offset, format,
    /// and either a line (zero, scale) or the index of a curve.
    @usableFromInline internal var _offsets = InlineArray<8, Int>(repeating: 0)
    @usableFromInline internal var _formats: InlineArray<8, ChannelFormat>
    @usableFromInline internal var _zeros = InlineArray<8, Int64>(repeating: 0)
    @usableFromInline internal var _scales = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var _isCurve = InlineArray<8, Bool>(repeating: false)
    /// Curve points of channel i at [i * 32 ..< i * 32 + count], flattened so
    /// the hot loop reads scalars instead of copying a whole curve.
    @usableFromInline internal var _curveRaw = InlineArray<256, Int64>(repeating: 0)
    @usableFromInline internal var _curveNewtons = InlineArray<256, Float>(repeating: 0)
    @usableFromInline internal var _curveCount = InlineArray<8, Int>(repeating: 0)
    @usableFromInline internal var _timestampFormat: ChannelFormat
    @usableFromInline internal var _timestampOffset = 0
    /// Where the cells are, if the panel knows (see ``CentreOfPressure``).
    public let positions: CellPositions?
    @usableFromInline internal let _hasPositions: Bool
    @usableFromInline internal var _cellX = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var _cellY = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var _pressure = _PressureWindow()
    @usableFromInline internal var _cellZeros = _CellZeros()
    /// Per-cell sums of the current zero block.
    @usableFromInline internal var _zeroSums = InlineArray<8, Float>(repeating: 0)

    /// Creates a pipeline.
    ///
    /// - Parameters:
    ///   - layout: the scan layout of the enabled channels.
    ///   - calibration: the force channels and their calibration.
    ///   - parameters: classifier parameters resolved at the sample rate.
    ///   - timestampSlot: the layout slot of the timestamp channel, if any.
    ///   - positions: where each force cell sits, in force-channel order
    ///     (``CellPositions/standard(forCells:)`` gives the spec's default);
    ///     `nil`, or a count that differs from the force channels', means no press positions.
    public init(layout: ScanLayout, calibration: PanelCalibration, parameters: ClassifierParameters,
                timestampSlot: Int?, positions: CellPositions? = nil) {
        if let resolved = positions, resolved.count == calibration.count {
            self.positions = resolved
            self._hasPositions = true
            for i in 0..<resolved.count {
                _cellX[i] = resolved[i].x
                _cellY[i] = resolved[i].y
            }
        } else {
            self.positions = nil
            self._hasPositions = false
        }
        self.layout = layout
        self.calibration = calibration
        self._classifier = Classifier(parameters: parameters)
        self._timestampSlot = timestampSlot ?? -1
        self._formats = InlineArray<8, ChannelFormat>(repeating: layout[0].format)
        self._timestampFormat = layout[timestampSlot ?? 0].format
        if let timestampSlot { _timestampOffset = layout[timestampSlot].offset }
        for i in 0..<calibration.count {
            let channel = layout[calibration.slot(i)]
            _offsets[i] = channel.offset
            _formats[i] = channel.format
            switch calibration.calibration(i) {
            case .linear(let zero, let scale):
                _zeros[i] = zero
                _scales[i] = scale
            case .curve(let curve):
                _isCurve[i] = true
                _curveCount[i] = curve.count
                for k in 0..<curve.count {
                    _curveRaw[i * 32 + k] = curve[k].raw
                    _curveNewtons[i * 32 + k] = curve[k].newtons
                }
            }
        }
    }

    // The hot helpers below are `mutating` although they change nothing: a
    // non-mutating method copies a whole InlineArray property to read one
    // element of it (Swift 6.3), a mutating one reads it in place.

    /// Force channel `i`'s raw value in `scan`.
    @inlinable
    internal mutating func _raw(_ i: Int, _ scan: UnsafeRawPointer) -> Int64 {
        _formats[i].decode(scan + _offsets[i])
    }

    /// Force channel `i`'s newtons for a raw value, read in place (no copy of a curve).
    @inlinable
    internal mutating func _newtons(_ i: Int, _ raw: Int64) -> Float {
        _isCurve[i] ? _curveNewtons(i, raw) : Float(raw &- _zeros[i]) * _scales[i]
    }

    /// ``ForceCurve/newtons(forRaw:)`` over the flattened points of channel `i`.
    @inlinable
    internal mutating func _curveNewtons(_ i: Int, _ value: Int64) -> Float {
        let first = i &* 32
        return _interpolate(value, first: first, last: first &+ _curveCount[i] &- 1,
                            raw: { _curveRaw[$0] }, newtons: { _curveNewtons[$0] })
    }

    /// Replaces the classifier parameters (profile reload), keeping state.
    public mutating func reconfigure(_ parameters: ClassifierParameters) {
        _classifier.reconfigure(parameters)
    }

    /// The panel's force in newtons for one scan (sum of calibrated force channels).
    @inlinable
    public func force(scan: UnsafeRawPointer) -> Float {
        // A copy to read from in place (see `_raw`); this is not the hot path.
        var me = self
        var total: Float = 0
        for i in 0..<calibration.count {
            total += me._newtons(i, me._raw(i, scan))
        }
        return total
    }

    /// The timestamp of one scan, or one synthesised from the sample rate.
    @inlinable
    public func timestamp(scan: UnsafeRawPointer, sample: Int64) -> Int64 {
        if _timestampSlot >= 0 {
            let channel = layout._channels[_timestampSlot]
            return channel.format.decode(scan + channel.offset)
        }
        return sample &* _classifier._parameters.periodNs
    }

    /// ``timestamp(scan:sample:)`` for the hot loop (see `_raw`).
    @inlinable
    internal mutating func _timestamp(_ scan: UnsafeRawPointer, sample: Int64) -> Int64 {
        if _timestampSlot >= 0 {
            return _timestampFormat.decode(scan + _timestampOffset)
        }
        return sample &* _classifier._parameters.periodNs
    }

    /// Processes one scan of `layout.scanSize` bytes.
    /// - Complexity: O(force channels), no allocation.
    @inlinable
    public mutating func process(scan: UnsafeRawPointer, into events: inout EventRing) {
        let sample = _nextSample
        _nextSample &+= 1
        _counters.scans &+= 1

        let ts = _timestamp(scan, sample: sample)
        if _timestampSlot >= 0 && sample > 0 {
            let gap = ts &- _lastTimestamp
            if gap > _classifier._parameters.periodNs &+ _classifier._parameters.periodNs / 2 {
                _counters.timestampGaps &+= 1
                _counters.droppedScans &+= (gap &+ _classifier._parameters.periodNs / 2) / _classifier._parameters.periodNs &- 1
            }
        }
        _lastTimestamp = ts

        var total: Float = 0
        var momentX: Float = 0
        var momentY: Float = 0
        let zeroScan = _CellZeros.samples(sample)
        var same = sample > 0
        var railed = false
        for i in 0..<calibration.count {
            let raw = _raw(i, scan)
            if raw != _lastRaw[i] { same = false }
            _lastRaw[i] = raw
            if raw <= _formats[i].minimumRaw || raw >= _formats[i].maximumRaw { railed = true }
            let newtons = _newtons(i, raw)
            total += newtons
            if _hasPositions {
                if zeroScan { _zeroSums[i] += newtons }
                momentX += newtons * _cellX[i]
                momentY += newtons * _cellY[i]
            }
        }
        _lastForce = total
        let before = events.count
        if _hasPositions {
            _pressure.record(sample: sample, force: total, x: momentX, y: momentY)
            if sample & Int64(CentreOfPressure.zeroBlockScans - 1) == Int64(CentreOfPressure.zeroBlockScans - 1) {
                _closeZeroBlock(_zeroSums, baseline: _classifier._baseline)
                _zeroSums = InlineArray<8, Float>(repeating: 0)
            }
        }
        _checkHealth(same: same, railed: railed, sample: sample, timestampNs: ts, into: &events)
        _classifier.step(force: total, sample: sample, timestampNs: ts, into: &events)
        if _hasPositions && events.count != before { _stampPositions(&events, from: before) }
    }

    /// Gives the gesture events from offset `first` on the current centre of pressure.
    @inlinable
    internal mutating func _stampPositions(_ events: inout EventRing, from first: Int) {
        events._stampPositions(from: first, _pressure.position(gate: _classifier._parameters.peek * CentreOfPressure.gateFraction,
                                                               zeros: _cellZeros))
    }

    /// One scan of a block that positions need (the window's last scans and
    /// the zero block's sampled ones): the plain loop's checks and sum, plus
    /// the zero sums and the moments, in the per-scan path's order. Returns
    /// the scan's total, or nil when a channel is on a rail.
    @usableFromInline @inline(never)
    internal mutating func _positionScan(_ scan: UnsafeRawPointer, k: Int, sample: Int64, lastRaw: inout InlineArray<8, Int64>,
                                         same: inout Bool, held: inout _BlockPositions) -> Float? {
        let zeroScan = _CellZeros.samples(sample)
        var total: Float = 0
        var momentX: Float = 0
        var momentY: Float = 0
        for i in 0..<calibration.count {
            let raw = _raw(i, scan)
            if raw != lastRaw[i] { same = false }
            lastRaw[i] = raw
            if raw <= _formats[i].minimumRaw || raw >= _formats[i].maximumRaw { return nil }
            let newtons = _newtons(i, raw)
            total += newtons
            if zeroScan { held.zeroSums[i] += newtons }
            momentX += newtons * _cellX[i]
            momentY += newtons * _cellY[i]
        }
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
        if k >= tail {
            held.momentsX[k &- tail] = momentX
            held.momentsY[k &- tail] = momentY
        }
        if sample & Int64(CentreOfPressure.zeroBlockScans - 1) == Int64(CentreOfPressure.zeroBlockScans - 1) {
            held.closedSums = held.zeroSums
            held.closedAt = k
            held.zeroSums = InlineArray<8, Float>(repeating: 0)
        }
        return total
    }

    /// The moments Σ newtons·x and Σ newtons·y of one scan, summed in the
    /// order ``process(scan:into:)`` sums them (so bit for bit the same).
    @inlinable
    internal mutating func _moments(_ scan: UnsafeRawPointer) -> (Float, Float) {
        var momentX: Float = 0
        var momentY: Float = 0
        for i in 0..<calibration.count {
            let newtons = _newtons(i, _raw(i, scan))
            momentX += newtons * _cellX[i]
            momentY += newtons * _cellY[i]
        }
        return (momentX, momentY)
    }

    /// Ends a zero block with per-cell sums `sums` (see ``CentreOfPressure/zeroBlockScans``).
    @inlinable
    /// `baseline` is the classifier's baseline as the per-scan path sees it
    /// at that scan (it moves only at the ends of the classifier's blocks).
    internal mutating func _closeZeroBlock(_ sums: InlineArray<8, Float>, baseline: Float) {
        _cellZeros.close(sums: sums, cells: calibration.count, x: _cellX, y: _cellY, reference: baseline,
                         idleBand: _classifier._parameters.peek * CentreOfPressure.gateFraction * 0.5)
    }

    /// The centre of pressure over the last scans (see ``CentreOfPressure``):
    /// nil on a panel without cell positions, and before any press reached
    /// the gate; below the gate, the last position decided.
    public var centreOfPressure: PlatePoint? {
        guard _hasPositions else { return nil }
        var window = _pressure
        return window.position(gate: _classifier._parameters.peek * CentreOfPressure.gateFraction, zeros: _cellZeros)
    }

    /// Force cell `i`'s calibrated newtons at the last scan after its tracked
    /// unloaded zero; kept on a panel with cell positions, 0 otherwise.
    public func cellNewtons(_ i: Int) -> Float {
        precondition(i >= 0 && i < calibration.count, "cell index out of range")
        guard _hasPositions else { return 0 }
        // From the last scan's raw value, kept by both paths (not the hot path).
        var me = self
        return me._newtons(i, _lastRaw[i]) - _cellZeros.zero[i]
    }

    @inlinable
    internal mutating func _checkHealth(same: Bool, railed: Bool, sample: Int64, timestampNs: Int64,
                                        into events: inout EventRing) {
        if railed {
            _counters.saturatedScans &+= 1
            _saturatedRun &+= 1
            if _saturatedRun == _classifier._parameters.saturationScans && !_saturated {
                _saturated = true
                events.pushLast(ForceEvent(kind: .saturated, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
            }
        } else {
            _saturatedRun = 0
        }
        let atRest = _atRest(_lastForce)
        _stuckRun = same ? _stuckRun &+ 1 : 0
        _updateScores(same: same, atRest: atRest, force: _lastForce)
        // A flat reading is `stuck` only where it cannot plausibly be. At rest
        // it is stuck only on a sensor that shows noise at rest (an unloaded
        // FSR or a 3D Touch panel reads exactly 0 for seconds: at rest, fine).
        // Flat near the highest force seen while pressed is a press held
        // against a converter's limit or a mechanical stop: `saturated`, and
        // the press goes on (no forced release); a rail is `saturated` above.
        // Flat anywhere else on a sensor that showed noise is stuck.
        if _classifier._parameters.stuckScans > 0 && _stuckRun == _classifier._parameters.stuckScans && !_stuck && !railed {
            let p = _classifier._parameters
            if atRest {
                if _runRestNoisy { _reportStuck(sample: sample, timestampNs: timestampNs, into: &events) }
            } else if _classifier._state != .idle && _lastForce >= _forceHigh - max(p.touchBand, _forceHigh * 0.05) {
                if !_clipped && !_saturated {
                    _clipped = true
                    events.pushLast(ForceEvent(kind: .saturated, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
                }
            } else if _runNoisy {
                _reportStuck(sample: sample, timestampNs: timestampNs, into: &events)
            }
        }
        let stuckCleared = _stuck && !same
        let saturationCleared = _saturated && !railed
        let clipCleared = _clipped && !same
        if stuckCleared || saturationCleared || clipCleared || _lost {
            if stuckCleared { _stuck = false }
            if saturationCleared { _saturated = false }
            if clipCleared { _clipped = false }
            _lost = false
            if !_stuck && !_saturated && !_clipped {
                events.pushLast(ForceEvent(kind: .recovered, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
            }
            if !_stuck && _classifier._suspended { _classifier.sensorRecovered() }
        }
    }

    /// Whether `force` is within the touch band of the baseline (the panel at rest).
    @inlinable
    internal func _atRest(_ force: Float) -> Bool {
        let d = force - _classifier._baseline
        return d < _classifier._parameters.touchBand && d > -_classifier._parameters.touchBand
    }

    /// The health scores' update for one scan (after `_stuckRun`), shared by both paths.
    @inlinable
    internal mutating func _updateScores(same: Bool, atRest: Bool, force: Float) {
        if force > _forceHigh { _forceHigh = force }
        if _stuckRun == 1 {
            _runNoisy = _changeScore >= 32
            _runRestNoisy = _restScore >= 32
        }
        _changeScore = same ? max(0, _changeScore &- 1) : min(64, _changeScore &+ 1)
        let direction: Int8 = force > _previousForce ? 1 : (force < _previousForce ? -1 : 0)
        if atRest {
            let turned = direction != 0 && direction == -_previousTurn
            _restScore = turned ? min(64, _restScore &+ 2) : max(0, _restScore &- 1)
        }
        if direction != 0 { _previousTurn = direction }
        _previousForce = force
    }

    @inlinable
    internal mutating func _reportStuck(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        _stuck = true
        events.pushLast(ForceEvent(kind: .stuck, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
        _classifier.sensorFault(sample: sample, timestampNs: timestampNs, into: &events)
    }

    /// Events one scan can raise at most (saturated, stuck or recovered,
    /// release, peek, pop), and so the free room the batch path keeps in the ring.
    public static let maximumEventsPerScan = 4

    /// Processes the whole scans in `bytes`; returns how many bytes were consumed.
    ///
    /// A trailing partial scan is left for the caller, and so are the scans
    /// after the point where the event ring could fill up: drain `events` and
    /// call again with the rest (a loop until `bytes` is consumed), and no
    /// event is ever lost.
    ///
    /// Whole blocks of ``Classifier/blockScans`` scans go through the fast path
    /// where they can; the events and counters are exactly those of calling
    /// ``process(scan:into:)`` for each scan.
    @inlinable
    public mutating func process(scans bytes: UnsafeRawBufferPointer, into events: inout EventRing) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let size = layout.scanSize
        let block = Classifier.blockScans * size
        let perScan = ForcePipeline.maximumEventsPerScan
        var offset = 0
        while offset + size <= bytes.count {
            if bytes.count - offset >= block && _classifier._blockFill == 0 && _classifier._history >= 2 {
                // A block may raise up to blockScans × 4 events: it waits for a drained ring.
                if !events.isEmpty { break }
                if _processBlock(base + offset, into: &events) {
                    offset += block
                    continue
                }
            }
            guard 64 - events.count >= perScan else { break }
            process(scan: base + offset, into: &events)
            offset += size
        }
        return offset
    }

    /// Decodes a block of ``Classifier/blockScans`` scans and checks their
    /// health; when nothing in it can raise a health event, commits the
    /// block's counters and hands its forces to the classifier at once.
    /// Returns false, having changed nothing, otherwise.
    @inlinable
    internal mutating func _processBlock(_ scans: UnsafeRawPointer, into events: inout EventRing) -> Bool {
        guard !_stuck && !_saturated && !_clipped && !_lost && !_classifier._suspended else { return false }
        let size = layout.scanSize
        let first = _nextSample
        // Plain arrays filled scalar by scalar (a vector insert per scan stalls),
        // loaded as vectors once.
        var window = InlineArray<18, Float>(repeating: 0)
        window[0] = _classifier._older
        window[1] = _classifier._previous
        var stamps = InlineArray<16, Int64>(repeating: 0)
        let lastRawBefore = _lastRaw
        let scores = (_forceHigh, _changeScore, _restScore, _runNoisy, _runRestNoisy, _stuckRun, _previousForce, _previousTurn)
        var lastRaw = _lastRaw
        var lastTimestamp = _lastTimestamp
        // Moments only of the last scans, the ones the position window keeps
        // (a block that falls back to per-scan steps recomputes them all).
        let tail = Classifier.blockScans - CentreOfPressure.windowScans
        // The classifier's block starts with this one, so its baseline stays
        // this value until after the block's last step: what every zero
        // block closed in here is judged against, on either path.
        let baselineBefore = _classifier._baseline
        var held: _BlockPositions? = _hasPositions ? _BlockPositions(zeroSums: _zeroSums) : nil
        var gaps: Int64 = 0
        var dropped: Int64 = 0
        for k in 0..<Classifier.blockScans {
            let scan = scans + k * size
            let sample = first &+ Int64(k)
            let ts = _timestamp(scan, sample: sample)
            if _timestampSlot >= 0 && sample > 0 {
                let gap = ts &- lastTimestamp
                if gap > _classifier._parameters.periodNs &+ _classifier._parameters.periodNs / 2 {
                    gaps &+= 1
                    dropped &+= (gap &+ _classifier._parameters.periodNs / 2) / _classifier._parameters.periodNs &- 1
                }
            }
            lastTimestamp = ts
            stamps[k] = ts
            var total: Float = 0
            var same = sample > 0
            if _hasPositions && (k >= tail || _CellZeros.samples(sample)) {
                // The few scans positions need, out of line so the plain loop stays as it was.
                guard let t = _positionScan(scan, k: k, sample: sample, lastRaw: &lastRaw, same: &same, held: &held!) else {
                    (_forceHigh, _changeScore, _restScore, _runNoisy, _runRestNoisy, _stuckRun, _previousForce, _previousTurn) = scores
                    _lastRaw = lastRawBefore
                    return false
                }
                total = t
            } else {
                for i in 0..<calibration.count {
                    let raw = _raw(i, scan)
                    if raw != lastRaw[i] { same = false }
                    lastRaw[i] = raw
                    // A scan on a rail raises `saturated`: the per-scan path handles it.
                    if raw <= _formats[i].minimumRaw || raw >= _formats[i].maximumRaw {
                        (_forceHigh, _changeScore, _restScore, _runNoisy, _runRestNoisy, _stuckRun, _previousForce, _previousTurn) = scores
                        _lastRaw = lastRawBefore
                        return false
                    }
                    total += _newtons(i, raw)
                }
            }
            // The health scores advance as on the per-scan path (the baseline
            // moves only at block ends, so `_atRest` reads the same value);
            // they are put back if the block is left to the per-scan path.
            _stuckRun = same ? _stuckRun &+ 1 : 0
            _updateScores(same: same, atRest: _atRest(total), force: total)
            // Where a flat run is judged, the per-scan path decides.
            if _classifier._parameters.stuckScans > 0 && _stuckRun == _classifier._parameters.stuckScans {
                (_forceHigh, _changeScore, _restScore, _runNoisy, _runRestNoisy, _stuckRun, _previousForce, _previousTurn) = scores
                _lastRaw = lastRawBefore
                return false
            }
            window[k + 2] = total
        }
        // Nothing here can raise a health event: commit what the per-scan path would have.
        _nextSample &+= Int64(Classifier.blockScans)
        _counters.scans &+= Int64(Classifier.blockScans)
        _counters.timestampGaps &+= gaps
        _counters.droppedScans &+= dropped
        _lastTimestamp = lastTimestamp
        _lastRaw = lastRaw
        _saturatedRun = 0
        _lastForce = window[Classifier.blockScans + 1]
        if let held { _zeroSums = held.zeroSums }
        let (a, b, c) = withUnsafeBytes(of: &window) { raw in
            (raw.loadUnaligned(as: SIMD16<Float>.self),
             raw.loadUnaligned(fromByteOffset: 4, as: SIMD16<Float>.self),
             raw.loadUnaligned(fromByteOffset: 8, as: SIMD16<Float>.self))
        }
        if _classifier.stepBlock(older: a, previous: b, forces: c, firstSample: first, firstTimestampNs: stamps[0]) {
            if let held {
                for k in tail..<Classifier.blockScans {
                    _pressure.record(sample: first &+ Int64(k), force: c[k], x: held.momentsX[k &- tail], y: held.momentsY[k &- tail])
                }
                if held.closedAt >= 0 { _closeZeroBlock(held.closedSums, baseline: baselineBefore) }
            }
        } else {
            for k in 0..<Classifier.blockScans {
                let before = events.count
                if let held {
                    if k >= tail {
                        _pressure.record(sample: first &+ Int64(k), force: c[k], x: held.momentsX[k &- tail], y: held.momentsY[k &- tail])
                    }
                    if k == held.closedAt { _closeZeroBlock(held.closedSums, baseline: baselineBefore) }
                }
                _classifier.step(force: c[k], sample: first &+ Int64(k), timestampNs: stamps[k], into: &events)
                if _hasPositions && events.count != before {
                    // Events are rare: only now are the moments of this block's
                    // scans in the window computed (from their bytes, as the per-scan path sums them).
                    var j = Swift.max(0, k &- (CentreOfPressure.windowScans &- 1))
                    while j <= k && j < tail {
                        let (x, y) = _moments(scans + j * size)
                        _pressure.record(sample: first &+ Int64(j), force: c[j], x: x, y: y)
                        j &+= 1
                    }
                    _stampPositions(&events, from: before)
                }
            }
        }
        return true
    }

    /// The sensor could not be read: reports `lost`, releases a press in
    /// progress, and suspends classification until scans arrive again.
    public mutating func sensorLost(timestampNs: Int64, into events: inout EventRing) {
        guard !_lost else { return }
        _lost = true
        let before = events.count
        events.pushLast(ForceEvent(kind: .lost, sample: nextSample, timestampNs: timestampNs, forceNewtons: _lastForce))
        _classifier.sensorFault(sample: nextSample, timestampNs: timestampNs, into: &events)
        if _hasPositions && events.count != before { _stampPositions(&events, from: before) }
    }

    /// The timestamp of the last scan processed.
    public var lastTimestampNs: Int64 { _lastTimestamp }

    /// Ends the stream: emits `release` for a press in progress, stamped
    /// with the next scan index and the last scan's timestamp.
    public mutating func finish(into events: inout EventRing) {
        let before = events.count
        _classifier.finish(sample: nextSample, timestampNs: _lastTimestamp, into: &events)
        if _hasPositions && events.count != before { _stampPositions(&events, from: before) }
    }
}
