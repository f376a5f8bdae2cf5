// The settings a profile states and their validation; SettingsParameters.swift
// resolves them to scans at a sample rate (a setting added here is derived there).
/// How a transition is debounced, in QMK's vocabulary.
public enum DebounceMode: UInt8, Equatable, BitwiseCopyable, Sendable {
    /// Fire on the first scan past the level, then ignore the opposite
    /// transition for the debounce time. No added latency.
    case eager
    /// Fire only once the level has been passed for the whole debounce time.
    /// Adds the debounce time to the latency.
    case deferred
}

/// A debounce mode and its time.
public struct Debounce: Equatable, BitwiseCopyable, Sendable {
    /// Eager or deferred.
    public var mode: DebounceMode
    /// The debounce time in milliseconds, converted to scans at the sample rate.
    public var milliseconds: Float

    /// Creates a debounce setting.
    public init(_ mode: DebounceMode, milliseconds: Float) {
        self.mode = mode
        self.milliseconds = milliseconds
    }
}

/// How the unloaded panel's baseline is followed.
public struct BaselineSettings: Equatable, BitwiseCopyable, Sendable {
    /// Whether the baseline is tracked at all (off: the calibration's zero is trusted).
    public var enabled: Bool = true
    /// Time constant for following the reading upwards (slow thermal drift), ms.
    public var riseMilliseconds: Float = 4000
    /// Time constant for following the reading downwards (post-press relaxation), ms.
    public var fallMilliseconds: Float = 150
    /// Smoothing of the reading before it feeds the baseline, ms.
    public var smoothingMilliseconds: Float = 40
    /// While idle, readings further than this fraction of the peek level above
    /// the baseline count as a touch and freeze it.
    public var touchFraction: Float = 0.3
    /// After start, the baseline follows in both directions at the fall rate for this long, ms.
    public var warmupMilliseconds: Float = 250
    /// The fastest rise, in newtons per second, still taken for drift rather than a press.
    public var maximumDriftNewtonsPerSecond: Float = 0.05
    /// The baseline learns only from readings taken this long into an idle
    /// stretch, ms, timed per scan (not in whole tracking blocks), and not
    /// from the readings this long before a press.
    /// The valleys between the taps of a burst are not an unloaded panel: a
    /// baseline that learned from them would rise and swallow the later taps.
    public var settleMilliseconds: Float = 250
    /// A reading this far below the baseline (more than the touch band) is an
    /// undershoot (force/torque cells swing below zero after a release) and is
    /// not learned until it has lasted this long, ms; a real zero shift that
    /// persists is then followed.
    public var undershootMilliseconds: Float = 1500
    /// The lowest force the unloaded panel can read, N, or nil where its
    /// zero may drift either way (a load cell). A calibration curve holds
    /// its end values outside its range, so a panel read through curves (an
    /// FSR) never reads below the sum of their lowest forces: a fall the
    /// tracker carries through a press (the relaxation after the last one)
    /// stops there. Unset, ``PanelSetup`` takes that sum for such a panel.
    public var floorNewtons: Float? = nil

    /// The defaults.
    public init() {}
}

/// A named sensitivity, in newtons: a user setting, not a rebuild.
public enum Sensitivity: UInt8, Equatable, BitwiseCopyable, Sendable, CaseIterable {
    case light, medium, firm

    /// The peek and pop levels of the preset, in newtons.
    public var levels: (peek: Float, pop: Float) {
        switch self {
        case .light: return (0.6, 1.6)
        case .medium: return (1.0, 2.5)
        case .firm: return (1.6, 3.6)
        }
    }

}

/// The settings that are durations, for error reports.
public enum TimeSetting: UInt8, Equatable, BitwiseCopyable, Sendable {
    case pressDebounce, releaseDebounce, hold, stuck
    case baselineRise, baselineFall, baselineSmoothing, baselineWarmup
    case baselineSettle, baselineUndershoot, holdSettle, spikeMaximum, vibrationHoldoff
    case vibrationRise, vibrationConfirm, vibrationCurve, vibrationCurveWait
}

