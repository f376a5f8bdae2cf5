import ForceStageCore

/// A ``GestureEvent`` as plain bits, with regions and actions by index: what
/// crosses a ring between threads (`run`'s scan thread to its sinks) without
/// a reference count or an allocation. ``gestureEvent(regions:)`` turns it
/// back into the event, given the same regions.
public struct GestureRecord: Equatable, BitwiseCopyable, Sendable {
    public enum Kind: UInt8, BitwiseCopyable, Sendable, CaseIterable {
        case press, actions, open, dismiss, move, spring, progress

        /// The `"event"` word of its line (a press's is its ForceEvent's).
        public var name: String {
            switch self {
            case .press: return "press"
            case .actions: return "actions"
            case .open: return "open"
            case .dismiss: return "dismiss"
            case .move: return "move"
            case .spring: return "spring"
            case .progress: return "progress"
            }
        }
    }

    public var kind: Kind
    /// The press event (kind `.press`); for the others, only its sample is meaningful.
    public var event: ForceEvent
    /// The region the event names, -1 for none.
    public var region: Int16
    /// The region the press in progress began in (what a region filter of a `move` goes by), -1 for none.
    public var pressRegion: Int16
    /// The opened action's index in its region's list (`.open`).
    public var action: Int16
    public var x: Float, y: Float
    /// The move's force, or the progress value.
    public var value: Float

    /// The sample of the event (the scan it was decided on).
    public var sample: Int64 {
        get { event.sample }
        set { event.sample = newValue }
    }

    /// The region a subscription by region goes by: the one named, else the press's.
    public var filterRegion: Int16 { region >= 0 ? region : pressRegion }

    /// A record of `kind` for `event` naming region `region` (-1: none); the
    /// rest (press region, action, x, y, value) zero or none until set.
    @inlinable
    public init(kind: Kind, event: ForceEvent, region: Int16) {
        self.kind = kind
        self.event = event
        self.region = region
        pressRegion = -1
        action = -1
        x = 0
        y = 0
        value = 0
    }

    /// `g` by indices into `regions` (the ones ``PanelGestures`` was made with).
    /// - Parameter pressRegion: ``PanelGestures/pressRegion`` when `g` was put out.
    /// - Complexity: O(regions) name comparisons for an event naming a region; no allocation.
    public init(_ g: GestureEvent, regions: [Region], pressRegion: Int?) {
        // Plain loops, no closures: this runs on `run`'s scan thread, and a debug build boxes what closures capture.
        func index(_ name: String?) -> Int16 {
            guard let name else { return -1 }
            var i = 0
            while i < regions.count {
                if regions[i].name == name { return Int16(truncatingIfNeeded: i) }
                i += 1
            }
            return -1
        }
        if let pressRegion { self.pressRegion = Int16(truncatingIfNeeded: pressRegion) } else { self.pressRegion = -1 }
        action = -1
        x = 0
        y = 0
        value = 0
        switch g {
        case .press(let e, let r):
            kind = .press
            event = e
            region = index(r)
        case .actions(let r, _, let sample):
            kind = .actions
            event = Self.stamp(sample)
            region = index(r)
        case .open(let r, let a, let sample):
            kind = .open
            event = Self.stamp(sample)
            region = index(r)
            if region >= 0 {
                let actions = regions[Int(region)].actions
                var i = 0
                while i < actions.count && actions[i] != a { i += 1 }
                if i < actions.count { action = Int16(truncatingIfNeeded: i) }
            }
        case .dismiss(let r, let sample):
            kind = .dismiss
            event = Self.stamp(sample)
            region = index(r)
        case .move(let sample, let px, let py, let force):
            kind = .move
            event = Self.stamp(sample)
            region = -1
            x = px
            y = py
            value = force
        case .spring(let r, let sample, let px, let py):
            kind = .spring
            event = Self.stamp(sample)
            region = index(r)
            x = px
            y = py
        case .progress(let r, let sample, let v):
            kind = .progress
            event = Self.stamp(sample)
            region = index(r)
            value = v
        }
    }

    private static func stamp(_ sample: Int64) -> ForceEvent {
        ForceEvent(kind: .peek, sample: sample, timestampNs: 0, forceNewtons: 0)
    }

    /// The event again, with the names of `regions` (the same regions it was recorded with).
    public func gestureEvent(regions: [Region]) -> GestureEvent {
        let name: String? = region >= 0 && Int(region) < regions.count ? regions[Int(region)].name : nil
        switch kind {
        case .press: return .press(event, region: name)
        case .actions: return .actions(region: name ?? "", actions: name == nil ? [] : regions[Int(region)].actions, sample: sample)
        case .open:
            let actions = name == nil ? [] : regions[Int(region)].actions
            return .open(region: name ?? "", action: action >= 0 && Int(action) < actions.count ? actions[Int(action)] : "", sample: sample)
        case .dismiss: return .dismiss(region: name ?? "", sample: sample)
        case .move: return .move(sample: sample, x: x, y: y, forceNewtons: value)
        case .spring: return .spring(region: name ?? "", sample: sample, x: x, y: y)
        case .progress: return .progress(region: name, sample: sample, value: value)
        }
    }
}
