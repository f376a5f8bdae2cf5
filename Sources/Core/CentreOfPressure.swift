/// A point on the plate, in plate units: 0..1 across each side.
public struct PlatePoint: Equatable, BitwiseCopyable, Sendable {
    public var x: Float
    public var y: Float

    /// Creates a point.
    @inlinable
    public init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }
}

/// Why cell positions were refused.
public enum PositionError: Error, Equatable, Sendable {
    /// Cell `cell` (0-based) has a coordinate that is not a finite number.
    case notFinite(cell: Int)
    /// Cell `cell` (0-based) lies outside the plate (each coordinate must be within 0...1).
    case outsidePlate(cell: Int)
    /// More positions than ``PanelCalibration/maximumForceChannels``.
    case tooManyCells(Int)
    /// Fewer than two cells: one cell cannot say where a press is.
    case tooFewCells(Int)
    /// The cells all sit on one line (or one point): a position across it cannot be told.
    /// (Two cells always sit on one line: a bar, refused only when they sit at one point, ``samePoint``.)
    case collinear
    /// The two cells of a two-cell bar sit at one point: a position along the bar cannot be told.
    case samePoint
}

/// Where each force cell supports the plate, in force-channel order.
public struct CellPositions: Equatable, BitwiseCopyable, Sendable {
    @usableFromInline internal var _x: InlineArray<8, Float>
    @usableFromInline internal var _y: InlineArray<8, Float>
    /// The number of cells.
    public let count: Int

    /// Creates positions from one point per force channel, in channel order.
    public init<S: Sequence>(_ points: S) throws(PositionError) where S.Element == PlatePoint {
        var xs = InlineArray<8, Float>(repeating: 0)
        var ys = InlineArray<8, Float>(repeating: 0)
        var n = 0
        for p in points {
            guard n < PanelCalibration.maximumForceChannels else { throw .tooManyCells(n + 1) }
            guard p.x.isFinite && p.y.isFinite else { throw .notFinite(cell: n) }
            guard p.x >= 0 && p.x <= 1 && p.y >= 0 && p.y <= 1 else { throw .outsidePlate(cell: n) }
            xs[n] = p.x
            ys[n] = p.y
            n += 1
        }
        guard n >= 2 else { throw .tooFewCells(n) }
        if n == 2 {
            // A bar: the position is told along the line through the two cells.
            let dx = xs[1] - xs[0], dy = ys[1] - ys[0]
            guard dx * dx + dy * dy > 1e-6 else { throw .samePoint }
            _x = xs
            _y = ys
            count = n
            return
        }
        // Twice the largest triangle any three cells span: zero when they are collinear.
        var spread: Float = 0
        if n >= 3 {
            for a in 0..<n {
                for b in (a + 1)..<n {
                    for c in (b + 1)..<n {
                        let area = (xs[b] - xs[a]) * (ys[c] - ys[a]) - (xs[c] - xs[a]) * (ys[b] - ys[a])
                        let magnitude = area < 0 ? -area : area
                        if magnitude > spread { spread = magnitude }
                    }
                }
            }
        }
        guard spread > 1e-3 else { throw .collinear }
        _x = xs
        _y = ys
        count = n
    }

    /// The spec's default for a panel of four force channels: the corners in
    /// channel order `[0,0]`, `[1,0]`, `[0,1]`, `[1,1]`.
    public static var corners: CellPositions {
        CellPositions(valid: [0, 1, 0, 1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0, 0], count: 4)
    }

    /// The default for a two-cell panel: a bar along x, the cells at its ends,
    /// `[0, 0.5]` and `[1, 0.5]` (so every position has y = 0.5).
    public static var bar: CellPositions {
        CellPositions(valid: [0, 1, 0, 0, 0, 0, 0, 0], [0.5, 0.5, 0, 0, 0, 0, 0, 0], count: 2)
    }

    /// The default for a three-cell panel: a triangle, the first two cells at
    /// the top corners as on a four-cell plate and the third at the bottom
    /// edge's middle, `[0, 0]`, `[1, 0]`, `[0.5, 1]` (positions fall inside it).
    public static var triangle: CellPositions {
        CellPositions(valid: [0, 1, 0.5, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0], count: 3)
    }

    /// The defaults' points, which the checks of ``init(_:)`` accept (they
    /// lie on the plate and span it): taken as they are, so a board that uses
    /// only a default carries none of those checks.
    private init(valid x: InlineArray<8, Float>, _ y: InlineArray<8, Float>, count: Int) {
        _x = x
        _y = y
        self.count = count
    }

