import Foundation
import TestSupport
import Testing
import ForceStageCore
import ForceStageFormats

/// `sample_rate_hz`: the rate a profile was calibrated at, for devices that state none.
@Suite("Profiles: sample_rate_hz")
struct ProfileRateTests {
    static func text(rate: String?) -> String {
        """
        schema = 1
        name = "kiosk"
        \(rate.map { "sample_rate_hz = \($0)" } ?? "")

        [match]
        name = "hx711"

        [levels]
        peek_newtons = 1.0
        pop_newtons = 2.5

        [[channel]]
        id = "voltage0"
        zero_raw = 100
        newtons_per_count = 0.001
        """
    }

    @Test("Read, bounded, written back; absent means the profile states no rate")
    func readsAndWrites() throws {
        let p = try Profile.parse(Self.text(rate: "80"), file: "kiosk.toml")
        #expect(p.sampleRateHz == 80)
        #expect(try Profile.parse(Self.text(rate: nil), file: "kiosk.toml").sampleRateHz == nil)
        let again = try Profile.parse(p.tomlText(), file: "again.toml")
        #expect(again.sampleRateHz == 80)
        for bad in ["0", "-80", "2000000", "\"fast\""] {
            do {
                _ = try Profile.parse(Self.text(rate: bad), file: "kiosk.toml")
                Issue.record("sample_rate_hz = \(bad) was accepted")
            } catch {
                #expect(error.description.contains("kiosk.toml:3: sample_rate_hz: must be"), "\(error.description)")
            }
        }
    }

    @Test("The shipped HX711 profile states its 80 scans/s, and a calibration choice of it carries the rate")
    func shippedProfile() throws {
        let p = try Profile.load(path: packageRoot.appendingPathComponent("calibration/hx711-kiosk.toml").path)
        #expect(p.sampleRateHz == 80)
        #expect(CalibrationChoice.profile(p).sampleRateHz == 80)
    }
}
