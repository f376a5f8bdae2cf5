import ForceStageCore
import ForceStageHost
import Foundation
import Logging

extension ForceService {
    /// Opens `--uinput`'s virtual device and the profile's haptic actuator, if asked for.
    func openOutputs(_ source: PanelSource) throws(ServiceStartError) {
        if let h = source.haptics {
            haptics = try HapticActuator(h)
            logger.info("haptics ready", metadata: ["haptics.device": "\(h.device)", "haptics.effect": "\(h.effect.rawValue)",
                                                    "haptics.duration_ms": "\(h.durationMs)", "haptics.peek": "\(h.onPeek)"])
        }
        guard configuration.uinput else { return }
        let map = source.uinput ?? UInputSettings()
        let levels = setup.settings
        let name = map.name ?? "ForceStage \(deviceLabel ?? deviceIIOName ?? deviceName)"
        let fuzz = map.fuzzNewtons ?? levels.peekNewtons * 0.02
        do {
            uinput = try UInputDevice(path: configuration.uinputPath, name: name, settings: map,
                                      maxNewtons: map.maxNewtons ?? levels.popNewtons * 3, fuzzNewtons: fuzz, flatNewtons: fuzz)
        } catch {
            haptics?.close()
            haptics = nil
            throw error
        }
        logger.info("uinput device created", metadata: [
            "uinput.name": "\(name)", "uinput.device": "\(uinput?.eventNode ?? "?")",
            "uinput.peek": "\(map.peek.map(InputCodes.name(of:)) ?? "none")",
            "uinput.pop": "\(map.pop.map(InputCodes.name(of:)) ?? "none")",
            "uinput.hold": "\(map.hold.map(InputCodes.name(of:)) ?? "none")",
        ])
    }

    /// Removes the virtual device and the uploaded effect.
    func closeOutputs() {
        uinput?.close()
        haptics?.close()
    }
}
