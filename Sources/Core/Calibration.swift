/// Why a calibration was refused.
public enum CalibrationError: Error, Equatable, Sendable {
    /// A curve needs at least two points.
    case tooFewPoints(Int)
    /// A curve has more points than ``ForceCurve/maximumPoints``.
    case tooManyPoints(Int)
    /// Raw values must strictly increase from point to point; `point` is the first offender (0-based).
    case rawNotIncreasing(point: Int)
    /// Newtons must be monotone along the curve; `point` is the first offender (0-based).
    case newtonsNotMonotone(point: Int)
    /// A value is not a finite number.
    case notFinite
    /// A linear calibration has a zero scale.
    case zeroScale
    /// More force channels than ``PanelCalibration/maximumForceChannels``.
    case tooManyForceChannels(Int)
    /// The curves of a panel's channels together have more points than
    /// ``PanelCalibration/maximumCurvePoints``; the total is given.
    case tooManyCurvePoints(Int)
    /// A force channel's slot is not in the scan layout.
    case slotOutOfRange(Int)
    /// A value is finite but outside the accepted range (raw counts beyond
    /// 2^53, a scale beyond 1e-12...1e3 N per count, newtons beyond 1e6).
    case outOfRange

}

/// A monotone piecewise-linear map from raw counts to newtons, for sensors
/// such as FSRs that are not linear. Outside its range the curve holds its
/// end values.
public struct ForceCurve: Equatable, BitwiseCopyable, Sendable {
    /// The most points a curve may have.
    public static let maximumPoints = 32

    @usableFromInline internal var _raw: InlineArray<32, Int64>
    @usableFromInline internal var _newtons: InlineArray<32, Float>
    /// The number of points.
    public let count: Int

    /// Creates a curve from `[raw, newtons]` points sorted by raw value.
    public init<S: Sequence>(_ points: S) throws(CalibrationError) where S.Element == (raw: Int64, newtons: Float) {
        var raw = InlineArray<32, Int64>(repeating: 0)
        var newtons = InlineArray<32, Float>(repeating: 0)
        var n = 0
        var direction: Float = 0
        for point in points {
            guard n < ForceCurve.maximumPoints else { throw .tooManyPoints(n + 1) }
            guard point.newtons.isFinite else { throw .notFinite }
            if n > 0 {
                guard point.raw > raw[n - 1] else { throw .rawNotIncreasing(point: n) }
                let step = point.newtons - newtons[n - 1]
                if step != 0 {
                    if direction == 0 { direction = step > 0 ? 1 : -1 }
                    else if (step > 0) != (direction > 0) { throw .newtonsNotMonotone(point: n) }
                }
            }
            raw[n] = point.raw
            newtons[n] = point.newtons
            n += 1
        }
        guard n >= 2 else { throw .tooFewPoints(n) }
        guard direction != 0 else { throw .newtonsNotMonotone(point: n - 1) }
        _raw = raw
        _newtons = newtons
        count = n
    }

    /// The `count` points from `first` of a pool a ``PanelCalibration`` has validated.
    internal init(pooled raw: InlineArray<64, Int64>, _ newtons: InlineArray<64, Float>, first: Int, count: Int) {
        _raw = InlineArray(repeating: 0)
        _newtons = InlineArray(repeating: 0)
        for k in 0..<count {
            _raw[k] = raw[first + k]
            _newtons[k] = newtons[first + k]
        }
        self.count = count
    }

    public static func == (lhs: ForceCurve, rhs: ForceCurve) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count where lhs._raw[i] != rhs._raw[i] || lhs._newtons[i] != rhs._newtons[i] {
            return false
        }
        return true
    }

    /// The point at `i`.
    public subscript(i: Int) -> (raw: Int64, newtons: Float) {
        precondition(i >= 0 && i < count, "ForceCurve point out of range")
        return (_raw[i], _newtons[i])
    }

    /// Newtons for a raw value, by linear interpolation between the two
    /// surrounding points. - Complexity: O(log n), n ≤ 32.
    @inlinable
    public func newtons(forRaw value: Int64) -> Float {
        _interpolate(value, first: 0, last: count - 1, raw: _raw.span, newtons: _newtons.span)
    }
}

/// Piecewise-linear interpolation over points `first...last` (raw strictly
/// increasing), holding the end values outside them: the one implementation
/// behind ``ForceCurve/newtons(forRaw:)`` and the pipeline's flattened curves.
@inlinable @inline(__always)
internal func _interpolate(_ value: Int64, first: Int, last: Int,
                           raw: borrowing Span<Int64>, newtons: borrowing Span<Float>) -> Float {
    if value <= raw[first] { return newtons[first] }
    if value >= raw[last] { return newtons[last] }
    var low = first
    var high = last
    while high - low > 1 {
        let mid = (low + high) >> 1
        if raw[mid] <= value { low = mid } else { high = mid }
    }
    return _onSegment(value, low, raw: raw, newtons: newtons)
}

/// The newtons at `value` on the segment from point `low` to point
/// `low + 1`, where `raw[low] <= value < raw[low + 1]`: the interpolation
/// itself, which every lookup of a curve ends in, whatever found the segment.
@inlinable @inline(__always)
internal func _onSegment(_ value: Int64, _ low: Int, raw: borrowing Span<Int64>, newtons: borrowing Span<Float>) -> Float {
    let x0 = raw[unchecked: low]
    let span = Float(raw[unchecked: low &+ 1] - x0)
    let t = Float(value - x0) / span
    return newtons[unchecked: low] + t * (newtons[unchecked: low &+ 1] - newtons[unchecked: low])
}

