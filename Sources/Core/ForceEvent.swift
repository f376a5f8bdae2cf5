/// What happened: a gesture transition or a change in sensor health.
public enum EventKind: UInt8, Equatable, BitwiseCopyable, Sendable, CaseIterable {
    /// The force rose through the peek level: preview.
    case peek
    /// The force rose through the pop level while peeking: commit.
    case pop
    /// The force fell well below the peek level, or the sensor failed mid-press.
    case release
    /// A peek was held past the hold time without popping (the touch-and-hold route).
    case hold
    /// A force channel has sat on a rail of its format for several scans.
    case saturated
    /// The force channels have repeated the same raw values for the stuck time.
    case stuck
    /// The sensor could not be read (device gone or repeated timeouts).
    case lost
    /// Every fault reported before has cleared.
    case recovered


    /// Peek, pop and release: the transitions that labels describe and scoring counts.
    public var isTransition: Bool { self == .peek || self == .pop || self == .release }
    /// Saturated, stuck, lost and recovered.
    public var isHealth: Bool { rawValue >= EventKind.saturated.rawValue }
}

/// One decision of the classifier, with its accounting.
public struct ForceEvent: Equatable, BitwiseCopyable, Sendable {
    /// What was decided.
    public var kind: EventKind
    /// 0-based index of the scan at which it was decided.
    public var sample: Int64
    /// That scan's timestamp in nanoseconds (synthesised from the rate when the scan has none).
    public var timestampNs: Int64
    /// The conditioned force (newtons above baseline) at the decision.
    public var forceNewtons: Float
    /// Scans from the first scan that crossed the level to the decision.
    public var latencyScans: Int32
    /// Nanoseconds from the first scan that crossed the level to the decision.
    public var latencyNs: Int64
    /// Where on a multi-cell panel the press was at the decision (the centre
    /// of pressure, plate units); nil on a panel without cell positions and on health events.
    public var position: PlatePoint?

    /// Creates an event.
    public init(kind: EventKind, sample: Int64, timestampNs: Int64, forceNewtons: Float,
                latencyScans: Int32 = 0, latencyNs: Int64 = 0, position: PlatePoint? = nil) {
        self.kind = kind
        self.sample = sample
        self.timestampNs = timestampNs
        self.forceNewtons = forceNewtons
        self.latencyScans = latencyScans
        self.latencyNs = latencyNs
        self.position = position
    }
}

/// The ring events are written into; the consumer drains it after each buffer.
public typealias EventRing = Ring<64, ForceEvent>

extension Ring where Element == ForceEvent {
    /// An empty event ring.
    public init() {
        self.init(filler: ForceEvent(kind: .peek, sample: 0, timestampNs: 0, forceNewtons: 0))
    }
}
