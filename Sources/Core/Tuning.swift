// The classifier's and the pipeline's tuning constants, each named with its
// unit and the reason for its value. Settings a profile can change live in
// ClassifierSettings; these are fixed by the method itself.

extension Classifier {
    /// Whether quiet blocks take the block path. Off on the 32-bit
    /// microcontrollers (Embedded Swift on arm or riscv32): with no vector
    /// unit a 16-lane step costs what 16 scan steps do and is 7 KB of code;
    /// the scan path's events are the same by construction (FastPathTests).
    @inlinable public static var blockPathEnabled: Bool { Platform.hasFastPath }
    /// A replaced reading counts as a rejected spike when the filter moved it
    /// by more than this fraction of the peek level (a quarter): smaller
    /// moves are noise the median smooths, not spikes. The block path uses
    /// the same fraction: a window spanning less cannot hold a counted spike.
    public static let spikeFraction: Float = 0.25
    /// At a low scan rate a rise is a spike when it climbs above the higher
    /// neighbour by more than this many times the neighbours' disagreement
    /// (4×): a real tap's edge leaves its neighbours far apart.
    public static let spikeRiseOverSpread: Float = 4
    /// At a low scan rate, how far apart (a fraction of their level above
    /// the baseline) two neighbours of a held press may read and still be one
    /// level: the spec's tremor of ±15 % on a held peek spans 30 % of it.
    /// A reading rising above both such neighbours is a one-scan excursion
    /// from the held level, a spike as much as one from rest is.
    public static let spikeTremorSpreadOfLevel: Float = 0.3
    /// At a low scan rate a release from a single reading needs it this
    /// fraction of the peek level (a tenth) below the release level; nearer,
    /// the next reading must agree. A partial let-go stays above half the
    /// peek level; a tenth is 2.5 noise widths of a low-SNR panel (noise 4 %
    /// of peek), which one reading of a force still above the level crosses
    /// about once in 160. In peek units, not the measured noise: the idle
    /// noise estimate also takes in vibration bursts in quiet gaps.
    public static let releaseMarginOfPeek: Float = 0.1
    /// A block with fewer idle scans than this (a quarter of a block) is not
    /// used for the baseline: its mean would stand on too few readings.
    public static let minimumIdleScans: Float = 4
    /// The in-block time ramp, scans from the block's centre: the straight-line
    /// trend is removed from a block before its noise is measured. A tuple
    /// of literals, which the compiler lays out as constant data (a
    /// `static let` of `SIMD16` would be initialised lazily, a `swift_once`
    /// check in every block's baseline tracking); ``blockRamp`` gives it as
    /// lanes where the platform has them.
    @usableFromInline internal static let _blockRampLanes: (Float, Float, Float, Float, Float, Float, Float, Float,
                                                            Float, Float, Float, Float, Float, Float, Float, Float) =
        (-7.5, -6.5, -5.5, -4.5, -3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5)
    /// 1 / Σ ramp² (Σ (k - 7.5)² over k = 0..15 is 340), per scan²: the
    /// least-squares slope of a block is Σ (v - mean)·ramp / Σ ramp².
    public static let inverseRampSquares: Float = 1 / 340
    /// 1 / ``blockScans``, per scan: a block's sums become per-scan means.
    public static let inverseBlockScans: Float = 1 / 16
    /// A touch is a rise of this many noise widths (the mean absolute
    /// residual) above the baseline: 11 keeps a panel's own noise, whose
    /// peaks reach about 4 widths, far from a touch.
    public static let touchNoiseWidths: Float = 11
    /// The fewest blocks in a window over which the baseline tracker measures
    /// the unloaded panel's fall (``BaselineTrend``; a window is `settle_ms`
    /// otherwise): its fall stands on enough settled readings to rise above
    /// the noise at a low scan rate, where `settle_ms` is a block or two.
    public static let trendWindowBlocks: Int32 = 4
    /// The touch level never drops below this fraction of the touch band
    /// (5 %), so a noise-free (quantised, flat) panel still has a touch level.
    public static let touchFloorFraction: Float = 0.05
    /// The ceiling of the idle and undershoot counters, scans: far past any
    /// setting, and far from overflow when a block is added.
    public static let countCeiling: Int32 = Int32.max / 2
    /// The sample of "the last undershoot" before any: far enough in the past
    /// that no hold-off is pending, far enough from Int64.min not to overflow.
    public static let distantPastSample: Int64 = Int64.min / 2
    /// While a peek after a fast rise waits, a fall below this fraction of the
    /// crest since the level was passed (three quarters) is an oscillation
    /// turning over: a 20 Hz swing falls that far within 6 ms of its crest,
    /// while a slam holds or climbs and tremor moves a held press by 15 %.
    public static let vibrationTurnFraction: Float = 0.75
    /// A fast rise whose force at twice the curve span is less than this many
    /// times its force at the span (both above the last reading at rest) is
    /// concave: a sine from its zero crossing gives 1.46-1.75 at 20-30 Hz and
    /// 500 scans/s, a straight ramp 2, a finger's S-shaped rise 2.3 and more.
    public static let vibrationConcaveRatio: Float = 1.85
    /// A raw reading within this fraction of the peek level of the one before
    /// counts as held (three readings in a row: pinned). A 20 Hz swing of 2 N
    /// moves 0.02 N a scan at its crest even at 860 scans/s, 0.08 N over two; one
    /// cell on its rail beside quiet ones moves the sum by a few counts.
    public static let vibrationFlatFraction: Float = 0.01
    /// A panel whose quiet blocks spread (`_noise`) more than this fraction of
    /// the peek level (1.5 %) is noisy at the level (see `_noisyCrossingWaits`):
    /// a low-SNR plate is, while quieter panels, even with creep or
    /// vibration, stay below it (at 1 % some of their pops moved a scan).
    public static let noisyLevelFraction: Float = 0.015
    /// A rise that left rest (or passed the peek level) longer ago than this,
    /// seconds, is slow (see `_noisyCrossingWaits`).
    public static let slowCrossingSeconds: Float = 0.1
    /// Below this rate, scans/s, the 10 ms latency target holds fewer than
    /// four scans (two at 80 scans/s, where the median already takes one),
    /// and no crossing waits.
    public static let noisyCrossingMinimumRateHz: Float = 400
    /// Readings in a row past the peek level that a slow, noisy crossing
    /// takes: three (two still let a noisy slow peek through some 26 ms early).
    public static let noisyPeekRun: Int32 = 3
    /// The same for the pop level: two. Three made a pop that sits on the
    /// level in the noise (its baseline leading a thermal ramp that turned
    /// during the press) later than the 50 ms late window.
    public static let noisyPopRun: Int32 = 2
    /// The let-go rule's span, seconds: a finger lifting off falls from the
    /// press to its rest within a few tens of milliseconds, while a thermal
    /// ramp moves the zero by a few mN in that time; 80 ms (the fall is
    /// looked for over one to two spans) keeps the release inside the spec's
    /// 100 ms window after the force crosses half the peek level.
    public static let letGoSeconds: Float = 0.08
    /// The let-go span is never shorter than this, scans: at 10 scans/s a
    /// lift-off falls between two readings.
    public static let letGoMinimumScans: Float = 2
    /// Events one per-scan step can raise at most (release and peek, or peek and pop):
    /// the free room ``step(forces:timestamps:count:firstSample:into:)`` keeps in the ring.
    public static let maximumEventsPerStep = 2
}

