import ForceStageCore
import ForceStageGestures
import ForceStageFormats

/// What one socket client (or standard output) is sent: a set of event kinds,
/// optionally only the events of some regions, and `progress` at most so many
/// times a second. Built only by ``parse(_:regions:gestures:sampleRateHz:)``,
/// which validates a client's `subscribe` line against the loaded profile.
///
/// The line (see docs/service.md, "Subscriptions"): `subscribe [KIND[,KIND...]] [region=NAME[,NAME...]] [HZ]`.
/// Each `subscribe` replaces the client's subscription whole; what it leaves
/// out is the default (every kind but `progress`; every region); a bare
/// `subscribe` is the default again. HZ, the `progress` rate, only with
/// `progress` among the kinds (default 60).
struct Subscription: Equatable {
    /// One bit per ``Subscription/kindNames`` entry.
    private(set) var kinds: UInt32
    /// By region index: nil, every region.
    private(set) var regions: [Bool]?
    /// `progress` at most this often, scans apart (0: no progress).
    private(set) var progressInterval: Int64 = 0
    /// The rate asked for, per second (nil: no progress).
    private(set) var progressHz: Double?
    private var lastProgress: Int64 = -(1 << 62)

    /// Every kind a client can name, in the order replies list them: the
    /// classifier's (by `EventKind` raw value), then the gesture layer's (by `GestureRecord.Kind`, after `press`).
    static let kindNames = ["peek", "pop", "release", "hold", "saturated", "stuck", "lost", "recovered",
                            "actions", "open", "dismiss", "move", "spring", "progress"]
    static let gestureBase = 8
    static let progressBit: UInt32 = 1 << 13
    /// The gesture layer's own kinds (actions ... progress).
    static let gestureKinds: UInt32 = 0b11_1111 << 8
    /// `progress` events per second a client may ask for.
    static let progressHzRange: ClosedRange<Double> = 0.1...1000
    static let defaultProgressHz = 60.0

    /// What a client gets before it subscribes (and what standard output gets): every event but `progress`.
    static let everything = Subscription(kinds: (1 << 14 - 1) & ~progressBit, regions: nil)

    private init(kinds: UInt32, regions: [Bool]?) {
        self.kinds = kinds
        self.regions = regions
    }

    /// Standard output's subscription: every event, and `progress` at `progressHz` when given.
    static func standardOutput(progressHz: Double?, sampleRateHz: Double) -> Subscription {
        var s = everything
        if let progressHz { s.setProgress(progressHz, sampleRateHz: sampleRateHz) }
        return s
    }

    private mutating func setProgress(_ hz: Double, sampleRateHz: Double) {
        kinds |= Self.progressBit
        progressHz = hz
        progressInterval = PanelGestures.interval(hz: hz, sampleRateHz: sampleRateHz) ?? 1
    }

    /// The bit of an event as it reaches the sinks.
    static func bit(_ se: ServiceEvent) -> UInt32 {
        if let g = se.gesture, g.kind != .press { return 1 << UInt32(gestureBase + Int(g.kind.rawValue) - 1) }
        return 1 << UInt32(se.event.kind.rawValue)
    }

    /// Whether `se` goes to this subscriber; counts a `progress` it takes against the rate.
    /// - Complexity: O(1).
    mutating func accepts(_ se: ServiceEvent) -> Bool {
        guard kinds & Self.bit(se) != 0 else { return false }
        if let regions, !se.event.kind.isHealth || se.gesture != nil {
            guard let g = se.gesture else { return false }
            let r = Int(g.filterRegion)
            guard r >= 0 && r < regions.count && regions[r] else { return false }
        }
        if let g = se.gesture, g.kind == .progress {
            guard g.sample &- lastProgress >= progressInterval else { return false }
            lastProgress = g.sample
        }
        return true
    }

    /// What a `subscribe` line asked for, refused with a reason and what to do.
    struct Refusal: Error, Equatable {
        var message: String
        var hint: String
    }

