import ForceStageCore
import ForceStageFormats

/// The words of a calibration session: what each ``SessionNote`` says to the
/// person, as lines of text. Pure, so the prompts are tested without a
/// terminal; `forcestage calibrate` only prints them (and draws the progress bar).
public enum SessionPrompts {
    /// "Step N of 5" for a step.
    public static func number(_ s: CalibrationStep) -> String {
        switch s {
        case .unloaded: return "Step 1 of 5"
        case .mass, .cell, .check: return "Step 2 of 5"
        case .light: return "Step 3 of 5"
        case .firm: return "Step 4 of 5"
        case .verify: return "Step 5 of 5"
        case .done: return "Done"
        }
    }

    /// Where a weighing step's mass goes, in words a technician can follow on the plate.
    public static func whereText(_ step: CalibrationStep, plan: CalibrationPlan) -> String {
        let cells = plan.cellPositions?.count ?? 0
        switch step {
        case .cell(let i):
            let p = plan.cellSpots[i]
            let mark = "on the mark over cell \(i + 1) (\(place(plan.cellPositions![i], cells: cells))): x \(coordinate(p.x)), y \(coordinate(p.y)) of the plate"
            switch cells {
            case 2: return "\(mark), \(Int(CalibrationPlan.cellSpotInset * 100)) % in from the bar's end"
            case 3: return "\(mark), \(Int(CalibrationPlan.triangleSpotFraction * 100)) % of the way from the cell to the middle of the opposite side"
            default: return "\(mark), \(Int(CalibrationPlan.cellSpotInset * 100)) % in from its two edges"
            }
        case .check:
            let p = plan.checkSpot
            let name: String
            switch cells {
            case 2: name = "the middle of the bar"
            case 3: name = "the middle of the triangle, where each cell takes a third"
            default: name = "the middle"
            }
            return "on the check spot: x \(coordinate(p.x)), y \(coordinate(p.y)) of the plate (\(name)), a spot no cell's placement used"
        default:
            return "in the middle of the panel"
        }
    }

    /// Where a cell sits, in words (x grows to the right, y towards the front):
    /// a bar's end, the triangle's front cell in the middle of the front edge, else a corner.
    static func place(_ p: PlatePoint, cells: Int) -> String {
        if cells == 2 { return "the \(p.x < 0.5 ? "left" : "right") end" }
        if cells == 3 && p.x == 0.5 { return "the middle of the front edge" }
        return "the \(corner(p)) corner"
    }

    /// The corner a cell position names (x grows to the right, y towards the front).
    static func corner(_ p: PlatePoint) -> String {
        "\(p.y < 0.5 ? "back" : "front") \(p.x < 0.5 ? "left" : "right")"
    }

    /// A mark's coordinate: two decimals, three where the mark needs them (0.225, 0.333).
    static func coordinate(_ v: Float) -> String {
        let three = fixed(Double(v), 3)
        return three.hasSuffix("0") ? String(three.dropLast()) : three
    }

    /// The lines a note prints.
    ///
    /// - Parameters:
    ///   - note: what the session said.
    ///   - plan: the session's plan.
    ///   - grams: the known mass of the step just started, when it was given beforehand (`--mass`).
    ///   - interactive: whether Enter can end verification.
    /// - Returns: the lines, or none (a progress note is drawn, not printed).
    public static func lines(_ note: SessionNote, plan: CalibrationPlan, grams: Double?, interactive: Bool) -> [String] {
        switch note {
        case .started(let step):
            return started(step, plan: plan, grams: grams, interactive: interactive)
        case .progress:
            return []
        case .measured(_, let text):
            return ["  ok: \(text)"]
        case .pressCounted(let step, let count, let of, let stats):
            return ["  \(step == .light ? "light" : "firm") press \(count)/\(of): held \(fixed(stats.holdMedian, 2)) N (\(fixed(stats.holdMinimum, 2))-\(fixed(stats.holdMaximum, 2))), tremor ±\(Int((stats.tremor * 100).rounded())) %, top \(fixed(stats.maximum, 2)) N"]
        case .problem(_, let text, let restart):
            return ["  ! \(text)", "  starting \(restart) again"]
        case .refused(let text):
            return ["  ! \(text)"]
        case .recommended(let result):
            return ["Recommended (each value and why):"] + result.reasons.map { "  \($0)" }
        case .event(let e):
            return ["  \(e.kind.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \(fixed(Double(e.forceNewtons), 2)) N"]
        }
    }

    private static func started(_ step: CalibrationStep, plan: CalibrationPlan, grams: Double?, interactive: Bool) -> [String] {
        let head = number(step)
        let mass = grams.map { "the \(JSON.format($0)) g mass" }
        switch step {
        case .unloaded:
            return ["\(head): unloaded panel. Take everything off the panel and do not touch it for \(JSON.format(plan.unloadedSeconds)) s."]
        case .mass(let i):
            let of = plan.massCount > 1 ? " \(i + 1) of \(plan.massCount)" : ""
            if let mass { return ["\(head): known mass\(of). Set \(mass) down in the middle of the panel, leave it about 3 s, then lift it off."] }
            return ["\(head): known mass\(of). Weigh a mass, then set it down in the middle of the panel, leave it about 3 s, and lift it off."]
        case .cell(let i):
            let first = i == 0 ? " Each cell is weighed on its own: one known mass, set down on each cell's mark in turn, then once on a check spot." : ""
            return ["\(head): cell \(i + 1) of \(plan.channels.count).\(first) Set \(mass ?? "a weighed mass") down \(whereText(step, plan: plan)); leave it about 3 s, then lift it off."]
        case .check:
            return ["\(head): check. Set \(mass ?? "the mass") down \(whereText(step, plan: plan)); leave it about 3 s, then lift it off."]
        case .light:
            return ["\(head): press lightly, as for a peek, \(plan.lightPresses) times: hold each about a second, then let go."]
        case .firm:
            return ["\(head): press firmly, as for a pop, \(plan.firmPresses) times: hold each about a second, then let go."]
        case .verify:
            return ["\(head): verification. Press lightly and firmly; each press is classified with the recommended profile. It ends after \(plan.verificationPresses) presses\(interactive ? " (or press Enter)" : ""), or after \(JSON.format(plan.verificationTimeoutSeconds)) s without an event (--verify-timeout-ms)."]
        case .done:
            return []
        }
    }
}
