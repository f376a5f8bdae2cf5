/// The start of the current run of scans past one level, for latency
/// accounting: an event's latency is counted from the scan its level was
/// first crossed on, by the raw reading.
@usableFromInline
internal struct LevelCrossing: Equatable, BitwiseCopyable, Sendable {
    @usableFromInline var active = false
    @usableFromInline var sample: Int64 = 0
    @usableFromInline var timestampNs: Int64 = 0

    @inlinable init() {}

    /// One scan (or a run of scans) on which the reading is `past` the level
    /// throughout, the first of them at `sample`.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func update(_ past: Bool, sample: Int64, timestampNs: Int64) {
        if past && !active {
            self.sample = sample
            self.timestampNs = timestampNs
        }
        active = past
    }
}

/// Which side of the peek, pop and release levels a reading is on.
@usableFromInline
internal typealias LevelSides = (peek: Bool, pop: Bool, release: Bool)

/// Debounce and hysteresis: a level counts as crossed once the filtered
/// reading has stayed past it `pressScans` (peek, pop) or `releaseScans`
/// (release) scans in a row, and after a change of state the locks keep the
/// next one off for `pressLockScans` / `releaseLockScans` scans, so that a
/// reading wavering about a level yields one event, not a chatter. The raw
/// reading's crossings time each event's latency from the scan the level was
/// first crossed on.
///
/// The scan form is ``advance(crossing:runs:scans:sample:timestampNs:)`` with
/// `scans` 1; the block form is the same call over a run of scans on which
/// every condition holds throughout (the fast path's blocks and runs): a run
/// grows by the scans, a lock counts them down, a crossing keeps the first.
@usableFromInline
internal struct LevelDebounce: Equatable, BitwiseCopyable, Sendable {
    /// Scans in a row with the filtered reading at or past peek, at or past
    /// pop, and below the release level.
    @usableFromInline var peekRun: Int32 = 0
    @usableFromInline var popRun: Int32 = 0
    @usableFromInline var releaseRun: Int32 = 0
    /// Scans left before a peek may follow a release, and before a release
    /// may follow a peek or pop.
    @usableFromInline var pressLock: Int32 = 0
    @usableFromInline var releaseLock: Int32 = 0
    /// The raw reading's crossings of the three levels.
    @usableFromInline var peekCrossing = LevelCrossing()
    @usableFromInline var popCrossing = LevelCrossing()
    @usableFromInline var releaseCrossing = LevelCrossing()

    @inlinable init() {}

    /// `scans` scans from `sample` on each of which the raw reading's sides
    /// are `crossing` and the filtered reading's `runs` throughout.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func advance(crossing: LevelSides, runs: LevelSides, scans n: Int32, sample: Int64, timestampNs: Int64) {
        advanceRuns(crossing: crossing, runs: runs, scans: n, sample: sample, timestampNs: timestampNs)
        pressLock = _max(0, pressLock &- n)
        releaseLock = _max(0, releaseLock &- n)
    }

    /// The crossings and the runs of ``advance(crossing:runs:scans:sample:timestampNs:)``, the locks left.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func advanceRuns(crossing: LevelSides, runs: LevelSides, scans n: Int32, sample: Int64, timestampNs: Int64) {
        peekCrossing.update(crossing.peek, sample: sample, timestampNs: timestampNs)
        popCrossing.update(crossing.pop, sample: sample, timestampNs: timestampNs)
        releaseCrossing.update(crossing.release, sample: sample, timestampNs: timestampNs)
        peekRun = runs.peek ? peekRun &+ n : 0
        popRun = runs.pop ? popRun &+ n : 0
        releaseRun = runs.release ? releaseRun &+ n : 0
    }

    /// ``advance(crossing:runs:scans:sample:timestampNs:)`` where the raw and
    /// the filtered reading are on the same sides throughout (a block the
    /// fast path takes whole); the locks are counted down only where one runs
    /// (both are 0 on a quiet panel, and `max(0, 0 - n)` is 0: the same values).
    @_alwaysEmitIntoClient @inline(__always)
    mutating func advance(sides c: LevelSides, scans n: Int32, sample: Int64, timestampNs: Int64) {
        advanceRuns(crossing: c, runs: c, scans: n, sample: sample, timestampNs: timestampNs)
        if pressLock | releaseLock != 0 {
            pressLock = _max(0, pressLock &- n)
            releaseLock = _max(0, releaseLock &- n)
        }
    }

    /// One scan with both readings below the release level, so below peek
    /// and pop too (validated: release <= peek < pop): the scan form for
    /// that case, decided by the caller's two comparisons.
    @_alwaysEmitIntoClient @inline(__always)
    mutating func belowRelease(sample: Int64, timestampNs: Int64) {
        peekCrossing.active = false
        popCrossing.active = false
        releaseCrossing.update(true, sample: sample, timestampNs: timestampNs)
        peekRun = 0
        popRun = 0
        releaseRun &+= 1
        pressLock = _max(0, pressLock &- 1)
        releaseLock = _max(0, releaseLock &- 1)
    }

    /// After a sensor fault: runs and locks start afresh (the crossings are
    /// kept; the next scan sets each).
    @inlinable
    mutating func restart() {
        peekRun = 0
        popRun = 0
        releaseRun = 0
        pressLock = 0
        releaseLock = 0
    }
}
