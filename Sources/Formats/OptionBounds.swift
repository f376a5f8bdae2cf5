/// The one wording for a number outside its bounds on the command line, used by
/// `forcestage`'s option checks and `forcestage-service`'s own parser alike.
public enum OptionBounds {
    /// The message when `value` is not finite or outside `range`, else `nil`;
    /// it names the flag, the range and the unit.
    public static func problem(_ value: Double?, _ flag: String, _ range: ClosedRange<Double>, _ unit: String) -> String? {
        guard let value else { return nil }
        guard value.isFinite, range.contains(value) else {
            return "\(flag) must be a number from \(JSON.format(range.lowerBound)) to \(JSON.format(range.upperBound)) \(unit), got \(value)"
        }
        return nil
    }

    /// Whether `word` after a value option is its value although it starts with
    /// a dash: a negative number (`-5`, `-0.5`, `-1e3`, `-inf`) or a dash and a
    /// digit (`-5:10` for `--trace`). ArgumentParser would take it for an option
    /// and say the value is missing; both programs' parsers take it as the value.
    public static func isNegativeValue(_ word: String) -> Bool {
        word.count > 1 && word.count <= 64 && word.hasPrefix("-")
            && (Double(word) != nil || word.dropFirst().first.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true)
    }

    /// The same for an integer option.
    public static func problem(_ value: Int?, _ flag: String, _ range: ClosedRange<Int>, _ unit: String) -> String? {
        guard let value else { return nil }
        guard range.contains(value) else { return "\(flag) must be from \(range.lowerBound) to \(range.upperBound) \(unit), got \(value)" }
        return nil
    }
}

/// `--rate`'s help, written once for `forcestage`'s option groups and `forcestage-service`'s table.
public enum RateHelp {
    /// For `record` and `calibrate`, which have no calibration option.
    public static let device = "Scans per second when the device has no sampling_frequency (default: the sample_rate_hz of the profile in calibration/ that matches the device)."
    /// For `run` and `meter`: the chosen calibration's rate.
    public static let calibrated = "Scans per second when the device has no sampling_frequency (default: the calibration's rate: the profile's sample_rate_hz, or the --calibration recording's rate)."
}
