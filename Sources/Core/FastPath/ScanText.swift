// Human-readable text for the core's errors and values: host conveniences,
// left out of Embedded builds so firmware carries no string tables. Here,
// with the core's other host-only code, because its readers (IIO, Formats,
// Service, Tools, the command line) share no module but the core.
#if !hasFeature(Embedded)

extension FormatError {
    /// A one-line explanation with what to do about it.
    public var message: String {
        switch self {
        case .malformed:
            return "expected <le|be>:<s|u><realbits>/<storagebits>>><shift>, as in scan_elements/*_type (e.g. le:s16/16>>0)"
        case .unsupportedStorageBits(let bits):
            return "storage of \(bits) bits is not supported; the kernel uses 8, 16, 32 or 64"
        case .realBitsOutOfRange(let bits):
            return "realbits \(bits) must be between 1 and storagebits"
        case .shiftOutOfRange(let shift):
            return "shift \(shift) plus realbits exceeds storagebits"
        case .repeatUnsupported:
            return "repeated channels (X<n>) are not supported; enable one value per channel"
        }
    }
}

extension ChannelFormat {
    /// The canonical text, as the kernel writes it (lower-case sign).
    public var text: String {
        (bigEndian ? "be:" : "le:") + (signed ? "s" : "u") + String(realBits) + "/" +
            String(storageBits) + ">>" + String(shift)
    }
}

extension LayoutError {
    /// A one-line explanation with what to do about it.
    public var message: String {
        switch self {
        case .empty: return "a scan needs at least one channel"
        case .tooManyChannels(let n): return "\(n) channels exceed the \(ScanLayout.maximumChannels) a scan may hold"
        case .duplicateIndex(let i): return "two channels have scan index \(i); each index must be unique"
        case .indexOutOfRange(let i): return "scan index \(i) is out of range (0...\(ScanLayout.maximumIndex))"
        }
    }
}

extension CalibrationError {
    /// A one-line explanation with what to do about it.
    public var message: String {
        switch self {
        case .tooFewPoints(let n): return "a curve needs at least 2 [raw, newtons] points, got \(n)"
        case .tooManyPoints(let n): return "a curve may have at most \(ForceCurve.maximumPoints) points, got \(n)"
        case .rawNotIncreasing(let p): return "curve point \(p): raw values must strictly increase; sort the points by raw value"
        case .newtonsNotMonotone(let p): return "curve point \(p): newtons must be monotone (all rising or all falling); re-measure or drop the point"
        case .notFinite: return "calibration values must be finite numbers"
        case .zeroScale: return "newtonsPerCount must not be zero"
        case .tooManyForceChannels(let n): return "at most \(PanelCalibration.maximumForceChannels) force channels, got \(n)"
        case .tooManyCurvePoints(let n): return "the curves of all channels may have at most \(PanelCalibration.maximumCurvePoints) points together, got \(n) or more; use fewer points per curve"
        case .slotOutOfRange(let s): return "force channel slot \(s) is not in the scan layout"
        case .outOfRange: return "out of range: raw counts at most 2^53 in magnitude, newtonsPerCount between 1e-12 and 1000 in magnitude, newtons at most 1e6"
        }
    }
}

extension SettingsError {
    /// A one-line explanation with what to do about it.
    public var message: String {
        switch self {
        case .sampleRateNotPositive: return "sampleRateHz must be a positive number of scans per second"
        case .peekNotPositive: return "peekNewtons must be above zero"
        case .popNotAbovePeek: return "popNewtons must be above peekNewtons"
        case .releaseFractionOutOfRange: return "releaseFraction must be between 0 and 1 (release happens at peek x fraction)"
        case .negativeTime(let key): return "\(key.name) must be zero or more milliseconds"
        case .touchFractionOutOfRange: return "baseline touchFraction must be between 0 and 1"
        case .creepAllowanceOutOfRange: return "creepAllowance must be from 0 up to (not including) 1, e.g. 0.15 for an FSR"
        case .creepAmountOutOfRange: return "creepAmount must be from 0 to 0.5, e.g. 0.10 for an FSR that creeps 5-15 % (0 turns the compensation off)"
        case .creepTimeOutOfRange: return "creepMilliseconds must be above 0 and at most 60000, e.g. 2000 for an FSR's 1-3 s creep"
        case .baselineFloorNotFinite: return "baseline floorNewtons must be a finite number of newtons (or unset)"
        case .stuckStepFractionOutOfRange: return "stuckStepFraction must be from 0 up to (not including) 1, e.g. 0.01 (0 turns it off)"
        }
    }
}

extension Sensitivity {
    /// The preset's name.
    public var name: String {
        switch self {
        case .light: return "light"
        case .medium: return "medium"
        case .firm: return "firm"
        }
    }
}

extension EventKind {
    /// The name used in event streams and recordings' labels.
    public var name: String {
        switch self {
        case .peek: return "peek"
        case .pop: return "pop"
        case .release: return "release"
        case .hold: return "hold"
        case .saturated: return "saturated"
        case .stuck: return "stuck"
        case .lost: return "lost"
        case .recovered: return "recovered"
        }
    }
}

extension TimeSetting {
    /// The setting's key as profiles and recordings spell it.
    public var name: String {
        switch self {
        case .pressDebounce: return "pressDebounce.milliseconds"
        case .releaseDebounce: return "releaseDebounce.milliseconds"
        case .hold: return "holdMilliseconds"
        case .stuck: return "stuckMilliseconds"
        case .baselineRise: return "baseline.riseMilliseconds"
        case .baselineFall: return "baseline.fallMilliseconds"
        case .baselineSmoothing: return "baseline.smoothingMilliseconds"
        case .baselineWarmup: return "baseline.warmupMilliseconds"
        case .baselineSettle: return "baseline.settleMilliseconds"
        case .baselineUndershoot: return "baseline.undershootMilliseconds"
        case .holdSettle: return "holdSettleMilliseconds"
        case .spikeMaximum: return "spikeMaximumMilliseconds"
        case .vibrationHoldoff: return "vibrationHoldoffMilliseconds"
        case .vibrationRise: return "vibrationRiseMilliseconds"
        case .vibrationConfirm: return "vibrationConfirmMilliseconds"
        case .vibrationCurve: return "vibrationCurveMilliseconds"
        case .vibrationCurveWait: return "vibrationCurveWaitMilliseconds"
        }
    }
}

extension ChannelFormat {
    /// Parses the kernel's text form, e.g. `le:s16/16>>0`.
    public init(parsing text: String) throws(FormatError) {
        try self.init(parsing: Array(text.utf8))
    }
}

extension PositionError {
    /// A one-line explanation with what to do about it.
    public var message: String {
        switch self {
        case .notFinite(let cell): return "cell \(cell)'s position is not a finite number"
        case .outsidePlate(let cell): return "cell \(cell)'s position lies outside the plate (each coordinate must be within 0..1)"
        case .tooManyCells(let n): return "\(n) cell positions; a panel has at most \(PanelCalibration.maximumForceChannels) cells"
        case .tooFewCells(let n): return "\(n) cell position(s) for a multi-cell panel; every force cell needs one, and at least two cells"
        case .collinear: return "the cells all lie on one line, so a press's position across it cannot be told"
        case .samePoint: return "the two cells sit at one point, so a press's position along them cannot be told"
        }
    }
}
#endif
