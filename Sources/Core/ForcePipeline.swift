// Over 300 lines: decode, calibration, positions and the classifier wired per scan and per block, with the health counters they share.
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

    /// Counts a timestamp gap of `gap` ns and the scans it lost. Out of line:
    /// gaps are rare, and the 64-bit division (a runtime call on a 32-bit
    /// target) would otherwise hold registers, and so stack, in every scan step.
    @usableFromInline @inline(never)
    internal mutating func _countGap(_ gap: Int64, periodNs: Int64, halfPeriodNs: Int64) {
        timestampGaps &+= 1
        droppedScans &+= (gap &+ halfPeriodNs) / periodNs &- 1
    }
}

/// Decode, calibrate, check health and classify: a scan's bytes in, events out.
///
/// Built once from a layout, a calibration and settings; afterwards
/// ``process(scan:into:)`` runs with fixed memory and no allocation. One scan
/// step (``_PanelDecoder/read(_:sample:last:counters:timing:moments:zeroSums:)``
/// and ``_ScanState/advance(same:atRest:force:)``) serves both the
/// scan-at-a-time path and the block path (``process(scans:into:)``).
public struct ForcePipeline: Sendable {
    /// Where each channel sits in a scan.
    public let layout: ScanLayout
    /// The number of force channels (cells). The calibration itself is not
    /// kept: the decoder holds it unpacked, and a second copy would grow
    /// every pipeline value by kilobytes (RAM and stack on a microcontroller).
    public var cellCount: Int { _decode.channels }
    /// Where the cells are, if the panel knows (see ``CentreOfPressure``).
    public let positions: CellPositions?
    /// The classifier.
    public var classifier: Classifier { _classifier }
    @usableFromInline internal var _classifier: Classifier
    /// Counters.
    public var counters: PipelineCounters { _counters }
    @usableFromInline internal var _counters: PipelineCounters = PipelineCounters()
    /// The index the next scan will get.
    public var nextSample: Int64 { _nextSample }
    @usableFromInline internal var _nextSample: Int64 = 0

