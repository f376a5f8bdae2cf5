// Over 300 lines: regions, the gesture events and the per-press state machine that turns force and position into them are one vocabulary.
import ForceStageCore

/// A named rectangle of the plate (plate units) with its own levels and up
/// to four quick actions: one force button of a kiosk or an appliance front.
public struct Region: Equatable, Sendable {
    public var name: String
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    /// The region's own levels; nil takes the panel's.
    public var peekNewtons: Double?
    public var popNewtons: Double?
    /// Quick actions, at most ``Region/maximumActions``.
    public var actions: [String]
    /// Presses starting outside every region belong to this one.
    public var isDefault: Bool

    public static let maximumActions = 4

    public init(name: String, minX: Double, minY: Double, maxX: Double, maxY: Double, peekNewtons: Double? = nil,
                popNewtons: Double? = nil, actions: [String] = [], isDefault: Bool = false) {
        self.name = name
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
        self.peekNewtons = peekNewtons
        self.popNewtons = popNewtons
        self.actions = actions
        self.isDefault = isDefault
    }

    /// Whether `p` lies inside the rectangle grown by `margin` on every side
    /// (a negative margin shrinks it).
    public func contains(_ p: PlatePoint, margin: Double = 0) -> Bool {
        let x = Double(p.x), y = Double(p.y)
        return x >= minX - margin && x <= maxX + margin && y >= minY - margin && y <= maxY + margin
    }

    /// Whether two rectangles share more than an edge.
    public func overlaps(_ other: Region) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }
}

/// What the gesture layer reports, on top of the classifier's events.
public enum GestureEvent: Equatable, Sendable {
    /// A peek, pop, hold or release of the press, named by the region it began in (nil: no regions).
    case press(ForceEvent, region: String?)
    /// A peek on a region with quick actions: the list, once per press.
    case actions(region: String, actions: [String], sample: Int64)
    /// A pop on a region with quick actions: the selected one opens.
    case open(region: String, action: String, sample: Int64)
    /// A release without a pop on a region with quick actions: the list goes away.
    case dismiss(region: String, sample: Int64)
    /// While pressed, rate-limited: where the press is and how hard.
    case move(sample: Int64, x: Float, y: Float, forceNewtons: Float)
    /// A force click over `region` while dragging: once per entry into it.
    case spring(region: String, sample: Int64, x: Float, y: Float)
    /// The force between the region's release and pop levels as 0...1, rate-limited.
    case progress(region: String?, sample: Int64, value: Float)
}

/// What the gesture layer puts out in one step, as plain records (regions
/// and actions by index): fixed capacity, stored inline, no allocation.
/// A step puts out at most ``GestureDriver/maximumOutputPerStep``.
public typealias GestureRing = Ring<32, GestureRecord>

/// The gesture layer: fed each scan's press force, position and the
/// pipeline's events, it names the region a press began in, turns peeks and
/// pops on regions with quick actions into action lists, opens and
/// dismissals, and reports moves, spring loading and (when asked) progress.
/// A host-side value; `replay` and `run` feed it the same way (``GestureDriver``).
///
/// Rules: a press belongs to the region it began in (at the peek); one that
/// begins outside every region belongs to the default region, or yields
/// nothing. Once the press has left its region (beyond `hysteresis`), that
/// region's pop and hold are no longer reported: a force click (the force
/// reaching a region's pop level) over any region then emits `spring` for
/// it, once per entry; leaving a region means going `hysteresis` beyond its
/// edge, entering one means being `hysteresis` inside it, so a press on a
/// border does not flicker. With quick actions, the one opened by a pop is
/// the one whose horizontal band of the region (top to bottom, in order) the
/// press is in; `hold` is reported as usual, the route without force.
///
/// What it puts out are ``GestureRecord``s (names by index, no reference
/// counts); ``GestureRecord/gestureEvent(regions:)`` gives the named event.
/// Plain loops and branches throughout, no closures: this runs every scan of
/// a press in `run`, and a debug build boxes what closures capture.
public struct PanelGestures: Sendable {
    public let regions: [Region]
    public private(set) var panelPeek: Float
    public private(set) var panelPop: Float
    public private(set) var releaseFraction: Float
    public let hysteresis: Float
    /// Scans between two `move` events (and between two `progress` events).
    public let moveInterval: Int64
    /// Scans between two `progress` events; nil: none computed. `run` changes it
    /// while streaming, as socket clients subscribe to progress and leave.
    public var progressInterval: Int64?
    /// Whether the levels differ between regions (or from the panel's): only
    /// then does the centre of pressure choose the classifier's levels while idle.
    public private(set) var levelsVary = false

