import ForceStageCore

/// Drives ``PanelGestures`` from a ``ForcePipeline``: the one loop
/// `replay --gestures` and `run` share, so for the same scans they decide
/// the same events.
///
/// Per scan: while the classifier is idle, it takes the levels of the region
/// under the finger (the region's own, else the panel's); the scan is
/// classified; the gesture layer gets the press force, the centre of pressure
/// and the scan's events. After ``step(scan:pipeline:events:)``, ``output``
/// holds the scan's gesture events and ``otherEvents`` the pipeline's health
/// events (`saturated`, `stuck`, `lost`, `recovered`), which the gesture layer
/// does not name.
///
/// ``advance(scans:count:size:pipeline:events:)`` does the same over a run of
/// scans, taking a 16-scan block through the pipeline's fast path wherever the
/// layer needs nothing per scan: no press it follows is in progress, and the
/// block decides nothing (``ForcePipeline/processQuietBlock(_:holdingPosition:replay:events:)``),
/// not even, where the regions' levels differ, a move of the centre of
/// pressure that would change the classifier's levels. While a press it
/// follows is held steadily (the classifier decides nothing in the block), it
/// takes the block through ``ForcePipeline/processPressedBlock(_:into:replay:events:)`` and
/// follows it scan by scan from the block's forces and positions. Where a
/// block is read but cannot be taken whole (the classifier decides something
/// in it, or the layer could put out too much at once), it replays the
/// block's scans one at a time from what the read kept
/// (``ForcePipeline/replayScan(_:into:)``: no scan decoded twice), each as
/// ``step(scan:pipeline:events:)`` takes it; a call returns after the first
/// replayed scan that puts something out, and the next calls go on with the
/// block. An idle block read for a replay while the levels vary by region
/// (its centre of pressure past the gate) is still taken whole where every
/// position it passes has the levels set now and the classifier decides
/// nothing in it (``ForcePipeline/takePendingBlock(_:events:)``): no scan of
/// it could change the levels. Elsewhere it steps one scan at a time. Its events are exactly those
/// of ``step(scan:pipeline:events:)`` on every scan. Fixed-size storage: no allocation.
public struct GestureDriver: Sendable {
    public private(set) var gestures: PanelGestures
    /// The gesture events of the last step (records: regions and actions by index).
    public private(set) var output = GestureRing(filler: GestureRecord(kind: .move, event: ForceEvent(kind: .peek, sample: 0, timestampNs: 0, forceNewtons: 0), region: -1))
    /// The pipeline's events of the last step the gesture layer does not take (health).
    public private(set) var otherEvents = Ring<16, ForceEvent>(filler: ForceEvent(kind: .peek, sample: 0, timestampNs: 0, forceNewtons: 0))
    private var settings: ClassifierSettings
    private let sampleRateHz: Double
    /// The levels the classifier was last given (the panel's at start).
    private var levels: (peek: Float, pop: Float)
    /// The centre of pressure after the last step, when it was read then
    /// (nothing has touched the pipeline since): the next step's level check reuses it.
    private var position: PlatePoint?
    private var positionValid = false
    /// The point levels were last looked up at and what the lookup gave
    /// (``regionLevels(at:)``: the centre of pressure rarely moves while idle, and a
    /// lookup walks the regions in doubles).
    private var cachedPoint: PlatePoint?
    private var cachedLevels: (peek: Float, pop: Float)?
    /// The per-scan view of the last pressed block (kept, so a call needs no 200 bytes of stack for one).
    private var block = PressedBlockScans()
    /// Blocks taken whole through the pipeline's block path while a press was followed
    /// (``ForcePipeline/processPressedBlock(_:into:replay:events:)``); their moves, springs and progress are in ``output``.
    public private(set) var pressedBlocks = 0
    /// The block being replayed scan by scan (``GestureReplay/isPending`` while scans of it are left).
    private var replay = GestureReplay()
    /// Blocks read whole and then replayed scan by scan (``ForcePipeline/replayScan(_:into:)``).
    public private(set) var replayedBlocks = 0
    /// Blocks read for a replay while idle (the centre of pressure past the gate or moving),
    /// then taken whole (every position of the levels set, nothing decided).
    public private(set) var movedBlocks = 0
    /// Whether scans of a replayed block are left (the next ``advance(scans:count:size:pipeline:events:)`` goes on with them).
    public var replayPending: Bool { replay.isPending }

