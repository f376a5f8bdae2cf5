import ForceStageCore

/// One event as the JSON object `forcestage replay` and `forcestage run` print,
/// one per line: `{"event":name,"sample":n,"timestampNs":t,"forceNewtons":f,
/// "latencyScans":l,"latencyMs":ms}`, with the force rounded to 4 decimals.
///
/// - Parameters:
///   - e: the event.
///   - sampleRateHz: the stream's rate, to turn the latency in scans into milliseconds.
public func eventJSON(_ e: ForceEvent, sampleRateHz: Double) -> JSON {
    let force = (Double(e.forceNewtons) * 10_000).rounded() / 10_000
    let latencyMs = sampleRateHz > 0 ? (Double(e.latencyScans) * 1000 / sampleRateHz * 1000).rounded() / 1000 : 0
    return .object([
        ("event", .string(e.kind.name)),
        ("sample", .int(e.sample)),
        ("timestampNs", .int(e.timestampNs)),
        ("forceNewtons", .double(force)),
        ("latencyScans", .int(Int64(e.latencyScans))),
        ("latencyMs", .double(latencyMs)),
    ])
}
