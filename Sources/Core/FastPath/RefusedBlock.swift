// A block the block step refused, taken in runs of scans in closed form up
// to each scan that may decide something, which alone is stepped. Host-only
// (Classifier.blockPathEnabled).
#if !(hasFeature(Embedded) && (arch(arm) || arch(riscv32)))
extension Classifier {
    /// A block ``stepBlock(older:previous:forces:firstSample:firstTimestampNs:)``
    /// refused, exactly as `step` takes its scans one by one: each run of
    /// scans up to the next that can change a crossing, a debounce run or the
    /// state (a reading across a level, a hold due) is taken in closed form,
    /// and only that scan is stepped. The block's readings, filtered, and each
    /// scan's conditions are computed once. Out of line, so that the quiet
    /// block's code stays as it was. `stamps` holds the block's 16 timestamps.
    /// - Precondition: `older[0]` and `previous[0]` are the last two readings
    ///   stepped, the block starts a baseline block and the event ring has
    ///   room for two events a scan.
    @usableFromInline @inline(never)
    internal mutating func _stepRefused(older a: SIMD16<Float>, previous b: SIMD16<Float>, forces c: SIMD16<Float>,
                                        stamps: UnsafePointer<Int64>, firstSample: Int64, into events: inout EventRing) {
        var j = 0
        if Classifier.blockPathEnabled && _blockFill == 0 && _history >= 2 && !_suspended && _parameters.spikeRejection
            && _parameters.baselineEnabled {
            let p = _parameters
            // Every scan's readings as `step` computes them (the median as `_stepBlock` writes it).
            let filtered = p.spikeIsolated ? _isolatedFilter(a, b, c) : SpikeFilter.median(a, b, c)
            // The spikes `step` counts (the same comparisons as `_spikesCounted`), per scan.
            let moved = SIMD16<Float>._abs(filtered - b) .> SIMD16<Float>(repeating: p.spikeSize)
            let apart = SIMD16<Float>._abs(a - c) .< SIMD16<Float>._abs(b - a)
            let spikes = Classifier._prefixBits(moved .& apart)
            // The block's readings: `step` stores the same ones again at the scans it takes.
            withUnsafeMutableBytes(of: &_block) { $0.storeBytes(of: filtered, as: SIMD16<Float>.self) }
            // The lanes the runs read, in memory once (passed by value, the
            // vectors were copied through the stack at every run): the readings
            // one scan before, the readings, the filtered ones (less the
            // baseline below) and each scan's conditions.
            var lanes = (b, c, filtered, SIMD16<Float>())
            let changes = withUnsafeMutableBytes(of: &lanes) { raw in
                // Each scan's conditions, as `step` computes them, one bit each
                // (see `_stepRun`), four scans at a time, so that LLVM keeps
                // the temporaries in registers (in 16 lanes it spills them).
                let base = SIMD4<Float>(repeating: _baseline)
                let peek = SIMD4<Float>(repeating: p.peek), pop = SIMD4<Float>(repeating: p.pop)
                let release = SIMD4<Float>(repeating: _releaseLevel)  // as `step` (constant within a baseline block)
                let under = SIMD4<Float>(repeating: p.underTouchBand), band = SIMD4<Float>(repeating: p.touchBand)
                @inline(__always) func bits(_ m: SIMDMask<SIMD4<Int32>>, _ weight: Int32) -> SIMD4<Int32> {
                    unsafeBitCast(m, to: SIMD4<Int32>.self) & SIMD4<Int32>(repeating: weight)
                }
                var q = 0
                while q < 4 {
                    let x = raw.load(fromByteOffset: 64 &+ q &* 16, as: SIMD4<Float>.self) - base
                    let y = raw.load(fromByteOffset: 128 &+ q &* 16, as: SIMD4<Float>.self) - base
                    raw.storeBytes(of: y, toByteOffset: 128 &+ q &* 16, as: SIMD4<Float>.self)
                    let code = bits(x .>= peek, 1) | bits(x .>= pop, 2) | bits(x .< release, 4)
                        | bits(y .>= peek, 8) | bits(y .>= pop, 16) | bits(y .< release, 32)
                        | bits(_laneMin(x, y) .< under, 64) | bits(y .< band, 128)
                    raw.storeBytes(of: code, toByteOffset: 192 &+ q &* 16, as: SIMD4<Int32>.self)
                    q &+= 1
                }
                // Bit l where scan l's conditions differ from scan l-1's: a run ends before it.
                let code = raw.load(fromByteOffset: 192, as: SIMD16<Int32>.self)
                let before = raw.loadUnaligned(fromByteOffset: 188, as: SIMD16<Int32>.self)
                return Classifier._prefixBits(code .!= before)
            }
            withUnsafeBytes(of: &lanes) { raw in
                let lanes = raw.baseAddress!
                while j < Classifier.blockScans {
                    let k = _stepRun(from: j, lanes: lanes, changes: changes, spikes: spikes, stamps: stamps, firstSample: firstSample)
                    if k > 0 {
                        j &+= k
                        continue
                    }
                    // A scan that may decide something.
                    step(force: lanes.load(fromByteOffset: 64 &+ j &* 4, as: Float.self),
                         sample: firstSample &+ Int64(truncatingIfNeeded: j), timestampNs: stamps[j], into: &events)
                    j &+= 1
                }
            }
            return
        }
        while j < Classifier.blockScans {
            step(force: c[j], sample: firstSample &+ Int64(truncatingIfNeeded: j), timestampNs: stamps[j], into: &events)
            j &+= 1
        }
    }

