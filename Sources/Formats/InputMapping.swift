/// How `forcestage run --uinput` speaks evdev: which key or button each gesture
/// presses, and how force is scaled into `ABS_PRESSURE`. Read from a profile's
/// `[uinput]` table; the defaults apply without one.
public struct UInputSettings: Sendable, Equatable {
    /// The device name applications see; default "ForceStage <profile name>".
    public var name: String?
    /// The key or button pressed at peek and held until release (`nil`: none).
    public var peek: UInt16?
    /// The key or button pressed at pop and held until release.
    public var pop: UInt16?
    /// The key or button pressed at hold and held until release.
    public var hold: UInt16?
    /// The force at the top of `ABS_PRESSURE`'s range, newtons (default: 3 x the pop level).
    public var maxNewtons: Float?
    /// `ABS_PRESSURE`'s fuzz: changes smaller than this are noise, newtons (default: 2 % of the peek level).
    public var fuzzNewtons: Float?

    /// A peek presses nothing, a pop presses the left button, a hold nothing.
    public init(name: String? = nil, peek: UInt16? = nil, pop: UInt16? = InputCodes.btnLeft, hold: UInt16? = nil,
                maxNewtons: Float? = nil, fuzzNewtons: Float? = nil) {
        self.name = name
        self.peek = peek
        self.pop = pop
        self.hold = hold
        self.maxNewtons = maxNewtons
        self.fuzzNewtons = fuzzNewtons
    }
}

/// What `[haptics]` asks for: an actuator behind an evdev force-feedback device.
public struct HapticsSettings: Sendable, Equatable {
    /// The waveform uploaded with EVIOCSFF.
    public enum Effect: String, Sendable, CaseIterable {
        /// FF_RUMBLE: strong and weak motor magnitudes (ERM/LRA drivers).
        case rumble
        /// FF_PERIODIC with FF_SINE (piezo and LRA drivers that take a waveform).
        case periodic
    }
    /// The evdev node (`/dev/input/eventN` or a stable `/dev/input/by-path/...` link).
    public var device: String
    /// Which waveform to upload.
    public var effect: Effect = .rumble
    /// Also tap at peek (pop always taps).
    public var onPeek = false
    /// Length of one tap, ms (1...1000).
    public var durationMs: UInt16 = 20
    /// Strength 0...1 (scaled to the 16-bit magnitude).
    public var strength: Float = 0.75
    /// Sine period for `periodic`, ms.
    public var periodMs: UInt16 = 5

    /// Haptics on `device` with the defaults.
    public init(device: String) { self.device = device }
}

/// Linux input event codes (linux/input-event-codes.h) that ForceStage uses or
/// accepts by name in `[uinput]`.
public enum InputCodes {
    public static let evSyn: UInt16 = 0x00
    public static let evKey: UInt16 = 0x01
    public static let evAbs: UInt16 = 0x03
    public static let evFF: UInt16 = 0x15
    public static let synReport: UInt16 = 0
    public static let absX: UInt16 = 0x00
    public static let absY: UInt16 = 0x01
    public static let absPressure: UInt16 = 0x18
    public static let btnLeft: UInt16 = 0x110
    public static let btnTouch: UInt16 = 0x14a
    /// The largest key code the kernel takes (KEY_MAX).
    public static let keyMax: UInt16 = 0x2ff

    /// The names `[uinput]` accepts, with their codes.
    public static let keyNames: [(name: String, code: UInt16)] = [
        ("KEY_ESC", 1), ("KEY_BACKSPACE", 14), ("KEY_TAB", 15), ("KEY_ENTER", 28), ("KEY_SPACE", 57),
        ("KEY_F1", 59), ("KEY_F2", 60), ("KEY_F3", 61), ("KEY_F4", 62), ("KEY_F5", 63), ("KEY_F6", 64),
        ("KEY_F7", 65), ("KEY_F8", 66), ("KEY_F9", 67), ("KEY_F10", 68), ("KEY_F11", 87), ("KEY_F12", 88),
        ("KEY_HOME", 102), ("KEY_UP", 103), ("KEY_PAGEUP", 104), ("KEY_LEFT", 105), ("KEY_RIGHT", 106),
        ("KEY_END", 107), ("KEY_DOWN", 108), ("KEY_PAGEDOWN", 109), ("KEY_MUTE", 113), ("KEY_VOLUMEDOWN", 114),
        ("KEY_VOLUMEUP", 115), ("KEY_POWER", 116), ("KEY_MENU", 139), ("KEY_BACK", 158), ("KEY_FORWARD", 159),
        ("KEY_PLAYPAUSE", 164), ("KEY_OK", 0x160), ("KEY_SELECT", 0x161),
        ("BTN_0", 0x100), ("BTN_1", 0x101), ("BTN_2", 0x102), ("BTN_3", 0x103),
        ("BTN_LEFT", 0x110), ("BTN_RIGHT", 0x111), ("BTN_MIDDLE", 0x112),
        ("BTN_STYLUS", 0x14b), ("BTN_STYLUS2", 0x14c),
    ]

    /// The code for a name in ``keyNames`` (case-insensitive), or `nil`.
    public static func code(named name: String) -> UInt16? {
        let upper = name.uppercased()
        return keyNames.first { $0.name == upper }?.code
    }

    /// The name of a code, or its number in hex.
    public static func name(of code: UInt16) -> String {
        if code == btnTouch { return "BTN_TOUCH" }
        return keyNames.first { $0.code == code }?.name ?? "0x" + String(code, radix: 16)
    }
}
