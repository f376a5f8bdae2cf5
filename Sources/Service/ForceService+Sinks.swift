import ForceStageClock
import ForceStageIIO
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ForceStageCore
import ForceStageFormats

extension ForceService {
    // MARK: - Sink thread

    /// Drains the event ring into stdout and the socket clients, serves client
    /// commands, and tells systemd how things stand. Runs on the thread that called ``run()``.
    func sinkLoop() {
        var fds: [pollfd] = []
        fds.reserveCapacity(64)
        var sink = SinkState()
        var ending = false
        var lastBudgetLog: Int64 = 0
        while true {
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: state.events.wakeFD, events: Int16(POLLIN), revents: 0))
            if let server {
                // Out of descriptors, the listening socket stays readable: it is left out of the poll while backing off.
                fds.append(pollfd(fd: server.fd, events: server.acceptsNow ? Int16(POLLIN) : 0, revents: 0))
                for c in server.clients {
                    fds.append(pollfd(fd: c.fd, events: Int16(POLLIN) | (c.hasOutput ? Int16(POLLOUT) : 0), revents: 0))
                }
            }
            // Lines still waiting for their turn: look at the sockets without waiting, then serve them.
            let waiting = server?.clients.contains { $0.hasWaitingLines } ?? false
            _ = poll(&fds, nfds_t(fds.count), waiting ? 0 : 100)
            if fds[0].revents != 0 { state.events.clearWake() }
            for sig in ServiceSignals.take() { handle(signal: sig) }

            while let e = state.events.pop() {
                if e.isEnd { ending = true; break }
                deliver(e, &sink, &lastBudgetLog)
            }