    /// The default for a panel of `cells` force channels: a bar for two
    /// (``bar``), a triangle for three (``triangle``), the corners for four
    /// (``corners``, the spec's order), none otherwise (a panel whose cells are
    /// elsewhere, or more than four, must say where).
    public static func standard(forCells cells: Int) -> CellPositions? {
        switch cells {
        case 2: return bar
        case 3: return triangle
        case 4: return corners
        default: return nil
        }
    }

    /// Cell `i`'s position.
    public subscript(i: Int) -> PlatePoint {
        precondition(i >= 0 && i < count, "CellPositions index out of range")
        return PlatePoint(x: _x[i], y: _y[i])
    }

    public static func == (lhs: CellPositions, rhs: CellPositions) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs._x[i] != rhs._x[i] || lhs._y[i] != rhs._y[i] { return false }
        return true
    }
}

/// The centre of pressure: the force-weighted mean of the cell positions,
/// from each cell's calibrated newtons after its zero (the spec's definition).
///
/// To keep it steady at the peek level, where a few hundredths of a newton
/// of noise on one cell would move a single scan's estimate by a few
/// hundredths of the plate, it is taken over the last
/// ``windowScans`` scans (the moments summed, then divided), and it is only
/// *decided* while the window's mean force is at least ``gateFraction`` of
/// the peek level; below that the last decided position is kept. The
/// per-scan cost is two multiply-adds per cell and three stores.
public enum CentreOfPressure {
    /// Scans whose moments are summed for one estimate (8 ms at 500 scans/s).
    public static let windowScans = 4
    /// The position is decided only while the window's mean force is at
    /// least this fraction of the peek level (a quarter of it: 0.33 N for a
    /// 1.3 N peek); below it the last decided position stands.
    public static let gateFraction: Float = 0.25
    /// Each cell's unloaded zero is re-measured per block of this many scans
    /// (aligned to scan index), from the mean of the block's last
    /// ``zeroSampleScans`` scans (which the block fast path decodes for
    /// positions anyway): a block whose mean force is within half the
    /// gate of the classifier's baseline is idle (not of the zeros' own
    /// total, which a slow press would drag along); an idle block followed by another idle
    /// block (so no press was starting in it) moves each cell's zero a
    /// quarter of the way to that block's mean. Pressed blocks freeze it.
    public static let zeroBlockScans = 16
    /// The scans at the end of each zero block whose readings are averaged.
    public static let zeroSampleScans = 4
    /// The share of the way each accepted idle block moves the zeros.
    public static let zeroSmoothing: Float = 0.25
    /// A zero block is idle within this fraction of the gate of the baseline
    /// (half of it): well inside the force where a position is first decided.
    public static let idleBandOfGate: Float = 0.5
}

/// What a block of the fast path gathers for positions before it commits.
@usableFromInline
internal struct _BlockPositions: BitwiseCopyable, Sendable {
    @usableFromInline internal var momentsX = InlineArray<4, Float>(repeating: 0)
    @usableFromInline internal var momentsY = InlineArray<4, Float>(repeating: 0)
    @usableFromInline internal var closedSums = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var closedAt = -1

    @inlinable
    internal init() {}
}

/// Each cell's unloaded zero, tracked while idle (see ``CentreOfPressure/zeroBlockScans``).
@usableFromInline
internal struct _CellZeros: BitwiseCopyable, Sendable {
    @usableFromInline internal var zero = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var candidate = InlineArray<8, Float>(repeating: 0)
    @usableFromInline internal var hasCandidate = false
    /// Σ zero, Σ zero·x, Σ zero·y over the cells.
    @usableFromInline internal var total: Float = 0
    @usableFromInline internal var momentX: Float = 0
    @usableFromInline internal var momentY: Float = 0

    @usableFromInline internal init() {}

    /// Whether scan `sample` is one of the scans its zero block averages.
    @inlinable @inline(__always)
    internal static func samples(_ sample: Int64) -> Bool {
        Int(truncatingIfNeeded: sample) & (CentreOfPressure.zeroBlockScans - 1)
            >= CentreOfPressure.zeroBlockScans - CentreOfPressure.zeroSampleScans
    }

