import Foundation

extension PressScript {
    /// The fastest mean speed of a slide, plate units per second. The easing
    /// makes the top speed 1.5 times the mean: a finger dragging a tenth of a
    /// 10 cm plate in a tenth of a second at most, as a press that keeps its
    /// force does; a flick is not a press.
    public static let slideMeanSpeed = 1.0

    /// Turns about two presses in three into slides (scenario `sliding`): the
    /// finger lands where the press was placed and moves, while held, towards
    /// another spot on the plate along a gently bent path. The force profile is
    /// untouched, so the labels' samples stay as they were; their `x`/`y` become
    /// the position at each label's scan (the recording spec: "where the finger
    /// pressed at that scan").
    ///
    /// A hard slam stays put: it lands near a corner to drive one cell onto
    /// its rail, and a slide would move that load onto other cells.
    ///
    /// On a bar the slide runs along the bar; on the triangle it stays inside
    /// it (its ends and its bend all lie in the convex area presses land on,
    /// ``PanelModel/clampToPressArea(_:)``, so the whole curve does).
    ///
    /// - Parameters:
    ///   - model: the panel, whose press area the slides keep to.
    ///   - random: a stream of its own, so that the presses, their
    ///     forces and every artefact are those of the same recording without slides.
    mutating func addSlides(on model: PanelModel, random: inout SeededRandom) {
        for i in presses.indices {
            // The same draws for every press, whatever it is, so one press's
            // kind never shifts another's slide.
            let slides = random.chance(2.0 / 3)
            let target = model.pressSpot(drawn: (random.uniform(0.1, 0.9), random.uniform(0.1, 0.9)))
            let bend = random.uniform(-0.25, 0.25)
            // Half the slides are under way as the finger lands (a drag that
            // firms up into a peek or a force click), so the peek's own scan
            // finds the finger moving; the rest start while the press holds.
            let startShare = max(0, random.uniform(-0.4, 0.4))
            let endShare = random.uniform(0.6, 1.0)
            let press = presses[i]
            guard slides, press.kind != .hardSlam, press.fallStart > press.start else { continue }
            // It starts moving while the force rises or holds, and stops
            // before or while it lifts.
            let startTime = press.start + startShare * (press.fallStart - press.start)
            let endTime = startTime + endShare * (press.end - startTime)
            var dx = target.x - press.x
            var dy = target.y - press.y
            let chord = (dx * dx + dy * dy).squareRoot()
            let longest = Self.slideMeanSpeed * (endTime - startTime)
            if chord > longest {
                dx *= longest / chord
                dy *= longest / chord
            }
            // Bent sideways by up to a quarter of its length; the control point
            // stays on the plate, so the whole curve does (and away from the
            // corners that a hard slam is for).
            let control = model.clampToPressArea((press.x + dx / 2 - bend * dy, press.y + dy / 2 + bend * dx))
            presses[i].path = PressPath(startTime: startTime, endTime: endTime, controlX: control.x, controlY: control.y,
                                        endX: press.x + dx, endY: press.y + dy)
        }
    }
}
