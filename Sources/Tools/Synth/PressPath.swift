import Foundation

/// Where a sliding press goes while it is held: from the press's landing
/// position to `end`, along a quadratic curve bent towards `control`, eased
/// in and out (smoothstep) between `startTime` and `endTime`.
///
/// Before `startTime` the finger is where it landed; after `endTime` it is at
/// `end` (where it lifts off, and where the panel's relaxation residual sits).
public struct PressPath: Sendable, Equatable {
    /// When the finger starts to move, seconds from the start of the recording.
    public var startTime: Double
    /// When it stops.
    public var endTime: Double
    /// The curve's control point (x, y in plate units); the midpoint of the
    /// straight line makes a straight slide.
    public var controlX: Double
    public var controlY: Double
    /// Where the slide ends (x, y in plate units).
    public var endX: Double
    public var endY: Double

    public init(startTime: Double, endTime: Double, controlX: Double, controlY: Double, endX: Double, endY: Double) {
        self.startTime = startTime
        self.endTime = endTime
        self.controlX = controlX
        self.controlY = controlY
        self.endX = endX
        self.endY = endY
    }

    /// The position at `t` of a finger that landed at (`x`, `y`).
    ///
    /// The curve lies in the triangle of its three points, so a path whose
    /// points are on the plate stays on it.
    public func position(at t: Double, from x: Double, _ y: Double) -> (x: Double, y: Double) {
        let span = endTime - startTime
        let u = span > 0 ? smoothstep((t - startTime) / span) : (t < startTime ? 0 : 1)
        let a = (1 - u) * (1 - u), b = 2 * u * (1 - u), c = u * u
        return (a * x + b * controlX + c * endX, a * y + b * controlY + c * endY)
    }

    /// The length of the curve from (`x`, `y`), plate units (numerically, 64 chords).
    public func length(from x: Double, _ y: Double) -> Double {
        var total = 0.0
        var last = (x: x, y: y)
        for i in 1...64 {
            let t = startTime + (endTime - startTime) * Double(i) / 64
            let p = position(at: t, from: x, y)
            total += ((p.x - last.x) * (p.x - last.x) + (p.y - last.y) * (p.y - last.y)).squareRoot()
            last = p
        }
        return total
    }
}

extension Press {
    /// Where the finger is at `t`: the landing position, or along the slide's path.
    public func position(at t: Double) -> (x: Double, y: Double) {
        guard let path else { return (x, y) }
        return path.position(at: t, from: x, y)
    }
}
