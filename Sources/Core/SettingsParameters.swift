// The settings resolved to scans at one sample rate: what the classifier reads.

/// Settings resolved to scans at one sample rate: what the per-scan path reads.
public struct ClassifierParameters: Equatable, BitwiseCopyable, Sendable {
    public let peek: Float
    public let pop: Float
    public let release: Float
    /// Scans a press level must hold before firing (1 for eager).
    public let pressScans: Int32
    /// Scans the release level must hold before firing (1 for eager).
    public let releaseScans: Int32
    /// After an eager press, scans during which release is ignored.
    public let pressLockScans: Int32
    /// After an eager release, scans during which a new press is ignored.
    public let releaseLockScans: Int32
    /// Scans of peek before `hold`; 0 disables.
    public let holdScans: Int64
    public let spikeRejection: Bool
    public let baselineEnabled: Bool
    public let baselineRise: Float
    public let baselineFall: Float
    public let baselineSmoothing: Float
    public let touchBand: Float
    /// The guards' per-block constants (``underTouchBand``, ``spikeSize``,
    /// ``touchFloor``, ``filteredAndTracked``): stored where the platform
    /// has the block path, computed on use where it has not (see
    /// FastPath/SettingsBlockConstants.swift).
    @usableFromInline internal let _block: _BlockConstants
    public let warmupScans: Int32
    /// The fastest drift, newtons per scan.
    public let driftPerScan: Float
    /// Smoothing of the reading's slope.
    public let slopeSmoothing: Float
    /// The smoothing factors above compounded over one block of
    /// ``Classifier/blockScans`` scans: the baseline tracker runs per block.
    public let blockRise: Float
    /// ``blockRise`` where a block reads within the panel's noise of the
    /// baseline (no touch at any rate): the rise time times
    /// ``quietRiseFractionOfRise``; the same as ``blockRise`` where a scan
    /// is longer than a spike (9-10 scans/s, a block of 1.6 s).
    public let blockQuietRise: Float
    public let blockFall: Float
    public let blockSmoothing: Float
    public let blockSlopeSmoothing: Float
    /// Scans of identical raw values before `stuck`; 0 disables.
    public let stuckScans: Int32
    /// One count's force, as a fraction of the force, up to which a flat run
    /// on a sensor without noise is stuck mid-press (0: off).
    public let stuckStepFraction: Float
    public let saturationScans: Int32
    /// Nominal nanoseconds between scans.
    public let periodNs: Int64
    public let sampleRateHz: Float
    /// Spike rejection by neighbour agreement instead of the plain median
    /// (a scan longer than a spike), and how close the neighbours must be.
    public let spikeIsolated: Bool
    public let spikeAgreement: Float
    /// Scans the force must stop climbing before `hold`, and the rise that counts as climbing.
    public let holdSettleScans: Int64
    public let holdRise: Float
    /// The creep allowance (fraction) and the smoothing of the settled level it applies to.
    public let creepAllowance: Float
    public let creepSmoothing: Float
    /// Creep compensation: the amount (0: off), the fraction of the creep's
    /// time constant one scan is, and whether either creep rule is on (the
    /// press path's one test).
    public let creepAmount: Float
    public let creepPerScan: Float
    public let creepRules: Bool
    /// How far ahead, in scans, the compensated reading is projected on its
    /// smoothed rise (see `_advanceCreeping`), and that smoothing's factor.
    public let creepLeadScans: Float
    public let creepRateSmoothing: Float
    /// Scans a peek waits after a swing below the baseline.
    public let vibrationHoldoffScans: Int64
    /// The longest rise from rest to peek, in scans, that may be a vibration's
    /// first swing (0: none, as where a scan is longer than the rise time);
    /// the peek after one needs this many scans past the level (1 + the wait).
    public let vibrationRiseScans: Int64
    public let vibrationConfirmRun: Int32
    /// The span, in scans, over which a fast rise's curvature is judged (0:
    /// not judged), and how long after rest a peek after a concave one waits.
    public let vibrationCurveScans: Int64
    public let vibrationCurveWaitScans: Int64
    /// Idle scans before the baseline learns; scans an undershoot must last to be learned.
    public let settleScans: Int32
    public let undershootScans: Int32
    /// The lowest the unloaded panel can read, N (``BaselineSettings/floorNewtons``; minus infinity: none).
    public let baselineFloor: Float