    private var pressed = false
    private var suppressed = false
    /// The region the press began in, -1 for none.
    private var start = -1
    /// The region the press is in now (by the hysteresis rules), -1 for none.
    private var current = -1
    private var left = false
    private var springFired = false
    private var popped = false
    private var lastMove: Int64 = -(1 << 62)
    private var lastProgress: Int64 = -(1 << 62)
    /// The default region's index, -1 for none.
    private let defaultIndex: Int

    /// - Parameters:
    ///   - moveHz: `move` events per second at most.
    ///   - progressHz: `progress` events per second at most; nil: none (and no cost).
    public init(regions: [Region], panelPeek: Float, panelPop: Float, releaseFraction: Float, sampleRateHz: Double,
                hysteresis: Float = 0.02, moveHz: Double = 30, progressHz: Double? = nil) {
        self.regions = regions
        self.panelPeek = panelPeek
        self.panelPop = panelPop
        self.releaseFraction = releaseFraction
        self.hysteresis = hysteresis
        self.moveInterval = max(1, Int64((sampleRateHz / moveHz).rounded()))
        self.progressInterval = Self.interval(hz: progressHz, sampleRateHz: sampleRateHz)
        var d = -1
        var i = 0
        while i < regions.count {
            if regions[i].isDefault && d < 0 { d = i }
            i += 1
        }
        defaultIndex = d
        levelsVary = computeLevelsVary()
    }

    /// New panel levels (a profile reload), keeping the press in progress.
    public mutating func setPanelLevels(peek: Float, pop: Float, releaseFraction: Float) {
        panelPeek = peek
        panelPop = pop
        self.releaseFraction = releaseFraction
        levelsVary = computeLevelsVary()
    }

    private func computeLevelsVary() -> Bool {
        var i = 0
        while i < regions.count {
            if peek(i) != panelPeek || pop(i) != panelPop { return true }
            i += 1
        }
        return false
    }

    /// The region the press in progress began in (nil: no press, or one outside every region).
    public var pressRegion: Int? { pressed && !suppressed && start >= 0 ? start : nil }

    /// Whether the layer needs each scan's force and position (a press it
    /// follows is in progress: moves, spring loading, progress). Otherwise a
    /// scan that raises no event changes nothing in it.
    public var needsScans: Bool { pressed && !suppressed }

    /// The `progress` interval in scans for at most `hz` per second at `sampleRateHz` (nil: none).
    public static func interval(hz: Double?, sampleRateHz: Double) -> Int64? {
        hz.map { max(1, Int64((sampleRateHz / $0).rounded())) }
    }

    /// The region `p` is inside of (by `margin`), -1 for none.
    @inline(__always)
    func region(at p: PlatePoint, margin: Double = 0) -> Int {
        var i = 0
        while i < regions.count {
            if regions[i].contains(p, margin: margin) { return i }
            i += 1
        }
        return -1
    }

    @inline(__always)
    func pop(_ r: Int) -> Float {
        if r >= 0, let v = regions[r].popNewtons { return Float(v) }
        return panelPop
    }