    /// Events a step puts out at most: each of the pipeline's events of one
    /// scan with its follow-up (actions, open, dismiss), plus a move, a spring and a progress.
    public static let maximumOutputPerStep = 2 * ForcePipeline.maximumEventsPerScan + 3

    /// - Parameters:
    ///   - regions: the profile's regions (none: every press, named by no region).
    ///   - settings: the panel's levels and tuning (the pipeline's).
    ///   - progressHz: `progress` events per second at most; nil: none computed.
    public init(regions: [Region], settings: ClassifierSettings, sampleRateHz: Double, moveHz: Double = 30,
                progressHz: Double? = nil) {
        gestures = PanelGestures(regions: regions, panelPeek: settings.peekNewtons, panelPop: settings.popNewtons,
                                 releaseFraction: settings.releaseFraction, sampleRateHz: sampleRateHz,
                                 moveHz: moveHz, progressHz: progressHz)
        self.settings = settings
        self.sampleRateHz = sampleRateHz
        levels = (settings.peekNewtons, settings.popNewtons)
    }

    /// `progress` at most `hz` per second from now on; nil: none computed.
    public mutating func setProgress(hz: Double?) {
        gestures.progressInterval = PanelGestures.interval(hz: hz, sampleRateHz: sampleRateHz)
    }

    /// New settings (a profile reload that kept the calibration): the panel's
    /// levels for presses outside every region; the press in progress goes on.
    /// The caller has given the pipeline the new parameters.
    public mutating func apply(settings next: ClassifierSettings) {
        precondition(!replay.isPending, "GestureDriver: settings applied in the middle of a replayed block")
        settings = next
        levels = (next.peekNewtons, next.popNewtons)
        gestures.setPanelLevels(peek: next.peekNewtons, pop: next.popNewtons, releaseFraction: next.releaseFraction)
        positionValid = false
        cachedLevels = nil
    }

    /// While idle, the classifier takes the levels of the region under the finger.
    @inline(__always)
    private mutating func chooseLevels(_ pipeline: inout ForcePipeline) {
        guard !gestures.regions.isEmpty && pipeline.pressState == .idle else { return }
        // Read once before the scan: a reconfiguration moves the gate, and
        // the check is of the position before it (a second check is a no-op).
        if !positionValid {
            position = pipeline.centreOfPressure
            positionValid = true
        }
        let want = regionLevels(at: position)
        if want != levels { reconfigure(want, &pipeline) }
    }

    /// ``PanelGestures/levels(at:)``, looked up again only at a new point.
    @inline(__always)
    private mutating func regionLevels(at p: PlatePoint?) -> (peek: Float, pop: Float) {
        if let cached = cachedLevels, p == cachedPoint { return cached }
        let found = gestures.levels(at: p)
        cachedPoint = p
        cachedLevels = found
        return found
    }

    @inline(never)
    private mutating func reconfigure(_ want: (peek: Float, pop: Float), _ pipeline: inout ForcePipeline) {
        var next = settings
        next.peekNewtons = want.peek
        next.popNewtons = want.pop
        if let parameters = try? ClassifierParameters(next, sampleRateHz: Float(sampleRateHz)) {
            pipeline.reconfigure(parameters)
            levels = want
        }
    }

    /// Classifies one scan through `pipeline` (its events staged in `events`,
    /// which is drained) and runs the gesture layer on it.
    /// - Complexity: O(force channels + regions); no allocation.
    public mutating func step(scan: UnsafeRawPointer, pipeline: inout ForcePipeline, events: inout EventRing) {
        precondition(!replay.isPending, "GestureDriver: a scan stepped in the middle of a replayed block")
        chooseLevels(&pipeline)
        let sample = pipeline.nextSample
        pipeline.process(scan: scan, into: &events)
        afterScan(sample: sample, replayed: false, pipeline: &pipeline, events: &events)
    }