/// Why classifier settings were refused.
public enum SettingsError: Error, Equatable, Sendable {
    case sampleRateNotPositive
    case peekNotPositive
    case popNotAbovePeek
    case releaseFractionOutOfRange
    case negativeTime(TimeSetting)
    case touchFractionOutOfRange
    case creepAllowanceOutOfRange
    case creepAmountOutOfRange
    case creepTimeOutOfRange
    case stuckStepFractionOutOfRange
    case baselineFloorNotFinite

}

/// What the classifier is asked to do, in newtons and milliseconds.
public struct ClassifierSettings: Equatable, Sendable {
    /// Force above baseline at which a press peeks.
    public var peekNewtons: Float
    /// Force above baseline at which a peek pops.
    public var popNewtons: Float
    /// Release when the force falls below `peekNewtons * releaseFraction`.
    /// The gap is the hysteresis that rides out tremor while holding. The
    /// recording spec labels a release where the force falls below half the
    /// peek level, so a partial let-go that stays above half is no release;
    /// tremor of +-15 % on a held peek stays far above it.
    public var releaseFraction: Float = 0.5
    /// Debounce of the press transitions (peek, pop).
    public var pressDebounce = Debounce(.eager, milliseconds: 5)
    /// Debounce of release.
    public var releaseDebounce = Debounce(.deferred, milliseconds: 10)
    /// A peek held this long without popping emits `hold`; 0 disables it.
    public var holdMilliseconds: Float = 500
    /// `hold` waits until the force has stopped climbing for this long, ms: a
    /// press still rising from peek toward pop is on its way to a pop, not a
    /// light press waiting. "Climbing" is a rise of a tenth of the gap between
    /// the peek and pop levels above the highest level the press settled at.
    public var holdSettleMilliseconds: Float = 250
    /// Rejection of single-scan spikes (one scan of latency).
    public var spikeRejection: Bool = true
    /// The longest scan period, ms, for which the plain median of three is
    /// used. A spike is a few ms, shorter than any press; at 40 scans/s or
    /// more the shortest real tap (80 ms) spans three scans or more, so the
    /// median removes spikes and keeps taps. Where a scan is longer (9-10
    /// scans/s) a real tap may show in only one or two scans, so a reading is
    /// replaced only where it cannot be a press (see the classifier's
    /// `SpikeFilter.filter`: an isolated rise between agreeing neighbours, or a dip
    /// below zero), never on a rising or falling edge.
    public var spikeMaximumMilliseconds: Float = 25
    /// Creep allowance: an FSR under constant load reads up to this fraction
    /// higher after seconds. While peeking, pop needs the force to exceed the
    /// level it settled at by this fraction (never more than `pop * (1 + allowance)`).
    /// nil: 0.15 on a panel calibrated by a curve (an FSR), 0 on a linear one.
    public var creepAllowance: Float? = nil
    /// The creep allowance taken for a panel calibrated by a curve (an FSR)
    /// when the settings state none: FSRs creep 5-15 % under a constant load.
    public static let fsrCreepAllowance: Float = 0.15
    /// Creep compensation: under a press an FSR reads its force times
    /// `1 + amount * (1 - exp(-t / creepMilliseconds))`, t from the last scan
    /// at rest; until the pop the classifier divides that factor out before
    /// the peek and pop levels see the reading, so a slow rise crosses a level
    /// with the finger's force, not early (see the classifier's
    /// `_advanceCreeping`). nil: ``fsrCreepAmount`` on a panel calibrated by a
    /// curve (an FSR), 0 (off) on a linear one.
    public var creepAmount: Float? = nil
    /// The creep's time constant, ms (read only where `creepAmount` > 0).
    public var creepMilliseconds: Float = ClassifierSettings.fsrCreepMilliseconds
    /// The creep amount taken for a curve-calibrated panel whose calibration
    /// states none. An FSR creeps 5-14 % and one press's amount is unknown.
    /// A slow press crosses pop some 0.7-1 s after it started, when the
    /// model has reached about half its amount, so each 0.01 of excess
    /// amount holds a pop back by about 0.5 % of its level (6 ms at 2 N/s),
    /// and each 0.01 short lets it through as much early. The amount sits in
    /// the lower half of the range: at a second into a press it takes off
    /// some 4 %, the few percent an FSR's reading commonly stands above its
    /// curve by then. A panel whose creep was measured states it.
    public static let fsrCreepAmount: Float = 0.08
    /// The creep time constant taken by default, ms: FSRs creep over 1-3 s.
    public static let fsrCreepMilliseconds: Float = 1500
    /// The largest creep amount and time constant the settings accept.
    public static let maximumCreepAmount: Float = 0.5
    public static let maximumCreepMilliseconds: Float = 60_000
    /// After a reading swings below the baseline by more than the touch band,
    /// a peek waits this long, ms. A press never pulls the panel below zero; a
    /// door slam or a machine shakes it as far below zero as above, so a
    /// zero-mean 20-60 Hz burst cannot peek. Taps (no undershoot) are unaffected.
    public var vibrationHoldoffMilliseconds: Float = 30
    /// A rise from rest (below the touch band) to the peek level within this
    /// long, ms, may be the first, upward swing of a vibration burst, and its
    /// peek waits ``vibrationConfirmMilliseconds``. A 20-60 Hz oscillation
    /// climbs from zero to its crest within a quarter period, at most 12.5 ms;
    /// a finger takes 20 ms or more (the shared recordings: 23-400 ms, gait
    /// heel strikes one scan at 100 scans/s), only a slam is as fast. 0 disables.
    public var vibrationRiseMilliseconds: Float = 12.5
    /// How long, ms, a peek after a rise that fast waits, kept within the
    /// latency budget (max(2 scans, 10 ms), less the spike filter's scan): at
    /// least one scan, whole scans rounded down. If the force falls by a
    /// quarter from its crest meanwhile (an oscillation turning over; a slam
    /// holds or climbs), it was vibration: no peek, and the hold-off starts.
    public var vibrationConfirmMilliseconds: Float = 8
    /// The span, ms, over which the shape of a rise that fast is judged. A
    /// plate ringing after a slam starts from zero at its fastest and slows
    /// at once (a sine from its zero crossing: concave), while a finger's
    /// force from rest speeds up first as the fingertip stiffens (convex, or
    /// at worst a straight ramp). Where the force `2 x span` after the last
    /// scan at rest has risen less than 1.85 times its rise `span` after it,
    /// the rise is concave and the peek waits ``vibrationCurveWaitMilliseconds``.
    /// Judged only where the span holds at least two scans (250 scans/s and
    /// more at 4.5 ms: below that the wait after a fast rise already sees the
    /// swing turn); 0 disables.
    public var vibrationCurveMilliseconds: Float = 4.5
    /// How long after the last scan at rest, ms, a peek after a concave fast
    /// rise waits: a 20 Hz swing from its zero crossing crests at 12.5 ms and
    /// falls a quarter below its crest by 18 ms (plus the spike filter's scan),
    /// and is then dropped as vibration. A slam that reaches its plateau
    /// within ~8 ms looks the same at first and pays this wait.
    public var vibrationCurveWaitMilliseconds: Float = 22
    /// Baseline tracking.
    public var baseline = BaselineSettings()
    /// Identical raw values on every force channel for this long report `stuck`; 0 disables.
    public var stuckMilliseconds: Float = 2000
    /// On a sensor that shows no noise (its raw words hold still unless the
    /// force moves), a reading exactly flat for the stuck time while pressed,
    /// away from rest and from the press's top, is `stuck` where one count
    /// (the force that raw ± 1 moves, summed over the channels) is at most this
    /// fraction of the force: a finger's press wanders by more than 1 % in
    /// seconds (tremor, creep, relaxation), so at that resolution a reading
    /// that has not moved by one count is a frozen sensor. A coarse sensor (a
    /// quantised trace whose count is several percent of the force) may hold a
    /// press within one count, and is left alone. 0 turns the rule off.
    public var stuckStepFraction: Float = 0.01
    /// Scans on a rail before `saturated` is reported.
    public var saturationScans: Int = 2

