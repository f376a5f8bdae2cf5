import Synchronization
import ForceStageCore
import ForceStageGestures

/// An event on its way from the classifier to the sinks, with what the sinks
/// need to measure its latency.
public struct ServiceEvent: BitwiseCopyable, Sendable {
    /// The classifier's event (sample index already offset across reloads).
    public var event: ForceEvent
    /// CLOCK_MONOTONIC arrival of the refill holding the deciding scan; 0 when not decided on a scan.
    public var arrivalNs: Int64
    /// Whether the deciding scan's own timestamp is on CLOCK_MONOTONIC (then the kernel's wait is measured too).
    public var monotonicStamp: Bool
    /// Marks the end of the stream (no event).
    public var isEnd: Bool
    /// With the gesture layer on, what it made of the event (`event` is then its press event, or carries only its sample).
    public var gesture: GestureRecord?

    /// An event for the sinks.
    public init(event: ForceEvent, arrivalNs: Int64, monotonicStamp: Bool, isEnd: Bool = false, gesture: GestureRecord? = nil) {
        self.event = event
        self.arrivalNs = arrivalNs
        self.monotonicStamp = monotonicStamp
        self.isEnd = isEnd
        self.gesture = gesture
    }
}

/// Where the service stands, as `status` reports it.
public enum ServiceHealth: Int, Sendable {
    /// Opened, no scan yet; streaming; sensor lost (reconnecting); ending.
    case starting = 0, streaming, lost, stopping

    /// The word `status` prints.
    public var name: String {
        switch self {
        case .starting: return "starting"
        case .streaming: return "streaming"
        case .lost: return "lost"
        case .stopping: return "stopping"
        }
    }
}

/// Counters shared by the reader, classifier and sink threads: each is written
/// by one thread and read by the others, relaxed (a status snapshot need not be
/// a consistent cut, only monotonic per counter).
public final class ServiceCounters: Sendable {
    /// Scans the classifier processed.
    public let scans = Atomic<Int64>(0)
    /// Scans the timestamps say the kernel or the driver lost (gaps).
    public let droppedScans = Atomic<Int64>(0)
    /// Scans the reader refilled.
    public let scansRead = Atomic<Int64>(0)
    /// Refills.
    public let refills = Atomic<Int64>(0)
    /// Events the classifier decided.
    public let events = Atomic<Int64>(0)
    /// Events the classifier's own ring refused.
    public let classifierOverflows = Atomic<Int64>(0)
    /// Press-to-event latencies over the budget.
    public let budgetViolations = Atomic<Int64>(0)
    /// Times the sensor was lost.
    public let losses = Atomic<Int64>(0)
    /// Profile reloads applied.
    public let reloads = Atomic<Int64>(0)
    /// Profile reloads refused (the old profile stayed).
    public let reloadFailures = Atomic<Int64>(0)
    /// ``ServiceHealth`` raw value.
    public let health = Atomic<Int>(ServiceHealth.starting.rawValue)

    /// All zero, health `starting`.
    public init() {}

    /// The health now.
    public var healthState: ServiceHealth { ServiceHealth(rawValue: health.load(ordering: .relaxed)) ?? .starting }
    /// Sets the health.
    public func setHealth(_ h: ServiceHealth) { health.store(h.rawValue, ordering: .relaxed) }
}
