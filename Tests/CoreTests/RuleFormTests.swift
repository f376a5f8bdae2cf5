import Testing
@testable import ForceStageCore

/// Each rule's block form against 16 calls of its own scan form, from random
/// states and readings: the whole state compared with `==` (floats bit for
/// bit), so a branch of a block form that drifts from its scan form fails here
/// before it shows in an event stream.
@Suite("Rule forms")
struct RuleFormTests {
    static let cases = 4000
    static let scans = 16

    static func float(_ rng: inout SplitMix, _ range: ClosedRange<Float>) -> Float {
        range.lowerBound + Float(rng.next() >> 40) / Float(1 << 24) * (range.upperBound - range.lowerBound)
    }
    static func int(_ rng: inout SplitMix, _ below: Int64) -> Int64 { Int64(rng.next() % UInt64(max(below, 1))) }
    static func bool(_ rng: inout SplitMix) -> Bool { rng.next() & 1 == 0 }

    static func crossing(_ rng: inout SplitMix) -> LevelCrossing {
        var c = LevelCrossing()
        c.active = bool(&rng)
        c.sample = int(&rng, 1000)
        c.timestampNs = int(&rng, 1_000_000)
        return c
    }

    static func debounce(_ rng: inout SplitMix) -> LevelDebounce {
        var d = LevelDebounce()
        d.peekRun = Int32(int(&rng, 40))
        d.popRun = Int32(int(&rng, 40))
        d.releaseRun = Int32(int(&rng, 40))
        // Locks often 0 (a quiet panel), otherwise on either side of a block's length.
        d.pressLock = bool(&rng) ? 0 : Int32(int(&rng, 40))
        d.releaseLock = bool(&rng) ? 0 : Int32(int(&rng, 40))
        d.peekCrossing = crossing(&rng)
        d.popCrossing = crossing(&rng)
        d.releaseCrossing = crossing(&rng)
        return d
    }

    @Test("Debounce: a run of 16 scans in one step is 16 scan steps")
    func debounceBlock() {
        var rng = SplitMix(seed: 0xD3B0_0001)
        for _ in 0..<Self.cases {
            let start = Self.debounce(&rng)
            let crossing: LevelSides = (Self.bool(&rng), Self.bool(&rng), Self.bool(&rng))
            let runs: LevelSides = (Self.bool(&rng), Self.bool(&rng), Self.bool(&rng))
            let sample = Self.int(&rng, 100_000), stamp = Self.int(&rng, 1 << 40)
            var scanned = start
            for k in 0..<Self.scans {
                scanned.advance(crossing: crossing, runs: runs, scans: 1, sample: sample + Int64(k),
                                timestampNs: stamp + Int64(k) * 1_250_000)
            }
            var block = start
            block.advance(crossing: crossing, runs: runs, scans: Int32(Self.scans), sample: sample, timestampNs: stamp)
            #expect(block == scanned, "from \(start)")
            // The fast path's form, where the raw and filtered readings agree.
            var sided = start
            sided.advance(sides: crossing, scans: Int32(Self.scans), sample: sample, timestampNs: stamp)
            var sidedScanned = start
            for k in 0..<Self.scans {
                sidedScanned.advance(crossing: crossing, runs: crossing, scans: 1, sample: sample + Int64(k),
                                     timestampNs: stamp + Int64(k) * 1_250_000)
            }
            #expect(sided == sidedScanned, "from \(start)")
        }
    }

    @Test("Debounce: the below-release scan is the general scan with both readings below release")
    func debounceBelowRelease() {
        var rng = SplitMix(seed: 0xD3B0_0002)
        for _ in 0..<Self.cases {
            let start = Self.debounce(&rng)
            let sample = Self.int(&rng, 100_000), stamp = Self.int(&rng, 1 << 40)
            var shortcut = start
            var general = start
            for k in 0..<Self.scans {
                shortcut.belowRelease(sample: sample + Int64(k), timestampNs: stamp + Int64(k))
                general.advance(crossing: (false, false, true), runs: (false, false, true), scans: 1,
                                sample: sample + Int64(k), timestampNs: stamp + Int64(k))
            }
            #expect(shortcut == general, "from \(start)")
        }
    }

