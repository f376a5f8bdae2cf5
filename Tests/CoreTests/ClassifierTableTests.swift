import Testing
import ForceStageCore

/// Scan sequences and the exact events they must produce. Forces are in
/// newtons at 100 scans/s; peek 1.0 N, pop 2.5 N, release below 0.5 N.
@Suite("Classifier tables")
struct ClassifierTableTests {
    static let rate: Float = 100

    static func settings(_ edit: (inout ClassifierSettings) -> Void = { _ in }) -> ClassifierSettings {
        var s = ClassifierSettings(peekNewtons: 1.0, popNewtons: 2.5)
        s.holdMilliseconds = 0
        edit(&s)
        return s
    }

    /// Runs `forces` through a classifier; returns "kind@sample" strings.
    static func run(_ forces: [Float], _ settings: ClassifierSettings = settings()) throws -> [String] {
        try events(forces, settings).map { "\($0.kind.name)@\($0.sample)" }
    }

    static func events(_ forces: [Float], _ settings: ClassifierSettings = settings()) throws -> [ForceEvent] {
        var c = Classifier(parameters: try ClassifierParameters(settings, sampleRateHz: rate))
        var ring = EventRing()
        var out: [ForceEvent] = []
        for (i, f) in forces.enumerated() {
            c.step(force: f, sample: Int64(i), timestampNs: Int64(i) * 10_000_000, into: &ring)
            while let e = ring.popFirst() { out.append(e) }
        }
        return out
    }

    /// `count` scans rising linearly from `from` to `to` (inclusive of `to`).
    static func ramp(_ from: Float, _ to: Float, _ count: Int) -> [Float] {
        (1...count).map { from + (to - from) * Float($0) / Float(count) }
    }

    static func hold(_ value: Float, _ count: Int) -> [Float] { [Float](repeating: value, count: count) }

    @Test("A press that peeks and releases")
    func peekRelease() throws {
        let f = Self.hold(0, 50) + Self.ramp(0, 1.6, 16) + Self.hold(1.6, 40) + Self.ramp(1.6, 0, 16) + Self.hold(0, 40)
        // 1.0 N is reached at scan 59; the median filter decides a scan later.
        // The release level is half the peek level (the spec's label rule): the
        // force reaches 0.5 N at scan 116 (a hair above it in float) and is
        // under it from 117; the median puts the first filtered scan under it at 118,
        // where the one-scan deferred release fires.
        let got1 = try Self.run(f); #expect(got1 == ["peek@60", "release@118"])
    }

    @Test("Tremor of 15 % while holding a peek is not a release")
    func tremor() throws {
        var hold: [Float] = []
        for i in 0..<300 { hold.append(1.3 * (1 + 0.15 * (i % 6 < 3 ? 1 : -1) * Float(i % 3) / 2)) }
        let f = Self.hold(0, 30) + Self.ramp(0, 1.3, 10) + hold + Self.ramp(1.3, 0, 10) + Self.hold(0, 30)
        let e = try Self.run(f)
        #expect(e.count == 2 && e[0].hasPrefix("peek@") && e[1].hasPrefix("release@"), "\(e)")
        #expect(e.last!.hasPrefix("release@34"), "release comes at the end of the hold, not during the tremor: \(e)")
    }

    @Test("A slam straight past both levels is peek then pop, at the same scan")
    func slam() throws {
        let f = Self.hold(0, 20) + Self.hold(5, 40) + Self.hold(0, 20)
        // A jump from rest past peek in one scan is faster than a finger: the
        // peek waits a scan for a shake to turn over (vibrationConfirmMilliseconds).
        let got2 = try Self.run(f); #expect(got2 == ["peek@22", "pop@22", "release@61"])
    }

    @Test("A slow ramp peeks and pops one scan after each crossing")
    func slowRamp() throws {
        let f = Self.hold(0, 50) + Self.ramp(0, 3.0, 300) + Self.hold(3, 20) + Self.hold(0, 20)
        // 1.0 N is reached at scan 149, 2.5 N at 299. The median adds a scan; the
        // baseline, updated once per 16-scan block, absorbs none of the ramp
        // (its first block after the seed may fall but not rise).
        let e = try Self.events(f)
        #expect(e.map { "\($0.kind.name)@\($0.sample)" } == ["peek@150", "pop@300", "release@371"])
        // Latency is counted from the first scan the classifier itself saw past the level.
        #expect(e.map(\.latencyScans) == [1, 1, 1])
    }

    @Test("After pop only release follows, even when the force wavers under pop")
    func popIsCommit() throws {
        let f = Self.hold(0, 10) + Self.ramp(0, 3, 10) + Self.hold(1.2, 30) + Self.hold(3, 10) + Self.hold(1.2, 30) + Self.hold(0, 20)
        let got3 = try Self.run(f); #expect(got3 == ["peek@14", "pop@19", "release@91"])
    }

    @Test("A light touch below the peek level gives nothing")
    func lightTouch() throws {
        let f = Self.hold(0, 20) + Self.ramp(0, 0.9, 20) + Self.hold(0.9, 100) + Self.ramp(0.9, 0, 20) + Self.hold(0, 20)
        let got4 = try Self.run(f); #expect(got4 == [])
    }

