extension Classifier {
    /// Classifies up to `count` consecutive scans, taking quiet blocks whole;
    /// returns how many it took.
    ///
    /// It stops early rather than let the event ring overflow: drain `events`
    /// and call again with the rest. The events and state are exactly those of
    /// calling ``step(force:sample:timestampNs:into:)`` for each scan in turn.
    /// - Complexity: O(count), no allocation.
    @inlinable
    public mutating func step(forces: UnsafePointer<Float>, timestamps: UnsafePointer<Int64>, count: Int,
                              firstSample: Int64, into events: inout EventRing) -> Int {
        var i = 0
        let n = Classifier.blockScans
        while i < count {
            if Classifier.blockPathEnabled && _blockFill == 0 && count - i >= n {
                // A block may raise up to two events a scan: it waits for a drained ring.
                if !events.isEmpty { break }
                // Taken whole where nothing in it can decide, otherwise in runs up
                // to each scan that may (the events and state of `step` for each).
                _takeBlock(forces, at: i, timestamps: timestamps, firstSample: firstSample, into: &events)
                i &+= n
                continue
            }
            guard EventRing.capacityCount - events.count >= Classifier.maximumEventsPerStep else { break }
            step(force: forces[i], sample: firstSample &+ Int64(i), timestampNs: timestamps[i], into: &events)
            i &+= 1
        }
        return i
    }

    /// The fast path: takes a whole block of ``blockScans`` scans at once
    /// when nothing in it can change the state or emit an event, and
    /// returns false (having changed nothing) otherwise.
    ///
    /// - Parameters:
    ///   - older: the readings two scans before each of the block's scans.
    ///   - previous: the readings one scan before each of the block's scans.
    ///   - forces: the block's readings.
    /// - Precondition: `older[0]` and `previous[0]` are the last two readings stepped.
    @inlinable
    public mutating func stepBlock(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                   firstSample: Int64, firstTimestampNs: Int64) -> Bool {
        // Where the block path is off (Classifier.blockPathEnabled): never taken.
        guard Classifier.blockPathEnabled else { return false }
        return _takeBlock(older: a, previous: b, forces: c, firstSample: firstSample, firstTimestampNs: firstTimestampNs)
    }
}