extension ForcePipeline {
    /// A flat run while pressed counts as a press held against a stop
    /// (`saturated`, plausible) within the touch band or this fraction of the
    /// highest force seen (5 %), whichever is wider: a converter's limit or a
    /// mechanical stop is where the force topped out.
    public static let clipMarginOfHighest: Float = 0.05
}

extension ClassifierParameters {
    /// The time constant, ms, of the smoothing of the reading's slope: a
    /// quarter second is longer than a tremor and shorter than a press.
    public static let slopeSmoothingMilliseconds: Float = 250
    /// The time constant, ms, of a peek's settled level, the creep
    /// allowance's reference: half a second follows a hold, not the creep.
    public static let creepSmoothingMilliseconds: Float = 500
    /// Creep compensation: how far ahead, ms, the compensated reading is
    /// projected on its rise (never above the reading). The in-target window
    /// is 10 ms: where the compensation would move a crossing by less than
    /// that (a fast rise) the reading decides; a slow rise crosses 10 ms
    /// before the compensated reading would (with none, slow rises on a
    /// creeping FSR came early; with 5 ms, fast pops late).
    public static let creepLeadMilliseconds: Float = 10
    /// The time constant, ms, of the smoothing of that rise: a few tremor
    /// cycles' worth less than a press's rise (20 ms: one early event more).
    public static let creepRateSmoothingMilliseconds: Float = 40
    /// The time constant, ms, of the compensated reading's smoothed level
    /// that a slow climb toward pop is read on (plus its lag on the rise):
    /// long enough to smooth a low-SNR FSR's noise at the pop level, short
    /// enough (20 ms made them late) for a creeping FSR's pops to stay in target.
    public static let creepLevelSmoothingMilliseconds: Float = 10
    /// A peek is still climbing while it rises by more than this fraction of
    /// the gap between the peek and pop levels (a twentieth) above its
    /// settled high, and a hold waits for a steady press: a steady climb
    /// toward pop that gains less than a tenth of the gap per settle time
    /// (0.75 N/s on a 1.9 N gap) still climbs by more than this, while a
    /// held press soon stops setting new highs that far above the last.
    public static let holdRiseFractionOfGap: Float = 0.05
    /// The baseline's rise time where a block reads within the panel's noise
    /// of it, as a fraction of `rise_ms` (see `_trackBaseline`): 1.5 s of the
    /// default 4 s, so a 0.03 N/s thermal ramp is lagged by some 0.045 N, not
    /// 0.12 N (at 0.5 the lag still let a slow press peek early).
    public static let quietRiseFractionOfRise: Float = 0.375
}
