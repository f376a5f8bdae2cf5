import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats
import ForceStageTools

/// `[uinput]` and `[haptics]` in a profile: read into typed values, every bad value refused with its line and key.
@Suite("Profiles: [uinput] and [haptics]")
struct UInputProfileTests {
    static let base = """
    schema = 1
    name = "kiosk"
    [levels]
    sensitivity = "medium"
    [[channel]]
    id = "voltage0"
    zero_raw = 0
    newtons_per_count = 0.001

    """

    @Test("Names, numbers, none and the defaults")
    func reads() throws {
        let p = try Profile.parse(Self.base + """
        [uinput]
        name = "Kiosk panel"
        peek = "btn_left"
        pop = "KEY_ENTER"
        hold = 139
        max_newtons = 8
        fuzz_newtons = 0.05
        [haptics]
        device = "/dev/input/by-path/platform-haptic-event"
        effect = "periodic"
        peek = true
        duration_ms = 12
        strength = 0.5
        """, file: "k.toml")
        let u = try #require(p.uinput)
        #expect(u == UInputSettings(name: "Kiosk panel", peek: 0x110, pop: 28, hold: 139, maxNewtons: 8, fuzzNewtons: 0.05))
        let h = try #require(p.haptics)
        #expect(h.device == "/dev/input/by-path/platform-haptic-event" && h.effect == .periodic && h.onPeek)
        #expect(h.durationMs == 12 && h.strength == 0.5 && h.periodMs == 5)

        let none = try Profile.parse(Self.base + "[uinput]\npop = \"none\"\n", file: "k.toml")
        #expect(none.uinput == UInputSettings(pop: nil))
        // peek on the default pop button: the pop gives it up.
        let peekLeft = try Profile.parse(Self.base + "[uinput]\npeek = \"BTN_LEFT\"\n", file: "k.toml")
        #expect(peekLeft.uinput == UInputSettings(peek: InputCodes.btnLeft, pop: nil))
        let plain = try Profile.parse(Self.base, file: "k.toml")
        #expect(plain.uinput == nil && plain.haptics == nil)
        #expect(UInputSettings().pop == InputCodes.btnLeft && UInputSettings().peek == nil)
    }

    static let broken: [(String, Int, String)] = [
        ("[uinput]\npop = \"KEY_ENTR\"", 10, "uinput.pop"),
        ("[uinput]\npeek = 330", 10, "uinput.peek"),
        ("[uinput]\npeek = 1000", 10, "uinput.peek"),
        ("[uinput]\npeek = true", 10, "uinput.peek"),
        ("[uinput]\npeek = \"BTN_LEFT\"\nhold = \"btn_left\"", 11, "uinput.hold"),
        ("[uinput]\nmax_newtons = 0", 10, "uinput.max_newtons"),
        ("[uinput]\nmax_newtons = 1e9", 10, "uinput.max_newtons"),
        ("[uinput]\nname = \"\"", 10, "uinput.name"),
        ("[uinput]\nrelease = \"KEY_A\"", 10, "uinput.release"),
        ("[haptics]\neffect = \"rumble\"", 9, "haptics.device"),
        ("[haptics]\ndevice = \"event3\"", 10, "haptics.device"),
        ("[haptics]\ndevice = \"/dev/input/event3\"\neffect = \"buzz\"", 11, "haptics.effect"),
        ("[haptics]\ndevice = \"/dev/input/event3\"\nstrength = 1.5", 11, "haptics.strength"),
        ("[haptics]\ndevice = \"/dev/input/event3\"\nduration_ms = 5000", 11, "haptics.duration_ms"),
        ("[haptics]\ndevice = \"/dev/input/event3\"\nduration_ms = -1", 11, "haptics.duration_ms"),
    ]

    @Test("Each bad value names its line and key", arguments: broken.indices)
    func errors(_ i: Int) {
        let (extra, line, key) = Self.broken[i]
        do {
            _ = try Profile.parse(Self.base + extra + "\n", file: "p.toml")
            Issue.record("case \(i) was accepted")
        } catch {
            #expect(error.line == line, "case \(i): \(error.description)")
            #expect(error.key == key, "case \(i): \(error.description)")
        }
    }
}
