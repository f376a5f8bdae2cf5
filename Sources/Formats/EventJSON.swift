import ForceStageCore
import ForceStageGestures

/// One event as a JSON object, the line format of `replay` and `run`.
///
/// Keys: `event`, `sample`, `timestampNs`, `forceNewtons` (4 decimals),
/// `latencyScans`, `latencyMs` (from the sample rate, 3 decimals).
/// On a multi-cell panel, peek, pop, hold and release also carry `x` and `y`
/// (the centre of pressure in plate units, 4 decimals).
public func eventJSON(_ e: ForceEvent, sampleRateHz: Double) -> JSON {
    var fields: [(String, JSON)] = [
        ("event", .string(e.kind.name)),
        ("sample", .int(e.sample)),
        ("timestampNs", .int(e.timestampNs)),
        ("forceNewtons", .double(finiteNewtons(e.forceNewtons))),
        ("latencyScans", .int(Int64(e.latencyScans))),
        ("latencyMs", .double((Double(e.latencyScans) * 1_000_000 / sampleRateHz).rounded() / 1000)),
    ]
    if let p = e.position {
        fields.append(("x", .double((Double(p.x) * 10_000).rounded() / 10_000)))
        fields.append(("y", .double((Double(p.y) * 10_000).rounded() / 10_000)))
    }
    return .object(fields)
}

/// One event as a fixed-width text line for people.
public func eventText(_ e: ForceEvent, sampleRateHz: Double) -> String {
    let ms = Double(e.latencyScans) * 1000 / sampleRateHz
    let name = e.kind.name.padded(to: 9)
    let seconds = Double(e.sample) / sampleRateHz
    return "\(name) scan \(pad(e.sample, 7))  t=\(fixed(seconds, 3))s  force \(fixed(Double(e.forceNewtons), 3)) N  latency \(e.latencyScans) scans (\(fixed(ms, 1)) ms)"
        + (e.position.map { "  at \(fixed(Double($0.x), 3)), \(fixed(Double($0.y), 3))" } ?? "")
}

/// The event's force to 4 decimals, always a finite number: a non-finite
/// force (which validated calibrations cannot produce) is printed as the
/// largest finite Float of its sign, never as `null`.
func finiteNewtons(_ f: Float) -> Double {
    let v = f.isNaN ? 0 : Double(max(-Float.greatestFiniteMagnitude, min(Float.greatestFiniteMagnitude, f)))
    return abs(v) < 1e14 ? (v * 10_000).rounded() / 10_000 : v
}

func pad(_ n: Int64, _ width: Int) -> String {
    let s = String(n)
    return String(repeating: " ", count: max(0, width - s.count)) + s
}

/// `value` with exactly `decimals` digits after the point.
public func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<max(0, min(decimals, 9)) { scale *= 10 }
    // Where the fixed form would not fit 64-bit integers, print the shortest exact form.
    guard abs(value) * scale < 1e18 else { return JSON.format(value) }
    let r = (abs(value) * scale).rounded()
    let whole = Int64(r / scale)
    let frac = Int64(r) - whole * Int64(scale)
    let sign = value < 0 && r != 0 ? "-" : ""
    if decimals == 0 { return sign + String(whole) }
    let f = String(frac)
    return sign + String(whole) + "." + String(repeating: "0", count: decimals - f.count) + f
}

/// One gesture event as a JSON object (the line format of `replay --gestures`).
public func gestureJSON(_ g: GestureEvent, sampleRateHz: Double) -> JSON {
    func r4(_ v: Float) -> JSON { .double((Double(v) * 10_000).rounded() / 10_000) }
    switch g {
    case .press(let e, let region):
        guard case .object(var fields) = eventJSON(e, sampleRateHz: sampleRateHz) else { return eventJSON(e, sampleRateHz: sampleRateHz) }
        if let region { fields.append(("region", .string(region))) }
        return .object(fields)
    case .actions(let region, let actions, let sample):
        return .object([("event", .string("actions")), ("sample", .int(sample)), ("region", .string(region)),
                        ("actions", .array(actions.map { .string($0) }))])
    case .open(let region, let action, let sample):
        return .object([("event", .string("open")), ("sample", .int(sample)), ("region", .string(region)), ("action", .string(action))])
    case .dismiss(let region, let sample):
        return .object([("event", .string("dismiss")), ("sample", .int(sample)), ("region", .string(region))])
    case .move(let sample, let x, let y, let force):
        return .object([("event", .string("move")), ("sample", .int(sample)), ("x", r4(x)), ("y", r4(y)), ("forceNewtons", r4(force))])
    case .spring(let region, let sample, let x, let y):
        return .object([("event", .string("spring")), ("sample", .int(sample)), ("region", .string(region)), ("x", r4(x)), ("y", r4(y))])
    case .progress(let region, let sample, let value):
        var fields: [(String, JSON)] = [("event", .string("progress")), ("sample", .int(sample))]
        if let region { fields.append(("region", .string(region))) }
        fields.append(("value", r4(value)))
        return .object(fields)
    }
}