    @inline(__always)
    func peek(_ r: Int) -> Float {
        if r >= 0, let v = regions[r].peekNewtons { return Float(v) }
        return panelPeek
    }

    /// The peek and pop levels for a press at `p` about to begin (the region's
    /// own, else the panel's); the driver reconfigures the classifier with them while idle.
    public func levels(at p: PlatePoint?) -> (peek: Float, pop: Float) {
        var r = -1
        if let p { r = region(at: p) }
        if r < 0 { r = defaultIndex }
        return (peek(r), pop(r))
    }

    /// The levels ``levels(at:)`` gives at every point of the box from `low`
    /// to `high` (corners included), or nil where they may differ: the
    /// regions the box meets all have the same levels, and the box lies in
    /// one of them or the levels outside every region are those too. The same
    /// double comparisons as ``Region/contains(_:margin:)`` (a float widens to
    /// a double monotonically, so a point of the box is in a region only if
    /// the box meets it).
    public func uniformLevels(low: PlatePoint, high: PlatePoint) -> (peek: Float, pop: Float)? {
        let lx = Double(low.x), ly = Double(low.y), hx = Double(high.x), hy = Double(high.y)
        var found: (peek: Float, pop: Float)? = nil
        var inside = false
        var i = 0
        while i < regions.count {
            if lx <= regions[i].maxX && hx >= regions[i].minX && ly <= regions[i].maxY && hy >= regions[i].minY {
                let l = (peek: peek(i), pop: pop(i))
                if let f = found, f != l { return nil }
                found = l
                inside = inside || (lx >= regions[i].minX && hx <= regions[i].maxX && ly >= regions[i].minY && hy <= regions[i].maxY)
            }
            i += 1
        }
        if inside { return found }
        let outside = (peek: peek(defaultIndex), pop: pop(defaultIndex))
        if let f = found, f != outside { return nil }
        return outside
    }

    private static func stamp(_ sample: Int64) -> ForceEvent {
        ForceEvent(kind: .peek, sample: sample, timestampNs: 0, forceNewtons: 0)
    }

    private func record(_ kind: GestureRecord.Kind, _ sample: Int64, region: Int) -> GestureRecord {
        GestureRecord(kind: kind, event: Self.stamp(sample), region: Int16(truncatingIfNeeded: region))
    }

    /// One of the pipeline's gesture events (peek, pop, hold, release) of the
    /// scan; `position` is the scan's centre of pressure. Others are ignored.
    public mutating func take(_ e: ForceEvent, position: PlatePoint?, into out: inout GestureRing) {
        switch e.kind {
        case .peek:
            pressed = true
            popped = false
            left = false
            springFired = false
            lastMove = -(1 << 62)
            lastProgress = -(1 << 62)
            if regions.isEmpty {
                suppressed = false
                start = -1
                out.pushLast(GestureRecord(kind: .press, event: e, region: -1))
                return
            }
            start = -1
            if let p = e.position { start = region(at: p) }
            if start < 0 { start = defaultIndex }
            current = start
            suppressed = start < 0
            guard start >= 0 else { return }
            out.pushLast(GestureRecord(kind: .press, event: e, region: Int16(truncatingIfNeeded: start)))
            if !regions[start].actions.isEmpty {
                out.pushLast(record(.actions, e.sample, region: start))
            }
        case .pop, .hold:
            guard pressed && !suppressed && !left else { return }
            out.pushLast(GestureRecord(kind: .press, event: e, region: Int16(truncatingIfNeeded: start)))
            if e.kind == .pop && start >= 0 && !regions[start].actions.isEmpty && !popped {
                popped = true
                var at = position
                if let p = e.position { at = p }
                var r = record(.open, e.sample, region: start)
                r.action = Int16(truncatingIfNeeded: selected(start, at))
                out.pushLast(r)
            }
        case .release:
            guard pressed else { return }
            pressed = false
            guard !suppressed else { return }
            out.pushLast(GestureRecord(kind: .press, event: e, region: Int16(truncatingIfNeeded: start)))
            if start >= 0 && !regions[start].actions.isEmpty && !popped {
                out.pushLast(record(.dismiss, e.sample, region: start))
            }
        default:
            return
        }
    }

