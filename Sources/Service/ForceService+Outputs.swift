import ForceStageClock
import ForceStageCore
import ForceStageFormats
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ForceStageIIO

extension ForceService {
    /// Opens `--uinput`'s virtual device and the profile's haptic actuator, if asked for.
    static func openOutputs(_ configuration: ServiceConfiguration, _ source: PanelSource, setup: PanelSetup, device: IIODevice,
                            logger: Logger) throws(ServiceStartError) -> (haptics: HapticActuator?, uinput: UInputDevice?) {
        var haptics: HapticActuator?
        if let h = source.haptics {
            haptics = try HapticActuator(h)
            logger.info("haptics ready", metadata: ["haptics.device": "\(h.device)", "haptics.effect": "\(h.effect.rawValue)",
                                                    "haptics.duration_ms": "\(h.durationMs)", "haptics.peek": "\(h.onPeek)"])
        }
        guard configuration.uinput else { return (haptics, nil) }
        let map = source.uinput ?? UInputSettings()
        let levels = setup.settings
        let name = map.name ?? "ForceStage \(device.label ?? device.name ?? device.displayName)"
        let fuzz = map.fuzzNewtons ?? levels.peekNewtons * 0.02
        let uinput: UInputDevice
        do {
            uinput = try UInputDevice(path: configuration.uinputPath, name: name, settings: map,
                                      maxNewtons: map.maxNewtons ?? levels.popNewtons * 3, fuzzNewtons: fuzz, flatNewtons: fuzz)
        } catch {
            haptics?.close()
            throw error
        }
        logger.info("uinput device created", metadata: [
            "uinput.name": "\(name)", "uinput.device": "\(uinput.eventNode ?? "?")",
            "uinput.peek": "\(map.peek.map(InputCodes.name(of:)) ?? "none")",
            "uinput.pop": "\(map.pop.map(InputCodes.name(of:)) ?? "none")",
            "uinput.hold": "\(map.hold.map(InputCodes.name(of:)) ?? "none")",
        ])
        return (haptics, uinput)
    }

    /// Checks that `--metrics-file` can be written: a `.prom` file in an existing directory.
    static func checkMetricsFile(_ path: String?) throws(ServiceStartError) {
        guard let path else { return }
        guard path.hasSuffix(".prom") else {
            throw ServiceStartError("--metrics-file \(path): node_exporter's textfile collector reads only *.prom files; name it e.g. forcestage.prom")
        }
        do { try AtomicFile.write([], toPath: path) } catch {
            throw ServiceStartError("--metrics-file \(path): cannot write it (\(error)); point it into the textfile collector's directory, writable by the service user")
        }
    }

    /// Rewrites the metrics file when its interval has passed (and at the end).
    func writeMetricsIfDue(_ sink: inout SinkState, force: Bool) {
        guard let path = configuration.metricsFile else { return }
        let now = monotonicNanoseconds()
        guard force || now >= sink.nextMetrics else { return }
        sink.nextMetrics = now + Int64(configuration.metricsIntervalMs) * 1_000_000
        guard let text = PrometheusMetrics.render(statusLine: statusJSON(sink, final: force)) else { return }
        do {
            try AtomicFile.write(Array(text.utf8), toPath: path)
            if sink.metricsFailed { logger.notice("metrics file written again", metadata: ["metrics.file": "\(path)"]) }
            sink.metricsFailed = false
        } catch {
            if !sink.metricsFailed { logger.error("cannot write the metrics file", metadata: ["metrics.file": "\(path)", "error": "\(error)"]) }
            sink.metricsFailed = true
        }
    }

    /// Removes the virtual device and the uploaded effect.
    func closeOutputs() {
        uinput?.close()
        haptics?.close()
    }
}