/// How one force channel's raw counts become newtons.
public enum ChannelCalibration: Equatable, BitwiseCopyable, Sendable {
    /// `(raw - zeroRaw) * newtonsPerCount`.
    case linear(zeroRaw: Int64, newtonsPerCount: Float)
    /// A monotone piecewise-linear curve.
    case curve(ForceCurve)

    /// Newtons for a raw value.
    @inlinable
    public func newtons(forRaw raw: Int64) -> Float {
        switch self {
        case .linear(let zero, let scale): return Float(raw &- zero) * scale
        case .curve(let curve): return curve.newtons(forRaw: raw)
        }
    }

    /// Checks that the numbers are usable.
    public func validate() throws(CalibrationError) {
        if case .linear(_, let scale) = self {
            guard scale.isFinite else { throw .notFinite }
            guard scale != 0 else { throw .zeroScale }
        }
    }
}

/// The panel's force: the sum over its force channels of each channel's
/// calibrated newtons.
public struct PanelCalibration: Equatable, Sendable {
    /// The most force channels a panel may have.
    public static let maximumForceChannels = 8
    /// The most curve points all of a panel's channels may have together
    /// (each curve at most ``ForceCurve/maximumPoints``). The pipeline keeps
    /// the points in one fixed pool of this size, 768 bytes in every
    /// pipeline value, rather than room for 32 points on each of 8 channels
    /// (3 KB, of RAM and of stack on a microcontroller, for curves no panel
    /// has: a calibration session fits 5 to 10 points a cell). Two full
    /// curves, or eight of 8 points, fit.
    public static let maximumCurvePoints = 64

    /// Each force channel's layout slot (below ``ScanLayout/maximumChannels``).
    @usableFromInline internal var _slots: InlineArray<8, Int8>
    /// A line channel's zero and scale (a curve channel's are unused).
    @usableFromInline internal var _zero: InlineArray<8, Int64>
    @usableFromInline internal var _scale: InlineArray<8, Float>
    /// Where a curve channel's points start in the pool, or -1 for a line, and how many.
    @usableFromInline internal var _curveFirst: InlineArray<8, Int8>
    @usableFromInline internal var _curveCount: InlineArray<8, Int8>
    /// Every curve's points, back to back (the pipeline's decoder takes the
    /// pool as it is): not a whole ``ForceCurve`` (392 bytes) per channel,
    /// which made a panel calibration 3.2 KB of a board's stack.
    @usableFromInline internal var _raw: InlineArray<64, Int64>
    @usableFromInline internal var _newtons: InlineArray<64, Float>
    /// The number of force channels.
    public let count: Int

    /// Creates a panel calibration from (layout slot, calibration) pairs.
    public init<S: Sequence>(_ channels: S, layout: ScanLayout) throws(CalibrationError)
    where S.Element == (slot: Int, calibration: ChannelCalibration) {
        // Filled in place: local tables copied into `self` at the end were
        // that much more of the caller's stack (all of it on a microcontroller).
        _slots = InlineArray(repeating: 0)
        _zero = InlineArray(repeating: 0)
        _scale = InlineArray(repeating: 0)
        _curveFirst = InlineArray(repeating: -1)
        _curveCount = InlineArray(repeating: 0)
        _raw = InlineArray(repeating: 0)
        _newtons = InlineArray(repeating: 0)
        var n = 0
        var points = 0
        for channel in channels {
            guard n < PanelCalibration.maximumForceChannels else { throw .tooManyForceChannels(n + 1) }
            guard channel.slot >= 0 && channel.slot < layout.count else { throw .slotOutOfRange(channel.slot) }
            try channel.calibration.validate()
            _slots[n] = Int8(channel.slot)
            switch channel.calibration {
            case .linear(let zero, let scale):
                _zero[n] = zero
                _scale[n] = scale
            case .curve(let curve):
                guard points + curve.count <= PanelCalibration.maximumCurvePoints else {
                    throw .tooManyCurvePoints(points + curve.count)
                }
                _curveFirst[n] = Int8(points)
                _curveCount[n] = Int8(curve.count)
                for k in 0..<curve.count {
                    _raw[points + k] = curve._raw[k]
                    _newtons[points + k] = curve._newtons[k]
                }
                points += curve.count
            }
            n += 1
        }
        count = n
    }

    public static func == (lhs: PanelCalibration, rhs: PanelCalibration) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs.count {
            guard lhs._slots[i] == rhs._slots[i], (lhs._curveFirst[i] < 0) == (rhs._curveFirst[i] < 0) else { return false }
            if lhs._curveFirst[i] < 0 {
                guard lhs._zero[i] == rhs._zero[i] && lhs._scale[i] == rhs._scale[i] else { return false }
                continue
            }
            let a = Int(lhs._curveFirst[i]), b = Int(rhs._curveFirst[i]), n = Int(lhs._curveCount[i])
            guard n == Int(rhs._curveCount[i]) else { return false }
            for k in 0..<n where lhs._raw[a + k] != rhs._raw[b + k] || lhs._newtons[a + k] != rhs._newtons[b + k] {
                return false
            }
        }
        return true
    }

    /// The layout slot of force channel `i`.
    @inlinable public func slot(_ i: Int) -> Int { Int(_slots[i]) }
    /// The calibration of force channel `i` (a curve is rebuilt from the pool).
    public func calibration(_ i: Int) -> ChannelCalibration {
        precondition(i >= 0 && i < count, "force channel index out of range")
        let first = Int(_curveFirst[i])
        guard first >= 0 else { return .linear(zeroRaw: _zero[i], newtonsPerCount: _scale[i]) }
        return .curve(ForceCurve(pooled: _raw, _newtons, first: first, count: Int(_curveCount[i])))
    }
}