            if let server {
                // One status rendering a turn, however many clients ask (or are turned away with it).
                var status: String?
                // Clients polled this round are fds[2...] in the order of server.clients at the time.
                let polled = min(server.clients.count, fds.count - 2)
                for i in 0..<polled {
                    let c = server.clients[i]
                    let revents = fds[i + 2].revents
                    if c.dead { continue }
                    if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 || c.hasWaitingLines { handleInput(c, &sink, &status) }
                    if !c.dead && c.hasOutput && !c.write() { c.dead = true }
                    if !c.dead && c.closeWhenFlushed && !c.hasOutput { c.dead = true }
                }
                server.reap()
                // Accepted only after this round's hang-ups are reaped: a client that left in the
                // same round as a new one arrived no longer counts against --max-clients.
                if fds[1].revents & Int16(POLLIN) != 0 {
                    server.acceptAll {
                        if status == nil { status = statusJSON(sink, final: false) + "\n" }
                        return status!
                    }
                }
                if gestureRegions != nil { updateProgressDemand() }
            }
            tellSystemd(&sink)
            writeMetricsIfDue(&sink, force: ending)
            if ending {
                let final = statusJSON(sink, final: true)
                server?.shutdown(finalLine: final + "\n", seconds: 1)
                return
            }
        }
    }

    /// One event out to every sink; its latency measured once it has left.
    func deliver(_ se: ServiceEvent, _ sink: inout SinkState, _ lastBudgetLog: inout Int64) {
        if let g = se.gesture, g.kind != .press { return deliverGesture(se, &sink) }
        // The tap and the input event first: they are what a person feels and an application acts on.
        if let haptics, se.event.kind == .pop || (se.event.kind == .peek && haptics.settings.onPeek) {
            if haptics.play() != nil, se.arrivalNs > 0 { sink.haptic.record(monotonicNanoseconds() &- se.arrivalNs) }
        }
        uinput?.send(se.event)
        let line = eventLine(se)
        if configuration.stdoutSink && !sink.stdoutBroken {
            if !writeAll(1, line) {
                sink.stdoutBroken = true
                logger.error("standard output closed; events go to socket clients only", metadata: ["errno": "\(errno)"])
            }
        }
        server?.broadcast(se) { line }
        sink.delivered += 1
        guard se.arrivalNs > 0, se.event.kind.isTransition || se.event.kind == .hold else { return }
        let now = monotonicNanoseconds()
        let host = now &- se.arrivalNs
        let origin = se.monotonicStamp ? se.event.timestampNs : se.arrivalNs
        let latency = se.event.latencyNs &+ max(0, now &- origin)
        sink.host.record(host)
        sink.pressToEvent.record(latency)
        let budget = state.budgetNs.load(ordering: .relaxed)
        if latency > budget {
            counters.budgetViolations.add(1, ordering: .relaxed)
            // At most one log line a second; the counter has them all.
            if now &- lastBudgetLog > 1_000_000_000 {
                lastBudgetLog = now
                logger.warning("latency over budget", metadata: [
                    "event.kind": "\(se.event.kind.name)", "event.sample": "\(se.event.sample)",
                    "latency.ms": "\(ms(Double(latency) / 1e6))", "budget.ms": "\(ms(Double(budget) / 1e6))",
                    "budget.violations": "\(counters.budgetViolations.load(ordering: .relaxed))",
                ])
            }
        }
    }

    /// Commands from a client, at most ``EventClient/linesPerTurn`` a turn: `status`, `quit`;
    /// anything else gets an error line and the connection stays.
    /// What the client sent reaches the log and the reply only escaped (``printable(_:)``).
    /// `status` is this turn's status line, rendered by the first client that asks.
    func handleInput(_ c: EventClient, _ sink: inout SinkState, _ status: inout String?) {
        guard c.receive() else { c.dead = true; return }
        for line in c.takeTurn() {
            switch line {
            case .overlong:
                c.enqueue(reply: errorJSON("line longer than \(SocketLineReader.maximumLineBytes) bytes", hint: "send one command a line: status, subscribe ... or quit") + "\n")
                c.closeWhenFlushed = true
                logger.warning("client sent an overlong line; closing it", metadata: ["client.id": "\(c.id)"])
                return
            case .command(.empty): continue
            case .command(.status):
                guard c.hasRoomForReply else { continue }   // it is not reading its replies: dropped like them
                if status == nil { status = statusJSON(sink, final: false) + "\n" }
                c.enqueue(reply: status!)
            case .command(.quit): c.closeWhenFlushed = true
            case .command(.subscribe(let words)):
                guard c.hasRoomForReply else { continue }
                c.enqueue(reply: subscribe(c, words) + "\n")
            case .command(.unknown(let shown)):
                c.enqueue(reply: errorJSON("unknown command \"\(shown)\"", hint: "commands are status, subscribe [KINDS] [region=NAMES] [HZ] and quit; events arrive without asking") + "\n")
                // At most one log line a second per client, with how many went unlogged: no log flood.
                let now = monotonicNanoseconds()
                if now &- c.lastUnknownLogNs >= 1_000_000_000 {
                    logger.notice("client sent an unknown command", metadata: ["client.id": "\(c.id)", "command": "\(shown)",
                                                                               "client.unknown_not_logged": "\(c.unknownNotLogged)"])
                    c.lastUnknownLogNs = now
                    c.unknownNotLogged = 0
                } else {
                    c.unknownNotLogged += 1
                }
            }
        }
    }

    func errorJSON(_ message: String, hint: String) -> String {
        JSON.object([("error", .string(message)), ("hint", .string(hint))]).rendered()
    }

    /// READY=1 once scans flow; WATCHDOG=1 only while the scan count keeps rising; STATUS= on changes.
    func tellSystemd(_ sink: inout SinkState) {
        let scans = counters.scans.load(ordering: .relaxed)
        let health = counters.healthState
        if !sink.readySent && scans > 0 {
            sink.readySent = true
            notifier.notify("READY=1\nMAINPID=\(getpid())\nSTATUS=streaming from \(deviceName)")
            logger.info("streaming", metadata: ["sensor.device": "\(deviceName)"])
        }
        if health != sink.lastHealth {
            if sink.readySent || health != .starting {
                notifier.notify("STATUS=\(health == .lost ? "sensor lost: \(deviceName)" : "\(health.name) \(deviceName)")")
            }
            sink.lastHealth = health
        }
        if let interval = notifier.watchdogIntervalNs {
            let now = monotonicNanoseconds()
            if now >= sink.nextWatchdog {
                if scans > sink.watchdogScans {
                    notifier.notify("WATCHDOG=1")
                    sink.watchdogScans = scans
                }
                sink.nextWatchdog = now + interval
            }
        }
    }

    /// Counters for the final log line.
    func statusMetadata() -> Logger.Metadata {
        [
            "scans": "\(counters.scans.load(ordering: .relaxed))",
            "scans.dropped": "\(counters.droppedScans.load(ordering: .relaxed))",
            "events": "\(counters.events.load(ordering: .relaxed))",
            "overflows.event_ring": "\(state.events.overflows)",
            "budget.violations": "\(counters.budgetViolations.load(ordering: .relaxed))",
        ]
    }

    /// The status line: health, counters, latency percentiles.
    func statusJSON(_ sink: SinkState, final: Bool) -> String {
        func lat(_ stats: LatencyStats) -> JSON {
            guard let p = stats.percentiles([50, 90, 99, 99.9]) else { return .object([("samples", .int(0))]) }
            func m(_ ns: Int64) -> JSON { .double((Double(ns) / 1000).rounded() / 1000) }
            return .object([("samples", .int(stats.total)), ("p50", m(p[0])), ("p90", m(p[1])), ("p99", m(p[2])),
                            ("p999", m(p[3])), ("max", m(stats.maximum))])
        }
        let c = counters
        let src = state.source.withLock { $0 }
        var fields: [(String, JSON)] = [
            ("health", .string(c.healthState.name)),
            ("device", .string(deviceName)),
            ("pid", .int(Int64(getpid()))),
            ("uptimeSeconds", .double((Double(monotonicNanoseconds() &- startedAtNs) / 1e8).rounded() / 10)),
            ("profile", .string(src.name)),
            ("sampleRateHz", .double(sampleRateHz)),
            ("scansPerRefill", .int(Int64(scansPerRefill))),
            ("scans", .int(c.scans.load(ordering: .relaxed))),
            ("scansRead", .int(c.scansRead.load(ordering: .relaxed))),
            ("droppedScans", .int(c.droppedScans.load(ordering: .relaxed))),
            ("events", .int(c.events.load(ordering: .relaxed))),
            ("overflows", .object([
                ("classifierRing", .int(c.classifierOverflows.load(ordering: .relaxed))),
                ("eventRing", .int(Int64(state.events.overflows))),
            ])),
            ("budgetMs", .double(Double(state.budgetNs.load(ordering: .relaxed)) / 1e6)),
            ("worstCaseMs", .double((Double(state.worstCaseNs.load(ordering: .relaxed)) / 1e3).rounded() / 1e3)),
            ("budgetViolations", .int(c.budgetViolations.load(ordering: .relaxed))),
            ("latencyMs", lat(sink.pressToEvent)),
            ("hostLatencyMs", lat(sink.host)),
            ("losses", .int(c.losses.load(ordering: .relaxed))),
            ("reloads", .int(c.reloads.load(ordering: .relaxed))),
            ("reloadFailures", .int(c.reloadFailures.load(ordering: .relaxed))),
            ("clients", .int(Int64(server?.clients.count ?? 0))),
            ("clientDrops", .int(server?.totalDrops ?? 0)),
            ("clientsRefused", .int(server?.refused ?? 0)),
            ("maxClients", .int(Int64(server?.maxClients ?? configuration.maxClients))),
        ]
        if let uinput {
            fields.append(("uinput", .object([
                ("name", .string(uinput.name)), ("device", uinput.eventNode.map { .string($0) } ?? .null),
                ("writeFailures", .int(uinput.writeFailures)),
            ])))
        }
        if let haptics {
            // Beside latencyMs: scan arrival to the actuator's write returning, same clock as hostLatencyMs.
            fields.append(("hapticDelayMs", lat(sink.haptic)))
            fields.append(("hapticDevice", .string(haptics.path)))
            fields.append(("hapticFailures", .int(haptics.playFailures)))
        }
        if final { fields.append(("final", .bool(true))) }
        return JSON.object([("status", .object(fields))]).rendered()
    }
}

/// What the sink thread keeps between rounds.
struct SinkState {
    var pressToEvent = LatencyStats()
    var host = LatencyStats()
    var haptic = LatencyStats(window: 1024)
    var delivered: Int64 = 0
    var stdoutBroken = false
    var readySent = false
    var lastHealth = ServiceHealth.starting
    var nextWatchdog: Int64 = 0
    var watchdogScans: Int64 = 0
    var nextMetrics: Int64 = 0
    var metricsFailed = false
}

/// Writes every byte of `text` to `fd`, retrying short writes; `false` on error.
func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var text = text
    return text.withUTF8 { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
}