    @Test("Single-scan spikes, up or down, give nothing")
    func spikes() throws {
        var f = Self.hold(0, 100)
        f[30] = 10
        f[60] = 4
        var press = Self.hold(1.5, 60)
        press[20] = 0
        press[40] = 0.1
        f += Self.ramp(0, 1.5, 5) + press + Self.hold(0, 30)
        let got5 = try Self.run(f); #expect(got5 == ["peek@104", "release@166"])
    }

    @Test("Slow drift of the unloaded panel gives nothing, and a press on top is measured from it")
    func drift() throws {
        // 0.8 N of drift over 80 s (well below the peek level at every moment relative to the tracked baseline).
        let drift = (0..<8000).map { Float($0) * 0.0001 }
        var f = drift
        // A 1.3 N press on top of 0.8 N of drift: without baseline tracking it would pop-free peek at 0.2 N.
        f += Self.hold(0.8, 20) + Self.ramp(0.8, 2.1, 10) + Self.hold(2.1, 50) + Self.ramp(2.1, 0.8, 10) + Self.hold(0.8, 30)
        let e = try Self.run(f)
        #expect(e == ["peek@8028", "release@8087"], "\(e)")
        var noTracking = Self.settings()
        noTracking.baseline.enabled = false
        let early = try Self.run(f, noTracking)
        #expect(early == ["peek@8022"], "without tracking the drift makes a 0.2 N touch peek, and the press never releases")
    }

    @Test("Relaxation after a press gives nothing")
    func relaxation() throws {
        var f = Self.hold(0, 20) + Self.ramp(0, 2, 10) + Self.hold(2, 50) + Self.ramp(2, 0.3, 5)
        // A residual of 0.3 N (half the release level) decaying over 2 s.
        var r: Float = 0.3
        for _ in 0..<300 { f.append(r); r *= 0.99 }
        let e = try Self.run(f)
        // 2 N ramp from scan 20 reaches 1.0 N at scan 24; the median adds one.
        #expect(e == ["peek@25", "release@85"], "\(e)")
    }

    @Test("Deferred press debounce adds its time to the latency")
    func deferred() throws {
        let s = Self.settings { $0.pressDebounce = Debounce(.deferred, milliseconds: 30) }
        let e = try Self.events(Self.hold(0, 10) + Self.hold(1.5, 50) + Self.hold(0, 20), s)
        #expect(e.map { "\($0.kind.name)@\($0.sample)" } == ["peek@13", "release@61"])
        #expect(e[0].latencyScans == 3)
    }

    @Test("Eager press debounce ignores a release inside its window")
    func eagerLock() throws {
        // Steps from rest past peek in one scan: the fast-rise wait is tested in RealSensorBehaviourTests.
        let s = Self.settings { $0.pressDebounce = Debounce(.eager, milliseconds: 50); $0.spikeRejection = false; $0.vibrationRiseMilliseconds = 0 }
        // Up for 2 scans, down, up again: with a 5-scan lock the dip cannot release.
        let f = Self.hold(0, 10) + Self.hold(1.5, 2) + Self.hold(0, 2) + Self.hold(1.5, 20) + Self.hold(0, 10)
        let got6 = try Self.run(f, s); #expect(got6 == ["peek@10", "release@34"])
        let loose = Self.settings { $0.pressDebounce = Debounce(.eager, milliseconds: 0); $0.spikeRejection = false; $0.vibrationRiseMilliseconds = 0 }
        let got7 = try Self.run(f, loose); #expect(got7 == ["peek@10", "release@12", "peek@14", "release@34"])
    }

    @Test("Hold is emitted once a peek lasts the hold time, and never after pop")
    func holdEvent() throws {
        let s = Self.settings { $0.holdMilliseconds = 300; $0.vibrationRiseMilliseconds = 0 }  // steps: see eagerLock
        let f = Self.hold(0, 10) + Self.hold(1.5, 60) + Self.hold(3, 10) + Self.hold(0, 20)
        let got8 = try Self.run(f, s); #expect(got8 == ["peek@11", "hold@41", "pop@71", "release@81"])
        let quick = Self.hold(0, 10) + Self.hold(1.5, 10) + Self.hold(3, 60) + Self.hold(0, 20)
        let got9 = try Self.run(quick, s); #expect(got9 == ["peek@11", "pop@21", "release@81"])
    }

    @Test("Invalid settings are refused with the key at fault")
    func invalidSettings() {
        #expect(throws: SettingsError.popNotAbovePeek) { try ClassifierParameters(ClassifierSettings(peekNewtons: 2, popNewtons: 1), sampleRateHz: 80) }
        #expect(throws: SettingsError.sampleRateNotPositive) { try ClassifierParameters(ClassifierSettings(peekNewtons: 1, popNewtons: 2), sampleRateHz: 0) }
        var s = ClassifierSettings(peekNewtons: 1, popNewtons: 2)
        s.releaseFraction = 1.2
        #expect(throws: SettingsError.releaseFractionOutOfRange) { try s.validate() }
        s = ClassifierSettings(peekNewtons: 1, popNewtons: 2)
        s.holdMilliseconds = -1
        #expect(throws: SettingsError.negativeTime(.hold)) { try s.validate() }
    }
}
