import ForceStageFormats
#if canImport(Glibc)
import Glibc
#endif

/// The service's status in Prometheus' text exposition format (version 0.0.4):
/// what `forcestage status --prometheus` prints and `run --metrics-file` writes
/// for node_exporter's textfile collector.
public enum PrometheusMetrics {
    /// The metrics for a status line (the JSON `status` reply), or `nil` when it is not one.
    public static func render(statusLine: String) -> String? {
        guard let top = try? JSON.parse(statusLine), let s = top["status"], s.members != nil else { return nil }
        var out = ""
        func number(_ v: JSON?) -> Double? { v?.number }
        func value(_ d: Double) -> String {
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d > 0 ? "+Inf" : "-Inf" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        }
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double?)]) {
            let present = samples.compactMap { labels, v in v.map { (labels, $0) } }
            guard !present.isEmpty else { return }
            out += "# HELP forcestage_\(name) \(help)\n# TYPE forcestage_\(name) \(type)\n"
            for (labels, v) in present {
                let suffix = labels.hasPrefix("_") ? String(labels.prefix { $0 != "{" }) : ""
                let rest = labels.hasPrefix("_") ? String(labels.dropFirst(suffix.count)) : labels
                out += "forcestage_\(name)\(suffix)\(rest) \(value(v))\n"
            }
        }
        func simple(_ name: String, _ type: String, _ help: String, _ v: JSON?) { family(name, type, help, [("", number(v))]) }
        func simple(_ name: String, _ type: String, _ help: String, _ v: Double?) { family(name, type, help, [("", v)]) }
        func quantiles(_ name: String, _ help: String, _ key: String) {
            guard let l = s[key], l.members != nil, let n = number(l["samples"]) else { return }
            var samples: [(String, Double?)] = []
            for (q, k) in [("0.5", "p50"), ("0.9", "p90"), ("0.99", "p99"), ("0.999", "p999"), ("1", "max")] {
                samples.append(("{quantile=\"\(q)\"}", number(l[k]).map { $0 / 1000 }))
            }
            samples.append(("_count", n))
            family(name, "summary", help + " (quantiles over the most recent events; 1 is the maximum since start)", samples)
        }
        func escape(_ v: String?) -> String {
            (v ?? "").replacingScalars("\\", with: "\\\\").replacingScalars("\"", with: "\\\"")
                .replacingScalars("\n", with: "\\n")
        }
        family("info", "gauge", "The service's device, profile and version (always 1).",
               [("{device=\"\(escape(s["device"]?.displayText))\",profile=\"\(escape(s["profile"]?.displayText))\",version=\"\(escape(forceStageVersion))\"}", 1)])
        let health = s["health"]?.string ?? ""
        family("health", "gauge", "1 for the sensor's current state.",
               [ServiceHealth.starting, .streaming, .lost, .stopping].map { ("{state=\"\($0.name)\"}", $0.name == health ? 1 : 0) })
        simple("uptime_seconds", "gauge", "Seconds since the service started.", s["uptimeSeconds"])
        simple("sample_rate_hertz", "gauge", "Scans per second the sensor delivers.", s["sampleRateHz"])
        simple("scans_total", "counter", "Scans classified.", s["scans"])
        simple("scans_read_total", "counter", "Scans read from the device.", s["scansRead"])
        simple("dropped_scans_total", "counter", "Scans lost on the way (gaps in the sensor's timestamps).", s["droppedScans"])
        simple("events_total", "counter", "Events emitted.", s["events"])
        let o = s["overflows"] ?? .object([])
        family("overflows_total", "counter", "Entries a full ring could not take, by ring.",
               [("{ring=\"classifier\"}", number(o["classifierRing"])),
                ("{ring=\"event\"}", number(o["eventRing"]))])
        simple("budget_seconds", "gauge", "The press-to-event latency budget.", number(s["budgetMs"]).map { $0 / 1000 })
        simple("worst_case_seconds", "gauge", "The computed worst-case press-to-event time.", number(s["worstCaseMs"]).map { $0 / 1000 })
        simple("budget_violations_total", "counter", "Events whose press-to-event latency exceeded the budget.", s["budgetViolations"])
        quantiles("latency_seconds", "Press-to-event latency", "latencyMs")
        quantiles("host_latency_seconds", "Scan arrival to event written", "hostLatencyMs")
        quantiles("haptic_delay_seconds", "Scan arrival to the haptic effect's write returning", "hapticDelayMs")
        simple("haptic_failures_total", "counter", "Haptic plays that failed.", s["hapticFailures"])
        simple("uinput_write_failures_total", "counter", "Writes to the uinput device that failed.", s["uinput"]?["writeFailures"])
        simple("sensor_losses_total", "counter", "Times the sensor was lost.", s["losses"])
        simple("reloads_total", "counter", "Profile reloads applied.", s["reloads"])
        simple("reload_failures_total", "counter", "Profile reloads refused.", s["reloadFailures"])
        simple("clients", "gauge", "Socket clients connected.", s["clients"])
        simple("client_drops_total", "counter", "Events dropped for slow socket clients.", s["clientDrops"])
        return out
    }
}