    @Test("Hold timer: a block is taken up to the scan its hold is due, as scan by scan")
    func holdBlock() {
        var rng = SplitMix(seed: 0x401D_0001)
        for _ in 0..<Self.cases {
            var start = HoldTimer()
            let peekSample = Self.int(&rng, 10_000)
            let first = peekSample + Self.int(&rng, 200)
            start.start(Self.float(&rng, 0.5...3), sample: peekSample)
            if Self.bool(&rng) {
                start.follow(start.reference + 1, sample: peekSample + Self.int(&rng, first - peekSample + 1), rise: 0)
            }
            let rise = Self.float(&rng, 0.01...0.2)
            let holdScans = Self.int(&rng, 120), settle = Self.int(&rng, 60)
            // Readings that climb, hold or fall about the reference.
            var y = [Float](), level = start.reference
            for _ in 0..<Self.scans {
                level += Self.float(&rng, -0.15...0.25)
                y.append(level)
            }
            var scanned = start
            var due = Self.scans
            for k in 0..<Self.scans {
                var next = scanned
                let sample = first + Int64(k)
                next.follow(y[k], sample: sample, rise: rise)
                if next.due(sample: sample, peekSample: peekSample, holdScans: holdScans, settleScans: settle) {
                    due = k
                    break
                }
                scanned = next
            }
            var block = start
            let taken = block.follow({ y[$0] }, from: 0, upTo: Self.scans, firstSample: first, peekSample: peekSample,
                                     rise: rise, holdScans: holdScans, settleScans: settle)
            #expect(taken == due)
            #expect(block == scanned, "from \(start)")
        }
    }

    @Test("Rise shape: a block observed at once is its scans observed in turn")
    func riseBlock() {
        var rng = SplitMix(seed: 0x215E_0001)
        for _ in 0..<Self.cases {
            var start = RiseShape()
            let first = Self.int(&rng, 10_000) + 100
            let m = Self.int(&rng, 9)
            start.rested(at: first - 1 - Self.int(&rng, 2 * m + 3), force: Self.float(&rng, -0.05...0.05))
            start.mid = Self.float(&rng, 0...1)
            start.concave = Self.bool(&rng)
            let band = Self.float(&rng, 0.02...0.2)
            var y = [Float]()
            for _ in 0..<Self.scans { y.append(Self.float(&rng, -0.1...1.5) * (Self.bool(&rng) ? band : 1)) }
            let from = Int(Self.int(&rng, Int64(Self.scans))), upTo = from + Int(Self.int(&rng, Int64(Self.scans - from + 1)))
            var scanned = start
            for k in from..<upTo {
                _ = scanned.observe(y[k], sample: first + Int64(k), touchBand: band, curveScans: m)
            }
            var block = start
            block.observe({ y[$0] }, from: from, upTo: upTo, firstSample: first, touchBand: band, curveScans: m)
            #expect(block == scanned, "from \(start)")
        }
    }

