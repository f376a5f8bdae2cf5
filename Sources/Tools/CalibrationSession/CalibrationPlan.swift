import ForceStageCore
import ForceStageFormats

/// How a calibration session runs.
public struct CalibrationPlan: Sendable {
    /// The force channels, in the order raw values are fed.
    public var channels: [String]
    /// Each channel's highest raw value (its format's rail), to carry a curve to the rail.
    public var channelMaximumRaw: [Int64]
    /// Each channel's lowest raw value (its lower rail), to carry a curve down
    /// to it where a load lowers the counts (negative gain); 0 unless given.
    public var channelMinimumRaw: [Int64]
    public var sampleRateHz: Double
    /// How many known masses are weighed; each must be given (``SessionInput/mass(_:grams:)``) before it is lifted off.
    /// A per-cell session weighs one mass, at every spot.
    public var massCount: Int = 1
    /// A monotone curve through the masses (FSRs) instead of a straight line.
    public var curve = false
    public var lightPresses = 5
    public var firmPresses = 5
    /// Presses to classify live before the session ends.
    public var verificationPresses = 5
    public var unloadedSeconds = 3.0
    /// A press step with no press for this long says so and starts over.
    public var pressTimeoutSeconds = 30.0
    /// Verification with no event for this long ends, saying how many presses
    /// were verified (the recommendation stands), whether nobody presses or a
    /// press is never released; must be above zero.
    public var verificationTimeoutSeconds = 60.0
    /// Per-cell calibration: where each cell sits on the plate (plate units),
    /// in channel order; `nil` gives every cell one shared gain, weighed in the middle.
    public var cellPositions: [PlatePoint]?
    /// Where the known mass is set for each cell (one spot per cell, near it).
    public var cellSpots: [PlatePoint] = []
    /// Where the result is checked: a spot none of the cells' placements used.
    public var checkSpot = PlatePoint(x: 0.5, y: 0.5)
    /// The largest error of the checked force the calibration may show, as a fraction.
    public var checkTolerance = 0.02

    /// How far in from the plate's edges the mark for a corner cell sits, and
    /// from its end the mark for a bar's cell (plate units): near the cell, so
    /// its placement loads mostly that cell, yet on the plate.
    public static let cellSpotInset = 0.15

    /// How far a triangle cell's mark sits from the cell towards the middle of
    /// the opposite side (a fraction of that line): the mark loads its own cell
    /// with 70 % of the mass and each other with 15 %, as a corner's mark on
    /// four cells loads its own with 72 %.
    public static let triangleSpotFraction = 0.3

    /// A plan for `channels`. Two, three and four force channels are calibrated
    /// cell by cell, at ``CellPositions/standard(forCells:)`` (a bar, the
    /// triangle, the spec's corners) in channel order, each weighed at a mark
    /// near its cell and checked on a spot between them that no mark used
    /// (``standardCells(count:)``).
    public init(channels: [String], channelMaximumRaw: [Int64], sampleRateHz: Double) {
        self.channels = channels
        self.channelMaximumRaw = channelMaximumRaw
        self.channelMinimumRaw = Array(repeating: 0, count: channelMaximumRaw.count)
        self.sampleRateHz = sampleRateHz
        if let cells = Self.standardCells(count: channels.count) {
            cellPositions = cells.positions
            cellSpots = cells.spots
            checkSpot = cells.check
        }
    }

    /// The cells of a panel of `count` force channels that is calibrated cell
    /// by cell, their marks and the check spot; `nil` for one cell and for five
    /// or more (no standard positions). The synthesizer's session script sets its
    /// masses on the same marks.
    ///
    /// - 2, a bar (`[0, 0.5]`, `[1, 0.5]`): marks ``cellSpotInset`` in from each
    ///   end, on the bar's middle line; the check in the bar's middle.
    /// - 3, the triangle (`[0, 0]`, `[1, 0]`, `[0.5, 1]`): marks
    ///   ``triangleSpotFraction`` of the way from each cell to the middle of the
    ///   opposite side (x 0.225, y 0.15; x 0.775, y 0.15; x 0.5, y 0.7); the check
    ///   on the triangle's centroid (x 0.5, y 1/3), where each cell takes a third.
    /// - 4, the corners: marks ``cellSpotInset`` in from each corner's two edges;
    ///   the check in the middle.
    public static func standardCells(count: Int) -> (positions: [PlatePoint], spots: [PlatePoint], check: PlatePoint)? {
        guard count >= 2, let standard = CellPositions.standard(forCells: count) else { return nil }
        let positions = (0..<standard.count).map { standard[$0] }
        let inset = Float(cellSpotInset)
        switch count {
        case 2:
            return (positions, positions.map { PlatePoint(x: $0.x == 0 ? inset : 1 - inset, y: $0.y) }, PlatePoint(x: 0.5, y: 0.5))
        case 3:
            let f = Float(triangleSpotFraction)
            let spots = positions.indices.map { i -> PlatePoint in
                let others = positions.indices.filter { $0 != i }.map { positions[$0] }
                let mx = (others[0].x + others[1].x) / 2, my = (others[0].y + others[1].y) / 2
                return PlatePoint(x: positions[i].x + f * (mx - positions[i].x), y: positions[i].y + f * (my - positions[i].y))
            }
            let centroid = PlatePoint(x: positions.map(\.x).reduce(0, +) / 3, y: positions.map(\.y).reduce(0, +) / 3)
            return (positions, spots, centroid)
        default:
            return (positions, positions.map { PlatePoint(x: $0.x == 0 ? inset : 1 - inset, y: $0.y == 0 ? inset : 1 - inset) },
                    PlatePoint(x: 0.5, y: 0.5))
        }
    }