    /// After the scan's events: while a press it follows is in progress,
    /// spring loading, moves and progress from the scan's press force and
    /// centre of pressure.
    public mutating func track(sample: Int64, force: Float, position: PlatePoint?, into out: inout GestureRing) {
        guard pressed && !suppressed, let p = position else { return }
        if !regions.isEmpty {
            // Leave only beyond the edge by the hysteresis, enter only inside by it.
            if current >= 0 && !regions[current].contains(p, margin: Double(hysteresis)) {
                current = -1
            }
            if current < 0 {
                let r = region(at: p, margin: -Double(hysteresis))
                if r >= 0 {
                    current = r
                    springFired = false
                }
            }
            if current != start { left = true }
            if left && current >= 0 && !springFired && force >= pop(current) {
                springFired = true
                var r = record(.spring, sample, region: current)
                r.x = p.x
                r.y = p.y
                out.pushLast(r)
            }
        }
        if sample &- lastMove >= moveInterval {
            lastMove = sample
            var r = record(.move, sample, region: -1)
            r.x = p.x
            r.y = p.y
            r.value = force
            out.pushLast(r)
        }
        if let interval = progressInterval, sample &- lastProgress >= interval {
            lastProgress = sample
            let at = left ? current : start
            let low = peek(at) * releaseFraction, high = pop(at)
            var r = record(.progress, sample, region: at)
            r.value = min(1, max(0, (force - low) / (high - low)))
            out.pushLast(r)
        }
    }

    /// Whether a block of ``Classifier/blockScans`` scans from `first` on
    /// can put out at most ``GestureDriver/maximumOutputPerStep`` events
    /// through ``track(block:into:)``: the moves and progress due in it, were
    /// each emitted as soon as due, plus a spring every other scan (entering a
    /// region takes a scan outside it first).
    func blockFits(first: Int64) -> Bool {
        let scans = Int64(Classifier.blockScans)
        func due(_ last: Int64, _ interval: Int64) -> Int64 {
            let k0 = Swift.max(0, last &+ interval &- first)
            return k0 < scans ? (scans &- 1 &- k0) / interval &+ 1 : 0
        }
        var worst = due(lastMove, moveInterval)
        if let interval = progressInterval { worst &+= due(lastProgress, interval) }
        if !regions.isEmpty { worst &+= scans / 2 }
        return worst <= Int64(GestureDriver.maximumOutputPerStep)
    }

    /// ``track(sample:force:position:into:)`` for each scan of a block the
    /// pipeline took whole (no event in it), in order.
    public mutating func track(block: PressedBlockScans, into out: inout GestureRing) {
        // The lanes copied once and read through spans: an element read through
        // `block` (or an InlineArray subscript) copied the whole array per scan.
        let forceLanes = block.forces, xLanes = block.positionsX, yLanes = block.positionsY
        let forces = forceLanes.span, xs = xLanes.span, ys = yLanes.span, has = block.positionMask
        if pressed && !suppressed && has == (1 << UInt32(Classifier.blockScans)) &- 1 && staysInCurrent(block) {
            trackInCurrent(block.first, forces, xs, ys, into: &out)
            return
        }
        var k = 0
        while k < Classifier.blockScans {
            let p: PlatePoint? = (has >> UInt32(truncatingIfNeeded: k)) & 1 != 0 ? PlatePoint(x: xs[k], y: ys[k]) : nil
            track(sample: block.first &+ Int64(k), force: forces[k], position: p, into: &out)
            k &+= 1
        }
    }