    /// Validates the words after `subscribe` (at most one line's bytes) against the loaded profile.
    ///
    /// - Parameters:
    ///   - regions: the profile's regions (a `region=` naming another is refused).
    ///   - gestures: whether the gesture layer runs (its kinds are refused otherwise).
    static func parse<C: Collection>(_ arguments: C, regions: [Region], gestures: Bool,
                                     sampleRateHz: Double) -> Result<Subscription, Refusal> where C.Element == UInt8 {
        let words = arguments.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
        var result = Subscription.everything
        var sawKinds = false, sawRegions = false
        var hz: Double?
        var named: UInt32 = 0
        let kindList = kindNames.joined(separator: ", ")
        func shown<W: Collection>(_ w: W) -> String where W.Element == UInt8 {
            printable(w.prefix(ClientCommand.shownBytes)) + (w.count > ClientCommand.shownBytes ? "..." : "")
        }
        let prefix = Array("region=".utf8)
        for word in words {
            if word.starts(with: prefix) {
                guard !sawRegions else { return .failure(Refusal(message: "regions given twice", hint: "name every region in one region=A,B")) }
                sawRegions = true
                guard !regions.isEmpty else {
                    return .failure(Refusal(message: "this panel has no regions", hint: "leave out region=, or give the profile [[region]] tables"))
                }
                var wanted = [Bool](repeating: false, count: regions.count)
                for name in word.dropFirst(prefix.count).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                    guard let i = regions.firstIndex(where: { $0.name.utf8.elementsEqual(name) }) else {
                        return .failure(Refusal(message: "unknown region \"\(shown(name))\"",
                                                hint: "regions of this profile: \(regions.map(\.name).joined(separator: ", "))"))
                    }
                    wanted[i] = true
                }
                result.regions = wanted
            } else if let first = word.first, (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) || first == UInt8(ascii: ".")
                        || first == UInt8(ascii: "-") || first == UInt8(ascii: "+")
                        || (word.count <= 16 && Double(String(decoding: word, as: UTF8.self)) != nil) {
                // A number in any spelling Double reads (-1, +5, inf, nan, 0x10) is a rate, not taken for a second
                // list of kinds; only a decimal one in range is accepted below.
                guard hz == nil else { return .failure(Refusal(message: "a progress rate given twice", hint: "give one rate, e.g. subscribe progress 60")) }
                guard word.count <= 16, let v = DecimalNumber.parse(bytes: word), progressHzRange.contains(v) else {
                    return .failure(Refusal(message: "progress rate \"\(shown(word))\" is not a number from 0.1 to 1000",
                                            hint: "e.g. subscribe progress 60 (events per second at most)"))
                }
                hz = v
            } else {
                guard !sawKinds else { return .failure(Refusal(message: "event kinds given twice", hint: "list every kind in one word: peek,pop,release")) }
                sawKinds = true
                var bits: UInt32 = 0
                for name in word.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                    if name.elementsEqual("all".utf8) { bits |= everything.kinds; continue }
                    guard let i = kindNames.firstIndex(where: { $0.utf8.elementsEqual(name) }) else {
                        return .failure(Refusal(message: "unknown event kind \"\(shown(name))\"", hint: "kinds: all, \(kindList)"))
                    }
                    bits |= 1 << UInt32(i)
                    named |= 1 << UInt32(i)
                }
                result.kinds = bits
            }
        }
        if !gestures && named & gestureKinds != 0 {
            return .failure(Refusal(message: "actions, open, dismiss, move, spring and progress need the gesture layer, which is off",
                                    hint: "run with a profile that has [[region]] tables, or with --gestures on a panel with press positions"))
        }
        if !gestures { result.kinds &= ~gestureKinds }
        if let hz {
            guard result.kinds & progressBit != 0 else {
                return .failure(Refusal(message: "a rate is only for progress", hint: "e.g. subscribe progress 60"))
            }
            result.setProgress(hz, sampleRateHz: sampleRateHz)
        } else if result.kinds & progressBit != 0 {
            result.setProgress(defaultProgressHz, sampleRateHz: sampleRateHz)
        }
        return .success(result)
    }

    /// The reply to a `subscribe` that was taken: what the client will get.
    func replyJSON(regions names: [Region]) -> JSON {
        var fields: [(String, JSON)] = [
            ("events", .array(Self.kindNames.indices.filter { kinds & (1 << UInt32($0)) != 0 }.map { .string(Self.kindNames[$0]) })),
        ]
        if let regions {
            fields.append(("regions", .array(names.indices.filter { regions[$0] }.map { .string(names[$0].name) })))
        }
        if let progressHz { fields.append(("progressHz", .double(progressHz))) }
        return .object([("subscribed", .object(fields))])
    }
}

extension EventServer {
    /// One event to every client whose subscription takes it; the line is
    /// rendered once, and only if some client takes it.
    func broadcast(_ se: ServiceEvent, render: () -> String) {
        var line: String?
        for c in clients where !c.dead {
            guard c.subscription.accepts(se) else { continue }
            if line == nil { line = render() }
            c.enqueue(event: line!)
            if !c.write() { c.dead = true }
        }
    }

    /// The fastest `progress` rate any connected client asks for (nil: none).
    var progressDemandHz: Double? {
        clients.lazy.filter { !$0.dead }.compactMap(\.subscription.progressHz).max()
    }
}
