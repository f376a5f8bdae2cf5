import Testing
import ForceStageCore
import ForceStageGestures
@testable import ForceStageService

/// The `subscribe` line, validated against a profile's regions before it changes anything.
@Suite("Socket subscriptions")
struct SubscriptionTests {
    static let regions = [Region(name: "top", minX: 0, minY: 0, maxX: 1, maxY: 0.4, actions: ["open", "share"]),
                          Region(name: "bottom", minX: 0, minY: 0.4, maxX: 1, maxY: 1)]

    static func parse(_ words: String, gestures: Bool = true, regions: [Region] = regions) -> Result<Subscription, Subscription.Refusal> {
        Subscription.parse(Array(words.utf8), regions: regions, gestures: gestures, sampleRateHz: 500)
    }

    static func event(_ kind: EventKind, sample: Int64 = 0) -> ForceEvent {
        ForceEvent(kind: kind, sample: sample, timestampNs: 0, forceNewtons: 1)
    }

    static func gesture(_ g: GestureEvent, press: Int? = nil) -> ServiceEvent {
        let r = GestureRecord(g, regions: regions, pressRegion: press)
        return ServiceEvent(event: r.event, arrivalNs: 0, monotonicStamp: false, gesture: r)
    }

    @Test("refusals name what is wrong and what to do", arguments: [
        ("bogus", true, "unknown event kind \"bogus\""),
        ("peek,,pop", true, "unknown event kind \"\""),
        ("region=nowhere", true, "unknown region \"nowhere\""),
        ("region=top region=bottom", true, "regions given twice"),
        ("peek pop", true, "event kinds given twice"),
        ("peek 60", true, "a rate is only for progress"),
        ("progress 5000", true, "not a number from 0.1 to 1000"),
        ("progress 0", true, "not a number from 0.1 to 1000"),
        ("progress 1e999", true, "not a number from 0.1 to 1000"),
        ("progress -1", true, "progress rate \"-1\" is not a number from 0.1 to 1000"),
        ("progress inf", true, "progress rate \"inf\" is not a number from 0.1 to 1000"),
        ("progress nan", true, "progress rate \"nan\" is not a number from 0.1 to 1000"),
        ("progress -inf", true, "progress rate \"-inf\" is not a number from 0.1 to 1000"),
        ("progress 0x10", true, "progress rate \"0x10\" is not a number from 0.1 to 1000"),
        ("progress 0x1p4", true, "progress rate \"0x1p4\" is not a number from 0.1 to 1000"),
        ("progress 1e400", true, "progress rate \"1e400\" is not a number from 0.1 to 1000"),
        ("progress 60 30", true, "a progress rate given twice"),
        ("move", false, "need the gesture layer"),
        ("peek,progress", false, "need the gesture layer"),
    ])
    func refusals(words: String, gestures: Bool, message: String) {
        guard case .failure(let r) = Self.parse(words, gestures: gestures) else {
            Issue.record("\(words) was taken")
            return
        }
        #expect(r.message.contains(message), "\(r.message)")
        #expect(!r.hint.isEmpty)
    }

    @Test("a region on a panel without regions is refused; control bytes are shown escaped")
    func noRegionsAndEscaping() {
        guard case .failure(let r) = Self.parse("region=top", regions: []) else { Issue.record("taken"); return }
        #expect(r.message == "this panel has no regions")
        guard case .failure(let e) = Self.parse("pe\u{1B}[2Jek") else { Issue.record("taken"); return }
        #expect(e.message == "unknown event kind \"pe\\x1B[2Jek\"")
    }