    /// Whether scan `sample` is the last of its zero block (where the block closes).
    @inlinable @inline(__always)
    internal static func closes(_ sample: Int64) -> Bool {
        Int(truncatingIfNeeded: sample) & (CentreOfPressure.zeroBlockScans - 1) == CentreOfPressure.zeroBlockScans - 1
    }

    /// Closes a block whose per-cell sums (over its sampled scans) are `sums`.
    /// `reference` is the panel's unloaded force as the classifier tracks it
    /// (its baseline, which freezes under a press however slowly it rises);
    /// the block is idle when its mean total is within `idleBand` of it.
    /// Judging against the zeros' own total instead lets a slow press drag
    /// them along block by block, and once dragged they never come back.
    @inlinable
    internal mutating func close(sums: InlineArray<8, Float>, cells: Int, x: InlineArray<8, Float>, y: InlineArray<8, Float>,
                                 reference: Float, idleBand: Float) {
        let scale = 1 / Float(CentreOfPressure.zeroSampleScans)
        var mean: Float = 0
        for i in 0..<cells { mean += sums[i] * scale }
        let d = mean - reference
        guard d < idleBand && d > -idleBand else {
            hasCandidate = false
            return
        }
        if hasCandidate {
            var t: Float = 0, mx: Float = 0, my: Float = 0
            for i in 0..<cells {
                zero[i] += CentreOfPressure.zeroSmoothing * (candidate[i] - zero[i])
                t += zero[i]
                mx += zero[i] * x[i]
                my += zero[i] * y[i]
            }
            total = t
            momentX = mx
            momentY = my
        }
        for i in 0..<cells { candidate[i] = sums[i] * scale }
        hasCandidate = true
    }
}

/// The pipeline's window of per-scan moments, indexed by scan number mod 4.
@usableFromInline
internal struct _PressureWindow: BitwiseCopyable, Sendable {
    @usableFromInline internal var force = InlineArray<4, Float>(repeating: 0)
    @usableFromInline internal var momentX = InlineArray<4, Float>(repeating: 0)
    @usableFromInline internal var momentY = InlineArray<4, Float>(repeating: 0)
    @usableFromInline internal var last: PlatePoint? = nil

    @usableFromInline internal init() {}

    /// Records scan `sample`'s total force and moments.
    @inlinable @inline(__always)
    internal mutating func record(sample: Int64, force f: Float, x: Float, y: Float) {
        let slot = Int(truncatingIfNeeded: sample) & 3
        force[slot] = f
        momentX[slot] = x
        momentY[slot] = y
    }

    /// The position over the window, decided when its mean force is at
    /// least `gate`; otherwise the last decided one (nil before any).
    @inlinable
    internal mutating func position(gate: Float, zeros: _CellZeros) -> PlatePoint? {
        let n = Float(CentreOfPressure.windowScans)
        let f = (force[0] + force[1]) + (force[2] + force[3]) - n * zeros.total
        if f >= gate * n {
            let p = PlatePoint(x: ((momentX[0] + momentX[1]) + (momentX[2] + momentX[3]) - n * zeros.momentX) / f,
                               y: ((momentY[0] + momentY[1]) + (momentY[2] + momentY[3]) - n * zeros.momentY) / f)
            last = p
            return p
        }
        return last
    }
}

extension EventKind {
    /// Peek, pop, hold and release: the events that carry a position on a multi-cell panel.
    @inlinable
    public var isGesture: Bool { rawValue <= EventKind.hold.rawValue }
}

extension Ring where Element == ForceEvent {
    /// Gives every gesture event at offsets `first..<end` the position `p`
    /// (none where `p` is nil).
    @inlinable
    internal mutating func _stampPositions(from first: Int, upTo end: Int, _ p: PlatePoint?) {
        guard let p else { return }
        var k = first
        while k < end {
            let slot = (_head &+ k) & (capacity &- 1)
            if _storage[slot].kind.isGesture { _storage[slot].position = p }
            k &+= 1
        }
    }
}

extension Ring where Element == ForceEvent {
    /// Gives every gesture event from offset `first` on the position `p`.
    @inlinable
    internal mutating func _stampPositions(from first: Int, _ p: PlatePoint?) {
        _stampPositions(from: first, upTo: _count, p)
    }
}

extension ForcePipeline {
    /// The force the classifier compares with its levels at the last scan
    /// (newtons above the tracked baseline, spike-filtered).
    public var pressForce: Float { _classifier._lastForce }
}
