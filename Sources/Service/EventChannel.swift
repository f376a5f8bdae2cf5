import Synchronization
import ForceStageCore
import ForceStageIIO
#if canImport(Glibc)
import Glibc
#endif

/// The one ring between the scan thread and the sink thread: the core's `Ring`
/// (the same head/count/overflow bookkeeping the classifier uses) behind a
/// `Mutex`, and a ``SelfPipe`` that wakes the sink thread's `poll` (signals use it too).
///
/// The lock is held only to copy events in or out, never across a system call;
/// the scan thread takes it once per refill that decided events (most refills
/// decide none), the sink thread once per wake-up. A full ring refuses and counts.
final class EventChannel: Sendable {
    /// Events the scan thread may be ahead of the sinks.
    static let capacity = 1024
    private let ring = Mutex(Ring<1024, ServiceEvent>(filler: ServiceEvent.end))
    /// Readable when events (or the end, or a signal) are waiting; the sink thread polls it.
    let wakeUp: SelfPipe
    var wakeFD: Int32 { wakeUp.readFD }

    /// `nil` when out of file descriptors.
    init?() {
        guard let pipe = SelfPipe() else { return nil }
        wakeUp = pipe
    }

    /// Events a push refused because the ring was full.
    var overflows: Int { Int(ring.withLock { $0.overflowCount }) }

    /// Moves every event of `events` into the ring (what does not fit is refused and counted),
    /// offsetting sample numbers by `sampleBase`, then wakes the sinks. Scan thread only.
    /// - Returns: how many events were offered.
    func push(_ events: inout EventRing, sampleBase: Int64, arrivalNs: Int64, monotonic: Bool) -> Int {
        var n = 0
        ring.withLock { ring in
            while var e = events.popFirst() {
                e.sample &+= sampleBase
                ring.pushLast(ServiceEvent(event: e, arrivalNs: arrivalNs, monotonicStamp: monotonic))
                n &+= 1
            }
        }
        if n > 0 { wake() }
        return n
    }

    /// Moves every staged event into the ring under one lock (what does not fit is
    /// refused and counted), then wakes the sinks. Scan thread only.
    /// - Returns: how many events were offered.
    func push<let n: Int>(staged: inout Ring<n, ServiceEvent>) -> Int {
        var count = 0
        ring.withLock { ring in
            while let e = staged.popFirst() {
                ring.pushLast(e)
                count &+= 1
            }
        }
        if count > 0 { wake() }
        return count
    }

    /// Pushes the end marker, waiting for room: the end is never dropped.
    func pushEnd() {
        while !ring.withLock({ $0.isFull ? false : $0.pushLast(.end) == nil }) {
            wake()
            usleep(1000)
        }
        wake()
    }

    /// Takes the oldest event, if any. Sink thread only.
    func pop() -> ServiceEvent? { ring.withLock { $0.popFirst() } }

    /// Wakes the sink thread (one byte into the pipe).
    func wake() { wakeUp.signal() }

    /// Clears the wake-up after `poll` said readable. Sink thread only.
    func clearWake() { wakeUp.clear() }
}

extension ServiceEvent {
    /// The end of the stream: no event follows.
    static let end = ServiceEvent(event: ForceEvent(kind: .release, sample: 0, timestampNs: 0, forceNewtons: 0),
                                  arrivalNs: 0, monotonicStamp: false, isEnd: true)
}