    /// Whether each cell gets its own gain.
    public var perCell: Bool { cellPositions != nil }
}

/// A step of the session, in order.
public enum CalibrationStep: Equatable, Sendable, CustomStringConvertible {
    case unloaded
    /// Known mass `i` set down in the middle (one gain for every cell).
    case mass(Int)
    /// The known mass set down on cell `i`'s mark (per-cell calibration).
    case cell(Int)
    /// The known mass set down on the check spot, which no cell's placement used.
    case check
    case light
    case firm
    case verify
    case done

    public var description: String {
        switch self {
        case .unloaded: return "unloaded panel"
        case .mass(let i): return "known mass \(i + 1)"
        case .cell(let i): return "the mass on cell \(i + 1)"
        case .check: return "the check spot"
        case .light: return "light presses"
        case .firm: return "firm presses"
        case .verify: return "verification"
        case .done: return "done"
        }
    }

    /// Whether the step weighs a resting load.
    var weighs: Bool {
        switch self {
        case .mass, .cell, .check: return true
        default: return false
        }
    }
}

/// What the session is told: the only way it changes.
public enum SessionInput: Sendable {
    /// One scan: the raw value of each force channel (in ``CalibrationPlan/channels`` order).
    /// Time is the scans' own: every timeout counts scans at the plan's rate, so a
    /// recording of a session replays to the same result.
    case scan([Int64], sample: Int, timestampNs: Int64)
    /// The person's answer: known mass `index` weighs `grams`.
    case mass(Int, grams: Double)
    /// The person pressed Enter, or the scans ended: verification ends here.
    case enough(atScan: Int)
    /// The device came back after it was lost: the current step starts again.
    case deviceBack(atScan: Int)
    /// The device has given no scans for this many seconds of the host's clock
    /// (live sessions only; scan-counted time stands still without scans).
    case stalled(seconds: Double, atScan: Int)
}

/// What the session tells the person doing it.
public enum SessionNote: Equatable, Sendable {
    /// A step begins: show its instructions.
    case started(CalibrationStep)
    /// Progress through a timed step, 0...1.
    case progress(CalibrationStep, Double)
    /// A press was counted (`count` of `of`).
    case pressCounted(CalibrationStep, count: Int, of: Int, PressStatistics)
    /// A step finished, with what it measured in one line.
    case measured(CalibrationStep, String)
    /// Something was wrong; the step starts again (`restart` is the step now running).
    case problem(CalibrationStep, String, restart: CalibrationStep)
    /// An answer was refused, saying why; the question stands.
    case refused(String)
    /// The recommendation, once light and firm presses are in.
    case recommended(CalibrationResult)
    /// An event classified live with the recommended profile, during verification.
    case event(ForceEvent)
}

/// The session's outcome: the calibration and the settings, with reasons.
public struct CalibrationResult: Equatable, Sendable {
    /// Per channel: zero, gain (or curve) and, cell by cell, position.
    public var calibration: [ForceChannelCalibration]
    public var settings: ClassifierSettings
    public var budgetMilliseconds: Double
    /// One line per measured or recommended value.
    public var reasons: [String]
    public var unloaded: UnloadedMeasurement
    public var noiseNewtons: Double
    public var light: [PressStatistics]
    public var firm: [PressStatistics]

    public static func == (a: CalibrationResult, b: CalibrationResult) -> Bool {
        a.calibration == b.calibration && a.settings == b.settings && a.reasons == b.reasons
    }

    /// The profile these numbers make.
    public func profile(name: String, matchName: String?, matchLabel: String?, file: String) -> Profile {
        Profile(name: name, matchName: matchName, matchLabel: matchLabel, channels: calibration, settings: settings,
                budgetMilliseconds: budgetMilliseconds, file: file)
    }
}

/// A bad answer to the session's questions.
public enum CalibrationInputError: Error, Equatable, Sendable, CustomStringConvertible {
    case badMass(Double)
    case noSuchMass(Int)

    public var description: String {
        switch self {
        case .badMass(let g): return "a mass must be above zero grams, got \(JSON.format(g)); weigh it and give its mass in grams"
        case .noSuchMass(let i): return "there is no mass \(i + 1) in this session"
        }
    }
}