    /// Creates settings with the given levels and the defaults for the rest.
    public init(peekNewtons: Float, popNewtons: Float) {
        self.peekNewtons = peekNewtons
        self.popNewtons = popNewtons
    }

    /// Creates settings from a sensitivity preset.
    public init(sensitivity: Sensitivity) {
        let levels = sensitivity.levels
        self.init(peekNewtons: levels.peek, popNewtons: levels.pop)
    }

    /// The release level in newtons.
    public var releaseNewtons: Float { peekNewtons * releaseFraction }

    /// Checks the settings; the error names the key at fault.
    public func validate() throws(SettingsError) {
        guard peekNewtons > 0, peekNewtons.isFinite else { throw .peekNotPositive }
        guard popNewtons > peekNewtons, popNewtons.isFinite else { throw .popNotAbovePeek }
        guard releaseFraction > 0, releaseFraction < 1 else { throw .releaseFractionOutOfRange }
        guard pressDebounce.milliseconds >= 0 else { throw .negativeTime(.pressDebounce) }
        guard releaseDebounce.milliseconds >= 0 else { throw .negativeTime(.releaseDebounce) }
        guard holdMilliseconds >= 0 else { throw .negativeTime(.hold) }
        guard stuckMilliseconds >= 0 else { throw .negativeTime(.stuck) }
        guard baseline.riseMilliseconds >= 0 else { throw .negativeTime(.baselineRise) }
        guard baseline.fallMilliseconds >= 0 else { throw .negativeTime(.baselineFall) }
        guard baseline.smoothingMilliseconds >= 0 else { throw .negativeTime(.baselineSmoothing) }
        guard baseline.warmupMilliseconds >= 0 else { throw .negativeTime(.baselineWarmup) }
        guard baseline.touchFraction > 0, baseline.touchFraction < 1 else { throw .touchFractionOutOfRange }
        guard baseline.settleMilliseconds >= 0 else { throw .negativeTime(.baselineSettle) }
        guard baseline.undershootMilliseconds >= 0 else { throw .negativeTime(.baselineUndershoot) }
        if let floor = baseline.floorNewtons { guard floor.isFinite else { throw .baselineFloorNotFinite } }
        guard holdSettleMilliseconds >= 0 else { throw .negativeTime(.holdSettle) }
        guard spikeMaximumMilliseconds >= 0 else { throw .negativeTime(.spikeMaximum) }
        guard vibrationHoldoffMilliseconds >= 0 else { throw .negativeTime(.vibrationHoldoff) }
        guard vibrationRiseMilliseconds >= 0 else { throw .negativeTime(.vibrationRise) }
        guard vibrationConfirmMilliseconds >= 0 else { throw .negativeTime(.vibrationConfirm) }
        guard vibrationCurveMilliseconds >= 0 else { throw .negativeTime(.vibrationCurve) }
        guard vibrationCurveWaitMilliseconds >= 0 else { throw .negativeTime(.vibrationCurveWait) }
        if let creepAllowance { guard creepAllowance >= 0, creepAllowance < 1 else { throw .creepAllowanceOutOfRange } }
        if let creepAmount {
            guard creepAmount >= 0, creepAmount <= ClassifierSettings.maximumCreepAmount else { throw .creepAmountOutOfRange }
        }
        guard creepMilliseconds > 0, creepMilliseconds <= ClassifierSettings.maximumCreepMilliseconds else { throw .creepTimeOutOfRange }
        guard stuckStepFraction >= 0, stuckStepFraction < 1 else { throw .stuckStepFractionOutOfRange }
    }
}