    /// The layer's part of a step, once the pipeline has classified scan `sample`.
    /// `replayed`: the scan was replayed (its centre of pressure is the replay's).
    @inline(__always)
    private mutating func afterScan(sample: Int64, replayed: Bool, pipeline: inout ForcePipeline, events: inout EventRing) {
        // The centre of pressure, read once: for the layer, and for the next step's level check.
        let needed = !events.isEmpty || gestures.needsScans
            || (!gestures.regions.isEmpty && pipeline.pressState == .idle)
        let p: PlatePoint? = needed ? (replayed ? replay.position : pipeline.pressPosition) : nil
        position = p
        positionValid = needed
        feed(sample: sample, force: pipeline.pressForce, position: p, events: &events)
    }

    /// Takes the pending block, read while idle with levels that vary by
    /// region, whole where every scan's step would have the levels set now
    /// (every position the replay would give, and so the level check before
    /// each scan, is in a part of the plate with those levels: no
    /// reconfiguration, the classifier's parameters the same throughout) and
    /// the classifier decides nothing in it; the layer then needs nothing of
    /// its scans (no press it follows, no event), as for a quiet block.
    @inline(never)
    private mutating func takeWhole(_ pipeline: inout ForcePipeline, _ events: inout EventRing) -> Bool {
        // The level check before the block's first scan, as replayScans makes it.
        chooseLevels(&pipeline)
        guard let placed = pipeline.pendingPositions(&replay) else { return false }
        if placed.unplaced && gestures.levels(at: nil) != levels { return false }
        if let box = placed.bounds {
            guard let uniform = gestures.uniformLevels(low: box.low, high: box.high), uniform == levels else { return false }
        }
        guard pipeline.takePendingBlock(&replay, events: &events) else { return false }
        movedBlocks &+= 1
        positionValid = false
        output.removeAll()
        otherEvents.removeAll()
        return true
    }

    /// Replays scans of the pending block, each as ``step(scan:pipeline:events:)``
    /// takes it, up to and including the first that puts something out.
    /// - Returns: the scans replayed.
    @inline(never)
    private mutating func replayScans(pipeline: inout ForcePipeline, events: inout EventRing) -> Int {
        var n = 0
        repeat {
            chooseLevels(&pipeline)
            let sample = pipeline.replayScan(&replay, into: &events)
            afterScan(sample: sample, replayed: true, pipeline: &pipeline, events: &events)
            n &+= 1
        } while replay.isPending && output.isEmpty && otherEvents.isEmpty
        return n
    }