    @Test("kinds and regions filter; the default is every event but progress")
    func filters() throws {
        var a = try Self.parse("peek,release").get()
        #expect(a.accepts(Self.gesture(.press(Self.event(.peek), region: "top"))) == true)
        #expect(a.accepts(Self.gesture(.press(Self.event(.pop), region: "top"))) == false)
        #expect(a.accepts(Self.gesture(.move(sample: 3, x: 0.5, y: 0.2, forceNewtons: 1))) == false)
        #expect(a.accepts(ServiceEvent(event: Self.event(.lost), arrivalNs: 0, monotonicStamp: false)) == false)
        var b = try Self.parse("region=bottom").get()
        #expect(b.accepts(Self.gesture(.press(Self.event(.peek), region: "top"))) == false)
        #expect(b.accepts(Self.gesture(.press(Self.event(.peek), region: "bottom"))) == true)
        #expect(b.accepts(Self.gesture(.move(sample: 3, x: 0.5, y: 0.8, forceNewtons: 1), press: 1)) == true, "a move of a press that began in bottom")
        #expect(b.accepts(Self.gesture(.move(sample: 3, x: 0.5, y: 0.2, forceNewtons: 1), press: 0)) == false)
        #expect(b.accepts(ServiceEvent(event: Self.event(.saturated), arrivalNs: 0, monotonicStamp: false)) == true, "health is not a region's")
        #expect(b.accepts(Self.gesture(.progress(region: "bottom", sample: 9, value: 0.5))) == false, "no progress unless asked")
        var d = Subscription.everything
        #expect(d.accepts(Self.gesture(.spring(region: "top", sample: 1, x: 0.5, y: 0.1))) == true)
        #expect(d.accepts(Self.gesture(.progress(region: "top", sample: 1, value: 0.5))) == false)
    }

    @Test("progress at most the rate asked for, in sample numbers")
    func progressRate() throws {
        var s = try Self.parse("progress 50 region=top").get()   // 500 scans/s: 10 scans apart
        #expect(s.progressHz == 50)
        let taken = (0..<100).filter { s.accepts(Self.gesture(.progress(region: "top", sample: Int64($0), value: 0.1))) }
        #expect(taken == Array(stride(from: 0, to: 100, by: 10)))
        var t = try Self.parse("progress").get()
        #expect(t.progressHz == Subscription.defaultProgressHz)
        #expect(t.accepts(Self.gesture(.progress(region: nil, sample: 0, value: 0))) == true)
    }

    @Test("the reply says what the client gets")
    func reply() throws {
        let s = try Self.parse("peek,pop,progress region=top 20").get()
        #expect(s.replyJSON(regions: Self.regions).rendered() == "{\"subscribed\":{\"events\":[\"peek\",\"pop\",\"progress\"],\"regions\":[\"top\"],\"progressHz\":20}}")
    }

    @Test("the line parser hands subscribe's words over; subscribed without a space is unknown")
    func lineParsing() {
        #expect(ClientCommand.parse(Array("  subscribe peek,pop  ".utf8)) == .subscribe(Array(" peek,pop".utf8)))
        #expect(ClientCommand.parse(Array("subscribe".utf8)) == .subscribe([]))
        if case .unknown = ClientCommand.parse(Array("subscribed".utf8)) {} else { Issue.record("subscribed parsed as a command") }
    }

    @Test("a gesture record turns back into the same event", arguments: [
        GestureEvent.press(ForceEvent(kind: .pop, sample: 7, timestampNs: 9, forceNewtons: 3), region: "top"),
        .actions(region: "top", actions: ["open", "share"], sample: 5),
        .open(region: "top", action: "share", sample: 6),
        .dismiss(region: "top", sample: 8),
        .move(sample: 10, x: 0.25, y: 0.5, forceNewtons: 1.5),
        .spring(region: "bottom", sample: 11, x: 0.5, y: 0.75),
        .progress(region: "bottom", sample: 12, value: 0.5),
        .progress(region: nil, sample: 13, value: 1),
    ])
    func roundTrip(g: GestureEvent) {
        #expect(GestureRecord(g, regions: Self.regions, pressRegion: 0).gestureEvent(regions: Self.regions) == g)
    }
}