    @Test("Rise shape: a run all at rest is its last scan; a run with no shape read leaves the shape")
    func riseClosedForms() {
        var rng = SplitMix(seed: 0x215E_0002)
        for _ in 0..<Self.cases {
            var start = RiseShape()
            let first = Self.int(&rng, 10_000) + 100
            let m = Self.int(&rng, 12)
            start.rested(at: first - 1 - Self.int(&rng, 3 * m + 3), force: Self.float(&rng, -0.05...0.05))
            start.mid = Self.float(&rng, 0...1)
            start.concave = Self.bool(&rng)
            let band = Self.float(&rng, 0.02...0.2)
            // All at rest.
            var rest = [Float]()
            for _ in 0..<Self.scans { rest.append(Self.float(&rng, -0.5...0.99) * band) }
            var scanned = start
            for k in 0..<Self.scans { _ = scanned.observe(rest[k], sample: first + Int64(k), touchBand: band, curveScans: m) }
            var closed = start
            closed.rested(at: first + Int64(Self.scans - 1), force: rest[Self.scans - 1])
            #expect(closed == scanned)
            // None at rest: where the shape is not read in the block, nothing moves.
            var high = [Float]()
            for _ in 0..<Self.scans { high.append(band + Self.float(&rng, 0...1)) }
            var touched = start
            for k in 0..<Self.scans { _ = touched.observe(high[k], sample: first + Int64(k), touchBand: band, curveScans: m) }
            if !start.shapeRead(firstSample: first, lastSample: first + Int64(Self.scans - 1), curveScans: m) {
                #expect(touched == start)
            }
        }
    }

    @Test("Spike filter: the block's lanes are the scan filter's readings")
    func spikeFilterBlock() {
        var rng = SplitMix(seed: 0x5B1E_0001)
        for _ in 0..<Self.cases {
            var window = [Float]()
            let level = Self.float(&rng, -1...3)
            for _ in 0..<(Self.scans + 2) {
                window.append(level + Self.float(&rng, -0.3...0.3) + (rng.next() % 7 == 0 ? Self.float(&rng, -2...2) : 0))
            }
            let isolated = Self.bool(&rng)
            let agreement = Self.float(&rng, 0.01...0.2), floor = level - Self.float(&rng, 0...0.5)
            var a = SIMD16<Float>(), b = SIMD16<Float>(), c = SIMD16<Float>()
            for k in 0..<Self.scans {
                a[k] = window[k]
                b[k] = window[k + 1]
                c[k] = window[k + 2]
            }
            let block = SpikeFilter.filter(a, b, c, isolated: isolated, agreement: agreement, floor: floor)
            for k in 0..<Self.scans {
                let scan = SpikeFilter.filter(window[k], window[k + 1], window[k + 2], isolated: isolated,
                                              agreement: agreement, floor: floor)
                #expect(block[k].bitPattern == scan.bitPattern, "lane \(k) of \(window)")
            }
            #expect(SpikeFilter.median(a, b, c) == SpikeFilter.filter(a, b, c, isolated: false, agreement: agreement,
                                                                    floor: floor))
        }
    }

    @Test("Creep allowance: a peeking block's settled level and trace reading are its scans' peeking steps in turn")
    func creepBlock() throws {
        var rng = SplitMix(seed: 0x5B1E_0002)
        for _ in 0..<(Self.cases / 8) {
            var settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
            settings.creepAllowance = Self.float(&rng, 0.01...0.5)
            let rate = Self.float(&rng, 80...1000)
            var block = Classifier(parameters: try ClassifierParameters(settings, sampleRateHz: rate))
            block._state = .peeking
            block._baseline = Self.float(&rng, -0.5...0.5)
            block._settled = Self.float(&rng, 1...2.5)
            var scans = block
            var filtered = SIMD16<Float>()
            for k in 0..<Self.scans { filtered[k] = block._baseline + Self.float(&rng, 1...2.5) }
            block._creepBlock(filtered)
            var events = EventRing()
            for k in 0..<Self.scans {
                // As `step` takes a peeking scan past the release level.
                let y = filtered[k] - scans._baseline
                scans._advanceCreeping(x: y, y: y, sample: Int64(k), timestampNs: Int64(k))
                _ = scans._whilePeeking(y: scans._creepForce, sample: Int64(k), timestampNs: Int64(k), into: &events)
            }
            #expect(block._settled.bitPattern == scans._settled.bitPattern, "\(block._settled) != \(scans._settled)")
            #expect(block._creepForce.bitPattern == scans._creepForce.bitPattern)
        }
    }
}
