import ForceStageFormats
import ForceStageService
#if canImport(Glibc)
import Glibc
#endif

extension RunOptions {
    /// `run --haptics-test N`: taps the profile's actuator N times, a tap's length
    /// plus 50 ms apart, and prints how long each play took (call to write returning).
    func runHapticsTest(profile path: String, taps: Int) throws(CommandFailure) {
        let profile: Profile
        do { profile = try Profile.load(path: path) } catch { throw CommandFailure(.badInput, error.description) }
        guard let settings = profile.haptics else {
            throw CommandFailure(.badInput, "\(path) has no [haptics] table; add one naming the actuator (device = \"/dev/input/eventN\")")
        }
        let actuator: HapticActuator
        do { actuator = try HapticActuator(settings) } catch { throw CommandFailure(error.status, error.description) }
        defer { actuator.close() }
        var delays: [Int64] = []
        delays.reserveCapacity(taps)
        let gap = useconds_t(settings.durationMs) * 1000 + 50_000
        for i in 0..<taps {
            if i > 0 { usleep(gap) }
            if let d = actuator.play() { delays.append(d) }
        }
        let failed = taps - delays.count
        guard !delays.isEmpty else { throw CommandFailure(.deviceFault, "every play on \(settings.device) failed (write of EV_FF)") }
        delays.sort()
        func p(_ q: Double) -> String {
            let v = percentile(delays, q / 100)!
            return fixed(Double(v) / 1e6, 3)
        }
        print("haptics \(settings.device) (\(settings.effect.rawValue), \(settings.durationMs) ms): \(delays.count) taps, \(failed) failed")
        print("delay (call to write returning), ms: p50 \(p(50))  p90 \(p(90))  p99 \(p(99))  max \(p(100))")
        if failed > 0 { throw CommandFailure(.deviceFault, "\(failed) of \(taps) plays on \(settings.device) failed (write of EV_FF)") }
    }
}