    /// Resolves `settings` at `sampleRateHz`.
    public init(_ settings: ClassifierSettings, sampleRateHz: Float) throws(SettingsError) {
        guard sampleRateHz > 0, sampleRateHz.isFinite else { throw .sampleRateNotPositive }
        try settings.validate()
        func scans(_ ms: Float) -> Int32 {
            let n = (ms * sampleRateHz / 1000).rounded(.up)
            return n >= Float(Int32.max) ? Int32.max : Int32(n)
        }
        // Backward-Euler smoothing factor for a time constant: stable at any rate, no libm.
        // Out of line: one copy for its six uses, where on a soft-float target
        // each inlined use was its own calls to the float runtime.
        @inline(never)
        func alpha(_ ms: Float) -> Float { 1 / (1 + ms * sampleRateHz / 1000) }
        peek = settings.peekNewtons
        pop = settings.popNewtons
        release = settings.releaseNewtons
        let press = scans(settings.pressDebounce.milliseconds)
        let rel = scans(settings.releaseDebounce.milliseconds)
        pressScans = settings.pressDebounce.mode == .deferred ? max(1, press) : 1
        pressLockScans = settings.pressDebounce.mode == .eager ? press : 0
        releaseScans = settings.releaseDebounce.mode == .deferred ? max(1, rel) : 1
        releaseLockScans = settings.releaseDebounce.mode == .eager ? rel : 0
        holdScans = Int64(scans(settings.holdMilliseconds))
        spikeRejection = settings.spikeRejection
        baselineEnabled = settings.baseline.enabled
        baselineRise = alpha(settings.baseline.riseMilliseconds)
        baselineFall = alpha(settings.baseline.fallMilliseconds)
        baselineSmoothing = alpha(settings.baseline.smoothingMilliseconds)
        touchBand = settings.peekNewtons * settings.baseline.touchFraction
        _block = _BlockConstants(peek: peek, touchBand: touchBand,
                                 spikeRejection: spikeRejection, baselineEnabled: baselineEnabled)
        warmupScans = scans(settings.baseline.warmupMilliseconds)
        driftPerScan = settings.baseline.maximumDriftNewtonsPerSecond / sampleRateHz
        slopeSmoothing = alpha(ClassifierParameters.slopeSmoothingMilliseconds)
        blockRise = Self._perBlock(baselineRise)
        blockFall = Self._perBlock(baselineFall)
        blockSmoothing = Self._perBlock(baselineSmoothing)
        blockSlopeSmoothing = Self._perBlock(slopeSmoothing)
        stuckScans = scans(settings.stuckMilliseconds)
        stuckStepFraction = settings.stuckStepFraction
        saturationScans = Int32(max(1, min(settings.saturationScans, Int(Int32.max))))
        periodNs = Int64((1_000_000_000 / sampleRateHz).rounded())
        self.sampleRateHz = sampleRateHz
        spikeIsolated = 1000 / sampleRateHz > settings.spikeMaximumMilliseconds
        blockQuietRise = spikeIsolated ? blockRise
            : Self._perBlock(alpha(settings.baseline.riseMilliseconds * ClassifierParameters.quietRiseFractionOfRise))
        spikeAgreement = touchBand
        holdSettleScans = Int64(scans(settings.holdSettleMilliseconds))
        holdRise = (settings.popNewtons - settings.peekNewtons) * ClassifierParameters.holdRiseFractionOfGap
        creepAllowance = settings.creepAllowance ?? 0
        creepSmoothing = alpha(ClassifierParameters.creepSmoothingMilliseconds)
        creepAmount = settings.creepAmount ?? 0
        creepPerScan = 1000 / (settings.creepMilliseconds * sampleRateHz)
        creepRules = creepAllowance > 0 || creepAmount > 0
        creepLeadScans = ClassifierParameters.creepLeadMilliseconds * sampleRateHz / 1000
        creepRateSmoothing = alpha(ClassifierParameters.creepRateSmoothingMilliseconds)
        vibrationHoldoffScans = Int64(scans(settings.vibrationHoldoffMilliseconds))
        // Rounded down: where a scan is longer than the rise time, a one-scan
        // rise says nothing about speed, and no peek waits.
        let rise = (settings.vibrationRiseMilliseconds * sampleRateHz / 1000).rounded(.down)
        vibrationRiseScans = rise >= Float(Int32.max) ? Int64(Int32.max) : Int64(rise)
        let confirm = (settings.vibrationConfirmMilliseconds * sampleRateHz / 1000).rounded(.down)
        let wait: Int32 = settings.vibrationConfirmMilliseconds == 0 ? 0 : (confirm >= Float(Int32.max / 2) ? Int32.max / 2 : max(1, Int32(confirm)))
        vibrationConfirmRun = max(pressScans, wait &+ 1)
        // Rounded down, and off below two scans: the curvature of a rise needs
        // two steps each side to stand out from the noise.
        let curve = (settings.vibrationCurveMilliseconds * sampleRateHz / 1000).rounded(.down)
        vibrationCurveScans = curve >= Float(Int32.max) ? Int64(Int32.max) : (curve < 2 ? 0 : Int64(curve))
        vibrationCurveWaitScans = Int64(scans(settings.vibrationCurveWaitMilliseconds))
        settleScans = scans(settings.baseline.settleMilliseconds)
        undershootScans = scans(settings.baseline.undershootMilliseconds)
        baselineFloor = settings.baseline.floorNewtons ?? -Float.infinity
    }

    /// A smoothing factor per scan compounded over one block:
    /// 1 - (1 - a)^16 by squaring four times (2^4 = ``Classifier/blockScans``),
    /// the same decay per block as per-scan steps.
    @inlinable @inline(__always)
    internal static func _compoundedOverBlock(_ a: Float) -> Float {
        var keep = 1 - a
        for _ in 0..<Classifier.blockScans.trailingZeroBitCount { keep *= keep }
        return 1 - keep
    }

    /// The guards' per-block constants from the levels, the same operations
    /// wherever they are kept: the touch band negated (the undershoot
    /// guard), the spike size (the peek level times
    /// ``Classifier/spikeFraction``), the touch level's floor (the touch band
    /// times ``Classifier/touchFloorFraction``), and whether both the spike
    /// filter and the baseline tracker run (one test a block in place of two).
    @inlinable @inline(__always)
    internal static func _guards(peek: Float, touchBand: Float, spikeRejection: Bool, baselineEnabled: Bool)
        -> (underTouchBand: Float, spikeSize: Float, touchFloor: Float, filteredAndTracked: Bool) {
        (-touchBand, peek * Classifier.spikeFraction, touchBand * Classifier.touchFloorFraction,
         spikeRejection && baselineEnabled)
    }

    /// Scans of delay the configuration adds before a press can be decided:
    /// the spike filter's one scan plus the deferred debounce beyond the first scan.
    public var pressDelayScans: Int32 { (spikeRejection ? 1 : 0) + pressScans - 1 }
}
