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

/// The gesture layer: fed each scan's press force, position and the
/// pipeline's events, it names the region a press began in, turns peeks and
/// pops on regions with quick actions into action lists, opens and
/// dismissals, and reports moves, spring loading and (when asked) progress.
/// A host-side value; `replay` and `run` feed it the same way.
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

    private var pressed = false
    private var suppressed = false
    private var start: Int?
    private var current: Int?
    private var left = false
    private var springFired = false
    private var popped = false
    private var lastMove: Int64 = -(1 << 62)
    private var lastProgress: Int64 = -(1 << 62)

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
    }

    /// New panel levels (a profile reload), keeping the press in progress.
    public mutating func setPanelLevels(peek: Float, pop: Float, releaseFraction: Float) {
        panelPeek = peek
        panelPop = pop
        self.releaseFraction = releaseFraction
    }

    /// The region the press in progress began in (nil: no press, or one outside every region).
    public var pressRegion: Int? { pressed && !suppressed ? start : nil }

    /// The `progress` interval in scans for at most `hz` per second at `sampleRateHz` (nil: none).
    public static func interval(hz: Double?, sampleRateHz: Double) -> Int64? {
        hz.map { max(1, Int64((sampleRateHz / $0).rounded())) }
    }

    /// The region `p` is inside of (by `margin`), if any.
    /// (Plain loops and branches here and below, no closures: this runs every
    /// scan in `run`, and a debug build boxes what closures capture.)
    func region(at p: PlatePoint?, margin: Double = 0) -> Int? {
        guard let p else { return nil }
        var i = 0
        while i < regions.count {
            if regions[i].contains(p, margin: margin) { return i }
            i += 1
        }
        return nil
    }

    /// The region presses outside every region belong to, if any.
    var defaultRegion: Int? {
        var i = 0
        while i < regions.count {
            if regions[i].isDefault { return i }
            i += 1
        }
        return nil
    }

    func name(_ r: Int?) -> String? {
        guard let r else { return nil }
        return regions[r].name
    }

    func pop(_ r: Int?) -> Float {
        if let r, let v = regions[r].popNewtons { return Float(v) }
        return panelPop
    }

    func peek(_ r: Int?) -> Float {
        if let r, let v = regions[r].peekNewtons { return Float(v) }
        return panelPeek
    }

    /// The peek and pop levels for a press at `p` about to begin (the region's
    /// own, else the panel's); the driver reconfigures the classifier with them while idle.
    public func levels(at p: PlatePoint?) -> (peek: Float, pop: Float) {
        var r = region(at: p)
        if r == nil { r = defaultRegion }
        return (peek(r), pop(r))
    }

    /// One scan: `force` is the press force (above baseline), `position` the
    /// centre of pressure, `events` the pipeline's events of this scan.
    public mutating func scan(sample: Int64, force: Float, position: PlatePoint?, events: [ForceEvent],
                              into out: inout [GestureEvent]) {
        for e in events where e.kind.isGesture {
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
                    start = nil
                    out.append(.press(e, region: nil))
                    break
                }
                start = region(at: e.position)
                if start == nil { start = defaultRegion }
                current = start
                suppressed = start == nil
                guard let s = start else { break }
                out.append(.press(e, region: regions[s].name))
                if !regions[s].actions.isEmpty {
                    out.append(.actions(region: regions[s].name, actions: regions[s].actions, sample: e.sample))
                }
            case .pop, .hold:
                guard pressed && !suppressed && !left else { break }
                out.append(.press(e, region: name(start)))
                if e.kind == .pop, let s = start, !regions[s].actions.isEmpty, !popped {
                    popped = true
                    var at = position
                    if let p = e.position { at = p }
                    out.append(.open(region: regions[s].name, action: selected(s, at), sample: e.sample))
                }
            case .release:
                guard pressed else { break }
                pressed = false
                guard !suppressed else { break }
                out.append(.press(e, region: name(start)))
                if let s = start, !regions[s].actions.isEmpty, !popped {
                    out.append(.dismiss(region: regions[s].name, sample: e.sample))
                }
            default:
                break
            }
        }
        guard pressed && !suppressed, let p = position else { return }
        if !regions.isEmpty {
            // Leave only beyond the edge by the hysteresis, enter only inside by it.
            if let c = current, !regions[c].contains(p, margin: Double(hysteresis)) {
                current = nil
            }
            if current == nil, let r = region(at: p, margin: -Double(hysteresis)) {
                current = r
                springFired = false
            }
            if current != start { left = true }
            if left, let c = current, !springFired, force >= pop(c) {
                springFired = true
                out.append(.spring(region: regions[c].name, sample: sample, x: p.x, y: p.y))
            }
        }
        if sample &- lastMove >= moveInterval {
            lastMove = sample
            out.append(.move(sample: sample, x: p.x, y: p.y, forceNewtons: force))
        }
        if let interval = progressInterval, sample &- lastProgress >= interval {
            lastProgress = sample
            let r = left ? current : start
            let low = peek(r) * releaseFraction, high = pop(r)
            let value = min(1, max(0, (force - low) / (high - low)))
            out.append(.progress(region: name(r), sample: sample, value: value))
        }
    }

    /// The quick action whose horizontal band of region `s` holds `p` (the first without a position).
    func selected(_ s: Int, _ p: PlatePoint?) -> String {
        let r = regions[s]
        guard let p, r.maxY > r.minY else { return r.actions[0] }
        let t = (Double(p.y) - r.minY) / (r.maxY - r.minY)
        let i = min(r.actions.count - 1, max(0, Int(t * Double(r.actions.count))))
        return r.actions[i]
    }
}
