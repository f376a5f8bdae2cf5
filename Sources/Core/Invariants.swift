// Debug-only consistency checks of the hot state. In a release build they
// compile to nothing; in a debug build the scan step and the block path call
// them after every scan or block, and a broken invariant traps with a plain message.

extension Ring {
    /// Checks the ring's bookkeeping: the head inside the storage, the count within capacity.
    @inlinable
    public func _checkInvariants() {
        #if DEBUG
        precondition(_head >= 0 && _head < capacity, "Ring: head outside the storage")
        precondition(_count >= 0 && _count <= capacity, "Ring: count outside 0...capacity")
        #endif
    }
}

extension Classifier {
    /// Checks the classifier's state: counters in range, the block fill aligned, no press while suspended.
    @inlinable
    public func _checkInvariants() {
        #if DEBUG
        precondition(_history >= 0 && _history <= 2, "Classifier: filter history outside 0...2")
        precondition(_blockFill >= 0 && _blockFill < Int32(Classifier.blockScans), "Classifier: block fill outside the block")
        precondition(_debounce.peekRun >= 0 && _debounce.popRun >= 0 && _debounce.releaseRun >= 0, "Classifier: a negative debounce run")
        precondition(_debounce.pressLock >= 0 && _debounce.releaseLock >= 0, "Classifier: a negative lock")
        precondition(_quietScans >= 0 && _lowScans >= 0, "Classifier: a negative quiet or low count")
        precondition(!_suspended || _state == .idle, "Classifier: a press in progress while suspended")
        precondition(_noise >= 0 && _noise.isFinite, "Classifier: noise negative or not finite")
        precondition(_baseline.isFinite, "Classifier: baseline not finite")
        precondition(_releaseLevel.isFinite && _releaseLevel >= _parameters.release && _releaseLevel <= _parameters.peek,
                     "Classifier: release level outside release...peek")
        #endif
    }
}

extension ForcePipeline {
    /// Checks the pipeline's state: one sample per counted scan, scores in
    /// range, and a stuck sensor never classified (the classifier checks its own state in its step).
    @inlinable
    public func _checkInvariants() {
        #if DEBUG
        precondition(_counters.scans == _nextSample, "ForcePipeline: scans counted differ from scans numbered")
        precondition(_scan.stuckRun >= 0 && _saturatedRun >= 0, "ForcePipeline: a negative run")
        precondition(_scan.changeScore >= 0 && _scan.changeScore <= _ScanState.scoreCeiling
                        && _scan.restScore >= 0 && _scan.restScore <= _ScanState.scoreCeiling,
                     "ForcePipeline: a health score outside its range")
        precondition(!_stuck || _classifier._suspended, "ForcePipeline: stuck but classifying")
        #endif
    }
}