    /// The decode, calibration and cell positions, fixed at configuration time.
    @usableFromInline internal var _decode: _PanelDecoder
    @usableFromInline internal var _timing: _Timing
    /// The last scan's raw words and timestamp.
    @usableFromInline internal var _last = _LastScan()
    /// The health scores each scan advances.
    @usableFromInline internal var _scan = _ScanState()
    /// A press held flat against a stop below the converter's rails, reported as `saturated`.
    @usableFromInline internal var _clipped = false
    @usableFromInline internal var _saturatedRun: Int32 = 0
    @usableFromInline internal var _stuck = false
    @usableFromInline internal var _saturated = false
    @usableFromInline internal var _lost = false
    @usableFromInline internal var _lastForce: Float = 0
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
        let resolved = positions.flatMap { $0.count == calibration.count ? $0 : nil }
        self.positions = resolved
        self.layout = layout
        self._classifier = Classifier(parameters: parameters)
        self._decode = _PanelDecoder(layout: layout, calibration: calibration, timestampSlot: timestampSlot, positions: resolved)
        self._timing = _Timing(periodNs: parameters.periodNs)
    }

    /// Replaces the classifier parameters (profile reload), keeping state.
    public mutating func reconfigure(_ parameters: ClassifierParameters) {
        _classifier.reconfigure(parameters)
        _timing = _Timing(periodNs: parameters.periodNs)
    }

    /// The panel's force in newtons for one scan (sum of calibrated force channels).
    @inlinable
    public func force(scan: UnsafeRawPointer) -> Float {
        // A copy of the decode tables only (not the pipeline): the scan step
        // reads them in place through mutating accessors, which a
        // non-mutating method cannot call. Not the hot path.
        var decode = _decode
        return decode.force(scan)
    }

    /// The timestamp of one scan, or one synthesised from the sample rate.
    @inlinable
    public func timestamp(scan: UnsafeRawPointer, sample: Int64) -> Int64 {
        _decode.stamp.stamp(scan, sample: sample, periodNs: _timing.periodNs)
    }

    /// Processes one scan of `layout.scanSize` bytes.
    /// - Complexity: O(force channels), no allocation.
    @inlinable
    public mutating func process(scan: UnsafeRawPointer, into events: inout EventRing) {
        let sample = _nextSample
        _nextSample &+= 1
        let r = _decode.read(scan, sample: sample, last: &_last, counters: &_counters, timing: _timing,
                             moments: _decode.hasPositions, zeroSums: &_zeroSums)
        _lastForce = r.total
        let before = events.count
        if _decode.hasPositions { _recordPositions(sample: sample, force: r.total, x: r.momentX, y: r.momentY) }
        _checkHealth(same: r.same, railed: r.railed, sample: sample, timestampNs: r.timestamp, into: &events)
        _classifier.step(force: r.total, sample: sample, timestampNs: r.timestamp, into: &events)
        if _decode.hasPositions && events.count != before { _stampPositions(&events, from: before) }
        #if DEBUG
        _checkInvariants()
        #endif
    }

    /// Records one scan's moments in the position window and closes its zero
    /// block at the block's end; out of line, so a panel without positions
    /// carries none of it in the scan step's frame. Scalars, not the
    /// reading: a struct argument would keep the reading in memory (a stack
    /// slot of the scan step) instead of registers.
    @usableFromInline @inline(never)
    internal mutating func _recordPositions(sample: Int64, force: Float, x: Float, y: Float) {
        _pressure.record(sample: sample, force: force, x: x, y: y)
        if _CellZeros.closes(sample) {
            _closeZeroBlock(sums: _zeroSums, baseline: _classifier._baseline)
            _zeroSums = InlineArray<8, Float>(repeating: 0)
        }
    }

    /// Gives the gesture events from offset `first` on the current centre of
    /// pressure; out of line (events are rare, and it reads the cell zeros).
    @usableFromInline @inline(never)
    internal mutating func _stampPositions(_ events: inout EventRing, from first: Int) {
        events._stampPositions(from: first, _pressure.position(gate: _classifier._parameters.peek * CentreOfPressure.gateFraction,
                                                               zeros: _cellZeros))
    }

    /// The centre of pressure over the last scans (see ``CentreOfPressure``):
    /// nil on a panel without cell positions, and before any press reached
    /// the gate; below the gate, the last position decided.
    public var centreOfPressure: PlatePoint? {
        guard _decode.hasPositions else { return nil }
        var window = _pressure
        return window.position(gate: _classifier._parameters.peek * CentreOfPressure.gateFraction, zeros: _cellZeros)
    }

    /// Force cell `i`'s calibrated newtons at the last scan after its tracked
    /// unloaded zero; kept on a panel with cell positions, 0 otherwise.
    public func cellNewtons(_ i: Int) -> Float {
        precondition(i >= 0 && i < _decode.channels, "cell index out of range")
        guard _decode.hasPositions else { return 0 }
        // From the last scan's raw value, kept by both paths.
        var decode = _decode
        return decode.newtons(i, _last.lastRaw[i]) - _cellZeros.zero[i]
    }

    @inlinable
    internal mutating func _checkHealth(same: Bool, railed: Bool, sample: Int64, timestampNs: Int64,
                                        into events: inout EventRing) {
        if railed {
            _onRail(sample: sample, timestampNs: timestampNs, into: &events)
        } else {
            _saturatedRun = 0
        }
        _scan.advance(same: same, atRest: _atRest(_lastForce), force: _lastForce)
        if _classifier._parameters.stuckScans > 0 && _scan.stuckRun == _classifier._parameters.stuckScans && !_stuck && !railed {
            _judgeFlatRun(sample: sample, timestampNs: timestampNs, into: &events)
        }
        if _stuck || _saturated || _clipped || _lost {
            _clearFaults(same: same, railed: railed, sample: sample, timestampNs: timestampNs, into: &events)
        }
    }

    /// A scan with a channel on a rail: counted, and `saturated` once it has lasted.
    @usableFromInline @inline(never)
    internal mutating func _onRail(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        _counters.saturatedScans &+= 1
        _saturatedRun &+= 1
        if _saturatedRun == _classifier._parameters.saturationScans && !_saturated {
            _saturated = true
            events.pushLast(ForceEvent(kind: .saturated, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
        }
    }

    /// A flat run has lasted the stuck time: is it plausible?
    ///
    /// A flat reading is `stuck` only where it cannot plausibly be. At rest
    /// it is stuck only on a sensor that shows noise at rest (an unloaded
    /// FSR or a 3D Touch panel reads exactly 0 for seconds: at rest, fine).
    /// Flat near the highest force seen while pressed is a press held
    /// against a converter's limit or a mechanical stop: `saturated`, and
    /// the press goes on (no forced release); a rail is `saturated` elsewhere.
    /// Flat anywhere else on a sensor that showed noise is stuck. On a sensor
    /// that shows none, flat while pressed (away from rest and the top) is
    /// stuck where the sensor resolves the press finely: one count at most
    /// `stuckStepFraction` of the force (see ``ClassifierSettings/stuckStepFraction``).
    @usableFromInline @inline(never)
    internal mutating func _judgeFlatRun(sample: Int64, timestampNs: Int64, into events: inout EventRing) {
        let p = _classifier._parameters
        let high = _scan.forceHigh
        if _atRest(_lastForce) {
            if _scan.runRestNoisy { _reportStuck(sample: sample, timestampNs: timestampNs, into: &events) }
        } else if _classifier._state != .idle
                    && _lastForce >= high - Swift.max(p.touchBand, high * ForcePipeline.clipMarginOfHighest) {
            if !_clipped && !_saturated {
                _clipped = true
                events.pushLast(ForceEvent(kind: .saturated, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
            }
        } else if _scan.runNoisy {
            _reportStuck(sample: sample, timestampNs: timestampNs, into: &events)
        } else if _classifier._state != .idle && p.stuckStepFraction > 0 {
            // A press is never this still: a finger's force wanders by more than
            // a percent in the stuck time (tremor, creep, the plate relaxing),
            // so on a sensor that resolves a percent of the press, not one
            // count of movement is a frozen reading. Net of the baseline: the
            // press's own force. A channel whose count moves no force (a flat
            // stretch of a curve) says nothing, and leaves the run alone.
            let step = _countStep()
            if step > 0 && step <= p.stuckStepFraction * (_lastForce - _classifier._baseline) {
                _reportStuck(sample: sample, timestampNs: timestampNs, into: &events)
            }
        }
    }

    /// The force one count moves at the last scan's raw words, summed over
    /// the channels: a line's scale, or on a curve the larger of the steps to
    /// raw + 1 and from raw - 1 (its slope differs either side of a point).
    /// Out of line and through the curve's own out-of-line lookup: it runs
    /// once per flat run, and the firmware is not to carry three more copies
    /// of the line's arithmetic for it.
    @inline(never)
    internal mutating func _countStep() -> Float {
        var step: Float = 0
        for i in 0..<_decode.channels {
            guard _decode.decoders[i].curveFirst >= 0 else {
                step += Float._abs(_decode.decoders[i].scale)
                continue
            }
            let raw = _last.lastRaw[i]
            let here = _decode._curve(i, raw)
            step += Float._max(Float._abs(_decode._curve(i, raw &+ 1) - here), Float._abs(here - _decode._curve(i, raw &- 1)))
        }
        return step
    }

    /// Clears the faults this scan ends, reporting `recovered` when none is left.
    @usableFromInline @inline(never)
    internal mutating func _clearFaults(same: Bool, railed: Bool, sample: Int64, timestampNs: Int64,
                                        into events: inout EventRing) {
        let stuckCleared = _stuck && !same
        let saturationCleared = _saturated && !railed
        let clipCleared = _clipped && !same
        guard stuckCleared || saturationCleared || clipCleared || _lost else { return }
        if stuckCleared { _stuck = false }
        if saturationCleared { _saturated = false }
        if clipCleared { _clipped = false }
        _lost = false
        if !_stuck && !_saturated && !_clipped {
            events.pushLast(ForceEvent(kind: .recovered, sample: sample, timestampNs: timestampNs, forceNewtons: _lastForce))
        }
        if !_stuck && _classifier._suspended { _classifier.sensorRecovered() }
    }

    /// Whether `force` is within the touch band of the baseline (the panel at rest).
    @inlinable @inline(__always)
    internal func _atRest(_ force: Float) -> Bool {
        ForcePipeline._atRest(force, baseline: _classifier._baseline, band: _classifier._parameters.touchBand)
    }

    /// ``_atRest(_:)`` with the baseline and the touch band read once (the block path's loop).
    @inlinable @inline(__always)
    internal static func _atRest(_ force: Float, baseline: Float, band: Float) -> Bool {
        let d = force - baseline
        return d < band && d > -band
    }

    @usableFromInline
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
    /// event is ever lost. ``consume(block:events:into:)`` runs that loop itself.
    ///
    /// Whole blocks of ``Classifier/blockScans`` scans go through the fast path
    /// where they can; the events and counters are exactly those of calling
    /// ``process(scan:into:)`` for each scan.
    @inlinable
    public mutating func process(scans bytes: UnsafeRawBufferPointer, into events: inout EventRing) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let size = layout.scanSize
        let block = Classifier.blockScans * size
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
            guard EventRing.capacityCount - events.count >= ForcePipeline.maximumEventsPerScan else { break }
            process(scan: base + offset, into: &events)
            offset += size
        }
        return offset
    }

    /// A block of ``Classifier/blockScans`` scans through the same scan step
    /// as ``process(scan:into:)``, advancing the last scan, the counters and
    /// the health scores in place (the first two put back, the scores left
    /// untouched, where the block goes to the per-scan path); when nothing in
    /// it can raise a health event, the block's forces go to the classifier at once.
    /// Returns false, having changed nothing, otherwise.
    @inlinable @inline(__always)
    internal mutating func _processBlock(_ scans: UnsafeRawPointer, into events: inout EventRing) -> Bool {
        // Where the block path is off (Classifier.blockPathEnabled): never taken.
        guard Classifier.blockPathEnabled else { return false }
        return _takeBlock(scans, into: &events)
    }

    /// Ends a zero block with per-cell sums `sums` (see ``CentreOfPressure/zeroBlockScans``).
    /// `baseline` is the classifier's baseline as the per-scan path sees it
    /// at that scan (it moves only at the ends of the classifier's blocks).
    @usableFromInline @inline(never)
    internal mutating func _closeZeroBlock(sums: InlineArray<8, Float>, baseline: Float) {
        // Hosts only: a four-cell plate's close on four lanes (the microcontrollers keep the general close).
        if Platform.hasFastPath && _decode.channels == 4 {
            _cellZeros.close4(sums: sums, x: _decode.cellX, y: _decode.cellY, reference: baseline,
                              idleBand: _classifier._parameters.peek * CentreOfPressure.gateFraction * CentreOfPressure.idleBandOfGate)
            return
        }
        _cellZeros.close(sums: sums, cells: _decode.channels, x: _decode.cellX, y: _decode.cellY, reference: baseline,
                         idleBand: _classifier._parameters.peek * CentreOfPressure.gateFraction * CentreOfPressure.idleBandOfGate)
    }

    /// The sensor could not be read: reports `lost`, releases a press in
    /// progress, and suspends classification until scans arrive again.
    public mutating func sensorLost(timestampNs: Int64, into events: inout EventRing) {
        guard !_lost else { return }
        _lost = true
        let before = events.count
        events.pushLast(ForceEvent(kind: .lost, sample: nextSample, timestampNs: timestampNs, forceNewtons: _lastForce))
        _classifier.sensorFault(sample: nextSample, timestampNs: timestampNs, into: &events)
        if _decode.hasPositions && events.count != before { _stampPositions(&events, from: before) }
    }

    /// The timestamp of the last scan processed.
    public var lastTimestampNs: Int64 { _last.lastTimestamp }

    /// Ends the stream: emits `release` for a press in progress, stamped
    /// with the next scan index and the last scan's timestamp.
    public mutating func finish(into events: inout EventRing) {
        let before = events.count
        _classifier.finish(sample: nextSample, timestampNs: _last.lastTimestamp, into: &events)
        if _decode.hasPositions && events.count != before { _stampPositions(&events, from: before) }
    }
}
