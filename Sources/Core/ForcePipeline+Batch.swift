/// Where the batch entry point puts events: a value the caller owns (a
/// ring towards another thread, a counter, a socket queue). Generic, not an
/// existential, so a call through it is a direct, inlinable call.
public protocol ForceEventSink {
    /// Takes one event, in the order the pipeline decided them.
    mutating func take(_ event: ForceEvent)
}

extension Ring where Element == ForceEvent {
    /// Moves every event into `sink`, oldest first.
    @inlinable
    public mutating func drain<Sink: ForceEventSink>(into sink: inout Sink) {
        while let event = popFirst() { sink.take(event) }
    }
}

extension ForcePipeline {
    /// Processes every whole scan of one refill in a single call, putting the
    /// events into `sink`; returns the number of scans consumed (a trailing
    /// partial scan is left for the caller).
    ///
    /// Quiet blocks of ``Classifier/blockScans`` scans take the block path;
    /// the events, counters and state are exactly those of
    /// ``process(scan:into:)`` for each scan. `events` is the staging ring the
    /// steps write into (kept by the caller, so the call needs no 3 KB of
    /// stack for one); it is drained into `sink` before the call returns,
    /// including whatever it held on entry.
    /// - Complexity: O(scans × force channels), no allocation.
    @inlinable
    public mutating func consume<Sink: ForceEventSink>(block bytes: UnsafeRawBufferPointer, events: inout EventRing,
                                                       into sink: inout Sink) -> Int {
        let size = layout.scanSize
        events.drain(into: &sink)
        var offset = 0
        while bytes.count &- offset >= size {
            // With a drained ring every call takes at least one scan.
            offset &+= process(scans: UnsafeRawBufferPointer(rebasing: bytes[offset...]), into: &events)
            events.drain(into: &sink)
        }
        return offset / size
    }

    /// ``sensorLost(timestampNs:into:)`` with the events put into `sink`.
    @inlinable
    public mutating func sensorLost<Sink: ForceEventSink>(timestampNs: Int64, events: inout EventRing, into sink: inout Sink) {
        sensorLost(timestampNs: timestampNs, into: &events)
        events.drain(into: &sink)
    }

    /// ``finish(into:)`` with the events put into `sink`.
    @inlinable
    public mutating func finish<Sink: ForceEventSink>(events: inout EventRing, into sink: inout Sink) {
        finish(into: &events)
        events.drain(into: &sink)
    }
}
