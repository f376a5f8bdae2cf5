/// The hold timer: a peek held steady becomes a `hold` (the touch-and-hold
/// route for people who press lightly and wait). It fires once per press,
/// `holdScans` after the peek and `holdSettleScans` after the force last
/// climbed by more than `holdRise` above its reference: a press still rising
/// toward pop is on its way to pop, not held, so each such climb restarts the
/// settle clock.
///
/// The scan form is ``follow(_:sample:rise:)`` then ``due(sample:peekSample:holdScans:settleScans:)``;
/// the block form, ``follow(_:from:upTo:firstSample:peekSample:rise:holdScans:settleScans:)``,
/// takes scans of a run up to the first on which the hold would be due.
@usableFromInline
internal struct HoldTimer: Equatable, BitwiseCopyable, Sendable {
    /// The highest level the press settled at, and the scan it got there.
    @usableFromInline var reference: Float = 0
    @usableFromInline var referenceSample: Int64 = 0
    /// Whether this press's hold has fired.
    @usableFromInline var done = false

    @inlinable init() {}

    /// A peek at `sample`, reading `y`: the timer starts.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func start(_ y: Float, sample: Int64) {
        done = false
        reference = y
        referenceSample = sample
    }

    /// A scan's reading `y` (the filtered force less the baseline): a climb
    /// past the reference by more than `rise` restarts the settle clock.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func follow(_ y: Float, sample: Int64, rise: Float) {
        if y > reference + rise {
            reference = y
            referenceSample = sample
        }
    }

    /// Whether the hold is due at `sample`: the hold time since the peek and
    /// the settle time since the last climb have passed.
    @_alwaysEmitIntoClient @inline(__always)
    func due(sample: Int64, peekSample: Int64, holdScans: Int64, settleScans: Int64) -> Bool {
        sample &- peekSample >= holdScans && sample &- referenceSample >= settleScans
    }

    /// The block form: the scans `from..<upTo` of a run (scan k at
    /// `firstSample + k`, reading `y(k)`) followed as the scan form follows
    /// them, up to the first on which the hold would be due, which is left
    /// untaken (the scan form decides it). Returns how many were taken.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func follow(_ y: (Int) -> Float, from: Int, upTo: Int, firstSample: Int64, peekSample: Int64,
                         rise: Float, holdScans: Int64, settleScans: Int64) -> Int {
        var k = from
        while k < upTo {
            var next = self
            let sample = firstSample &+ Int64(truncatingIfNeeded: k)
            next.follow(y(k), sample: sample, rise: rise)
            if next.due(sample: sample, peekSample: peekSample, holdScans: holdScans, settleScans: settleScans) { break }
            self = next
            k &+= 1
        }
        return k &- from
    }
}