    /// ``_stepRefused(older:previous:forces:stamps:firstSample:into:)`` for
    /// the block at `forces + i` of a batch (`timestamps + i` its stamps), its
    /// window read again here, so that the batch loop holds no vector across
    /// the block step for it.
    @usableFromInline @inline(never)
    internal mutating func _stepRefused(_ forces: UnsafePointer<Float>, at i: Int, timestamps: UnsafePointer<Int64>,
                                        firstSample: Int64, into events: inout EventRing) {
        let (a, b, c) = _withWindow(forces, at: i) { Classifier._windowReadings($0) }
        _stepRefused(older: a, previous: b, forces: c, stamps: timestamps + i, firstSample: firstSample &+ Int64(i), into: &events)
    }

    /// Scans `j`, `j + 1`, ... of a refused block in closed form, exactly as
    /// `step` would leave them (the block's end too, where the run reaches
    /// it), up to the first whose conditions differ from scan j's
    /// (`changes`) or a hold due; returns
    /// how many (0 where scan j itself may decide something). `lanes` holds
    /// four 16-lane vectors: the readings one scan before each scan, the
    /// scans' readings, the filtered ones less the baseline and each scan's
    /// conditions (`Int32`; bits 0-2: the raw reading less the baseline at or
    /// past peek, at or past pop, below release; 3-5: the filtered one's; 6:
    /// either below the touch band under zero; 7: the filtered one at rest);
    /// `spikes` the scans whose spike `step` counts.
    @inlinable @inline(__always)
    internal mutating func _stepRun(from j: Int, lanes: UnsafeRawPointer, changes: UInt32, spikes: UInt32,
                                    stamps: UnsafePointer<Int64>, firstSample: Int64) -> Int {
        let p = _parameters
        @inline(__always) func lane(_ vector: Int, _ k: Int) -> Float {
            lanes.load(fromByteOffset: vector &* 64 &+ k &* 4, as: Float.self)
        }
        let code = lanes.load(fromByteOffset: 3 &* 64 &+ j &* 4, as: Int32.self)
        // What `_decide` does over the run: nothing, where it is not called
        // (idle below the peek level) or can raise nothing (peeking below pop
        // and above release, popped above release, the debounce runs being at
        // least one scan), apart from the hold, followed below. FSR creep
        // compensation moves the readings the levels see on every scan not
        // wholly below the release level, until the pop: per scan. The creep
        // allowance alone raises only the pop level, never below `pop`:
        // followed at the run's end (`_creepRun`).
        switch _state {
        case .idle: if code & 8 != 0 { return 0 }
        case .peeking: if _letGoArmed || code & (16 | 32) != 0 { return 0 }
        case .popped: if _letGoArmed || code & 32 != 0 { return 0 }
        }
        if p.creepRules && _creepStepped(code) { return 0 }
        // Up to the next change after scan j, or the block's end.
        let after = changes & ~((2 &<< UInt32(truncatingIfNeeded: j)) &- 1)
        var k = (after | 0x1_0000).trailingZeroBitCount &- j
        if k <= 0 { return 0 }
        let firstRun = firstSample &+ Int64(truncatingIfNeeded: j)
        if _state == .peeking && p.holdScans > 0 && !_hold.done {
            // The hold's reference scan by scan, as `_decide` moves it; the run
            // ends before a scan where the hold would fire.
            k = _hold.follow({ lane(2, j &+ $0) }, from: 0, upTo: k, firstSample: firstRun, peekSample: _peekSample,
                             rise: p.holdRise, holdScans: p.holdScans, settleScans: p.holdSettleScans)
            if k == 0 { return 0 }
        }
        // Commit what `step` leaves after the run's k scans.
        let last = j &+ k &- 1
        let run = ((1 &<< UInt32(truncatingIfNeeded: k)) &- 1) &<< UInt32(truncatingIfNeeded: j)
        let lastSample = firstSample &+ Int64(truncatingIfNeeded: last)
        if spikes & run != 0 { _spikesRejected &+= Int64((spikes & run).nonzeroBitCount) }
        _older = lane(0, last)
        _previous = lane(1, last)
        _lastForce = lane(2, last)
        if code & 64 != 0 { _undershootSample = lastSample }
        // The last scan at rest and the rise's shape (see `step`).
        if code & 128 != 0 {
            _rise.rested(at: lastSample, force: _lastForce)
        } else {
            // Idle above the touch band: the let-go rule's rest (`step`'s).
            if _state == .idle { _restLow = _lowestLane(lanes, vector: 2, from: j, upTo: j &+ k, plus: _baseline, below: _restLow) }
            // No scan at rest: only the scans `m` and `2m` after the last one count.
            let m = p.vibrationCurveScans
            let since = firstRun &- _rise.restSample
            if m > 0 && since <= 2 &* m && since &+ Int64(truncatingIfNeeded: k &- 1) >= m {
                _followRise(lanes.loadUnaligned(fromByteOffset: 2 &* 64, as: SIMD16<Float>.self), from: j, upTo: j &+ k,
                            firstSample: firstSample)
            }
        }
        if p.creepRules { _creepRun(lanes + 2 &* 64, from: j, upTo: j &+ k, code: code) }
        let n = Int32(truncatingIfNeeded: k)
        _debounce.advance(crossing: (code & 1 != 0, code & 2 != 0, code & 4 != 0),
                 runs: (code & 8 != 0, code & 16 != 0, code & 32 != 0),
                 scans: n, sample: firstRun, timestampNs: stamps[j])
        // The readings are in the block already; whether a press was in progress at them.
        if _state != .idle { _blockBusy |= run }
        _fillBlock(scans: n)
        #if DEBUG
        _checkInvariants()
        #endif
        return k
    }

