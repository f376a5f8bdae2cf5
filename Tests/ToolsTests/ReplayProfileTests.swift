import Foundation
import TestSupport
import Testing

/// `replay --profile` checks the profile's [match] against the recording, as `run` does for a device.
@Suite("replay --profile for another device")
struct ReplayProfileTests {
    @Test("A profile for ads1015 on the HX711 demo is refused with run's words and exit 1; the HX711 profile replays")
    func foreignRefused() throws {
        let demo = repositoryRoot.appendingPathComponent("hardware/recordings/demo-hx711.json").path
        let foreign = try forcestage(["replay", demo, "--profile", repositoryRoot.appendingPathComponent("calibration/fsr-ads1115.toml").path])
        #expect(foreign.status == 1)
        #expect(foreign.stdout.isEmpty)
        #expect(foreign.stderr == "forcestage replay: profile fsr-ads1115 is for devices named \"ads1015\", not \"hx711\" (\(demo)); pass a profile made for this panel\n")
        let own = try forcestage(["replay", demo, "--profile", repositoryRoot.appendingPathComponent("calibration/hx711-kiosk.toml").path])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stdout.contains("\"event\":\"pop\""))
    }
}