    /// Whether every point of the block keeps the press in the region it is in
    /// now (inside it grown by the hysteresis, as ``track(sample:force:position:into:)``
    /// asks, in the same double arithmetic), or there are no regions. The
    /// block's extremes (``PressedBlockScans/positionBounds``) are compared: a
    /// float widens to a double monotonically, so every point is inside
    /// exactly when the extremes are (a NaN is in no region).
    private func staysInCurrent(_ block: PressedBlockScans) -> Bool {
        if regions.isEmpty { return true }
        guard current >= 0, let bounds = block.positionBounds else { return false }
        let low = bounds.low, high = bounds.high
        // The bounds read once per block, field by field (a copy of the region would retain its names).
        // Region.contains(_:margin:) with the margin added once (the same doubles).
        let margin = Double(hysteresis)
        return Double(low.x) >= regions[current].minX - margin && Double(high.x) <= regions[current].maxX + margin
            && Double(low.y) >= regions[current].minY - margin && Double(high.y) <= regions[current].maxY + margin
    }

    /// ``track(sample:force:position:into:)`` for each scan of a block in which
    /// every scan has a position and the press stays in its current region
    /// (``staysInCurrent(_:)``): the region, whether the press has left its
    /// own and the levels are the same for every scan, so each scan only
    /// checks for a spring, a move and progress. Those fall on known scans
    /// (the first at or above the spring level; every `moveInterval`, and
    /// every progress interval, from the last one), so it visits only those,
    /// in scan order and, on one scan, spring, move, progress, as scan by scan.
    private mutating func trackInCurrent(_ first: Int64, _ forces: Span<Float>, _ xs: Span<Float>, _ ys: Span<Float>,
                                         into out: inout GestureRing) {
        if !regions.isEmpty && current != start { left = true }
        let scans = Classifier.blockScans
        // The scan of the spring (scans: none).
        var spring = scans
        if !regions.isEmpty && left && current >= 0 && !springFired {
            let level = pop(current)
            var k = 0
            while k < scans {
                if forces[k] >= level { spring = k; break }
                k &+= 1
            }
        }
        // The next move's and progress's scans (scans or more: none in the block).
        func due(_ last: Int64, _ interval: Int64) -> Int {
            let k = last &+ interval &- first
            return k <= 0 ? 0 : (k < Int64(scans) ? Int(truncatingIfNeeded: k) : scans)
        }
        var move = due(lastMove, moveInterval)
        let progressEvery = progressInterval ?? 0
        var progress = progressInterval != nil ? due(lastProgress, progressEvery) : scans
        let at = left ? current : start
        var low: Float = 0, high: Float = 0
        if progress < scans {
            low = peek(at) * releaseFraction
            high = pop(at)
        }
        while true {
            let k = Swift.min(spring, Swift.min(move, progress))
            if k >= scans { break }
            let sample = first &+ Int64(k)
            if spring == k {
                springFired = true
                var r = record(.spring, sample, region: current)
                r.x = xs[k]
                r.y = ys[k]
                out.pushLast(r)
                spring = scans
            }
            if move == k {
                lastMove = sample
                var r = record(.move, sample, region: -1)
                r.x = xs[k]
                r.y = ys[k]
                r.value = forces[k]
                out.pushLast(r)
                move = due(lastMove, moveInterval)
            }
            if progress == k {
                lastProgress = sample
                var r = record(.progress, sample, region: at)
                r.value = Swift.min(1, Swift.max(0, (forces[k] - low) / (high - low)))
                out.pushLast(r)
                progress = due(lastProgress, progressEvery)
            }
        }
    }

    /// The index of the quick action whose horizontal band of region `s` holds `p` (the first without a position).
    func selected(_ s: Int, _ p: PlatePoint?) -> Int {
        let r = regions[s]
        guard let p, r.maxY > r.minY else { return 0 }
        let t = (Double(p.y) - r.minY) / (r.maxY - r.minY)
        return min(r.actions.count - 1, max(0, Int(t * Double(r.actions.count))))
    }
}