    /// A 16-lane mask as bits, bit k for lane k, as `_stepRun` needs them:
    /// each lane's weight as a float (1, 2, 4, ...) kept where the mask is set
    /// and summed (distinct powers of two below 2^16: exact in any order).
    /// `_laneBits` was lowered lane by lane there, some 90 instructions a mask.
    @inlinable @inline(__always)
    internal static func _prefixBits(_ m: SIMDMask<SIMD16<Int32>>) -> UInt32 {
        let weights = unsafeBitCast(_laneWeightsFloat, to: SIMD16<Int32>.self)
        return UInt32(_sum16(unsafeBitCast(_laneMask(m) & weights, to: SIMD16<Float>.self)))
    }

    /// `below` lowered to lanes `from..<upTo` of the 16-lane vector `vector`
    /// at `lanes`, each plus `plus` (the filtered readings less the baseline,
    /// back to newtons as `step` keeps them).
    @usableFromInline @inline(never)
    internal func _lowestLane(_ lanes: UnsafeRawPointer, vector: Int, from: Int, upTo: Int, plus: Float,
                              below: Float) -> Float {
        var low = below
        var k = from
        while k < upTo {
            low = Float._min(low, lanes.load(fromByteOffset: vector &* 64 &+ k &* 4, as: Float.self) + plus)
            k &+= 1
        }
        return low
    }

    /// The last scan at rest, its reading and the rise's shape over scans
    /// `from..<upTo` of a block, scan by scan as `step` moves them.
    @usableFromInline @inline(never)
    internal mutating func _followRise(_ y: SIMD16<Float>, from: Int, upTo: Int, firstSample: Int64) {
        _rise.observe({ y[$0] }, from: from, upTo: upTo, firstSample: firstSample, touchBand: _parameters.touchBand,
                      curveScans: _parameters.vibrationCurveScans)
    }
}

/// Lane k's bit, 2^k, as floats, a tuple of literals (constant data, no lazy global).
@usableFromInline internal let _laneWeightsFloat: (Float, Float, Float, Float, Float, Float, Float, Float,
                                                   Float, Float, Float, Float, Float, Float, Float, Float) =
    (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
#endif
