/// The rule for an IIO channel id as profiles and recordings name one
/// (`voltage0`, `voltage0-voltage1`, `accel_x`, `timestamp`): one place, so
/// every reader accepts the same ids and `profile check` approves only ids a
/// device or recording can have.
public enum ChannelID {
    /// The longest id accepted, in bytes (the kernel's are a few dozen at most).
    public static let maximumBytes = 64

    /// Why `id` cannot name an IIO channel, or nil when it can: it must be 1 to
    /// ``maximumBytes`` ASCII letters, digits, `_` or `-`, the characters
    /// of the kernel's channel attribute names.
    public static func problem(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        guard id.utf8.count <= maximumBytes else { return "is \(id.utf8.count) bytes long, more than \(maximumBytes)" }
        for s in id.unicodeScalars {
            let allowed = ("0"..."9").contains(s) || ("A"..."Z").contains(s) || ("a"..."z").contains(s) || s == "_" || s == "-"
            // Named by code point: the id itself may hold what a terminal would act on.
            guard allowed else { return "holds U+\(String(s.value, radix: 16, uppercase: true)), which no IIO channel id has" }
        }
        return nil
    }

    /// What to write instead, for the error's hint.
    public static let hint = "name the IIO channel as the device does, e.g. voltage0 or voltage0-voltage1"
}