    /// Classifies the scans from `scans` on (`count` of `size` bytes, at
    /// least one) and runs the gesture layer on them: a quiet 16-scan block
    /// through the fast path (nothing put out), a steadily held 16-scan block
    /// of a press it follows (its moves, springs and progress put out, at most
    /// ``maximumOutputPerStep``), scans of a block read whole and replayed
    /// one at a time up to the first that puts something out (that scan's
    /// output), else one ``step(scan:pipeline:events:)``. Read ``output``
    /// and ``otherEvents`` after each call, and call again with the scans
    /// that follow the ones consumed: a replayed block's scans were read at
    /// its first call (nothing else may touch the pipeline or the driver
    /// until they are all consumed).
    /// - Returns: the scans consumed (1 ... ``Classifier/blockScans``).
    /// - Complexity: O(scans consumed × force channels), plus O(regions) per scan of a press; no allocation.
    public mutating func advance(scans: UnsafeRawPointer, count: Int, size: Int, pipeline: inout ForcePipeline,
                                 events: inout EventRing) -> Int {
        if replay.isPending {
            precondition(count >= replay.remaining, "GestureDriver: fewer scans than the replayed block has left")
            return replayScans(pipeline: &pipeline, events: &events)
        }
        if count >= Classifier.blockScans && !gestures.needsScans && events.isEmpty {
            chooseLevels(&pipeline)
            // Idle with levels that vary by region: the block must leave the
            // centre of pressure where it is, and there its levels must be the ones set.
            let holding = gestures.levelsVary && pipeline.pressState == .idle
            if !holding || regionLevels(at: pipeline.lastDecidedPosition) == levels {
                if pipeline.processQuietBlock(scans, holdingPosition: holding, replay: &replay, events: &events) {
                    positionValid = false
                    output.removeAll()
                    otherEvents.removeAll()
                    return Classifier.blockScans
                }
                if replay.isPending {
                    // Refused because the centre of pressure moves, but within positions of the
                    // levels set now, and the classifier decides nothing in it: taken whole after all.
                    if holding && replay.positionMoved && takeWhole(&pipeline, &events) { return Classifier.blockScans }
                    // Read, but refused: its scans one at a time from the read.
                    replayedBlocks &+= 1
                    return replayScans(pipeline: &pipeline, events: &events)
                }
            }
        }
        if count >= Classifier.blockScans && gestures.needsScans && events.isEmpty
            && pipeline.pressState != .idle && gestures.blockFits(first: pipeline.nextSample) {
            if pipeline.processPressedBlock(scans, into: &block, replay: &replay, events: &events) {
                // A press in progress that the classifier decides nothing in: the
                // layer follows it scan by scan from the block's forces and positions.
                pressedBlocks &+= 1
                positionValid = false
                output.removeAll()
                otherEvents.removeAll()
                gestures.track(block: block, into: &output)
                stampPressRegion()
                return Classifier.blockScans
            }
            if replay.isPending {
                // Read, but the classifier decides something in it: its scans one at a time.
                replayedBlocks &+= 1
                return replayScans(pipeline: &pipeline, events: &events)
            }
        }
        if count >= Classifier.blockScans && events.isEmpty && pipeline.readReplayBlock(scans, into: &replay) {
            // Idle with levels that vary by region, where the quiet path refused the block
            // before reading it (the centre of pressure already past the gate, or the
            // last decided one in a region of other levels): taken whole where it may be.
            if gestures.levelsVary && !gestures.needsScans && pipeline.pressState == .idle
                && takeWhole(&pipeline, &events) { return Classifier.blockScans }
            replayedBlocks &+= 1
            return replayScans(pipeline: &pipeline, events: &events)
        }
        step(scan: scans, pipeline: &pipeline, events: &events)
        return 1
    }

    /// The stream ended: a press in progress is released (and named, dismissed).
    public mutating func finish(pipeline: inout ForcePipeline, events: inout EventRing) {
        precondition(!replay.isPending, "GestureDriver: the stream finished in the middle of a replayed block")
        pipeline.finish(into: &events)
        positionValid = false
        feed(sample: pipeline.nextSample, force: 0, position: nil, events: &events)
    }

    /// The sensor was lost: `lost`, and a press in progress released.
    public mutating func sensorLost(timestampNs: Int64, pipeline: inout ForcePipeline, events: inout EventRing) {
        precondition(!replay.isPending, "GestureDriver: the sensor lost in the middle of a replayed block")
        pipeline.sensorLost(timestampNs: timestampNs, into: &events)
        positionValid = false
        feed(sample: pipeline.nextSample, force: 0, position: nil, events: &events)
    }

    private mutating func feed(sample: Int64, force: Float, position: PlatePoint?, events: inout EventRing) {
        output.removeAll()
        otherEvents.removeAll()
        while let e = events.popFirst() {
            if e.kind.isGesture {
                gestures.take(e, position: position, into: &output)
            } else {
                otherEvents.pushLast(e)
            }
        }
        gestures.track(sample: sample, force: force, position: position, into: &output)
        stampPressRegion()
    }

    /// What a region filter of a `move` goes by: the press's region after the step.
    private mutating func stampPressRegion() {
        if !output.isEmpty, let press = gestures.pressRegion {
            var n = output.count
            while n > 0 {
                if var r = output.popFirst() {
                    r.pressRegion = Int16(truncatingIfNeeded: press)
                    output.pushLast(r)
                }
                n -= 1
            }
        }
    }
}
