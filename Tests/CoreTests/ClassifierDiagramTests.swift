import Foundation
import Testing
import TestSupport
@testable import ForceStageCore

/// The state diagram in docs/classifier.md is the press state machine's
/// contract: every event the classifier emits must follow one of its lines
/// from the state the classifier was in, the state after a scan must be where
/// its lines lead, and every line must be taken by a press mix.
@Suite("Classifier state diagram")
struct ClassifierDiagramTests {
    struct Edge: Hashable, CustomStringConvertible {
        let from: String, event: String, to: String
        var description: String { "\(from) --\(event)--> \(to)" }
    }

    /// The lines of the ```transitions block of docs/classifier.md.
    static func diagram() throws -> Set<Edge> {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/classifier.md"), encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```transitions\n").dropFirst().first?
            .components(separatedBy: "```").first, "docs/classifier.md has no ```transitions block")
        var edges = Set<Edge>()
        for line in block.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            try #require(words.count == 3 && words[1].hasPrefix("--") && words[1].hasSuffix("-->"), "not an edge: \(line)")
            edges.insert(Edge(from: words[0], event: String(words[1].dropFirst(2).dropLast(3)), to: words[2]))
        }
        return edges
    }

    static func name(_ s: PressState) -> String {
        switch s {
        case .idle: "idle"
        case .peeking: "peeking"
        case .popped: "popped"
        }
    }

    static func name(_ k: EventKind) -> String {
        switch k {
        case .peek: "peek"
        case .pop: "pop"
        case .hold: "hold"
        case .release: "release"
        default: "\(k)"
        }
    }

    @Test("Every event follows the diagram, and every line of it is taken", arguments: [10, 80, 500] as [Float])
    func followsDiagram(rate: Float) throws {
        let edges = try Self.diagram()
        #expect(edges.count >= 5)
        var settings = ClassifierSettings(peekNewtons: 1, popNewtons: 2.5)
        settings.holdMilliseconds = 300
        let parameters = try ClassifierParameters(settings, sampleRateHz: rate)
        var classifier = Classifier(parameters: parameters)
        var ring = EventRing()
        var taken = Set<Edge>()
        for (i, force) in RefusedBlockTests.forces(rate: rate, seconds: 120).enumerated() {
            var state = Self.name(classifier.state)
            classifier.step(force: force, sample: Int64(i), timestampNs: Int64(Double(i) * 1e9 / Double(rate)), into: &ring)
            while let event = ring.popFirst() {
                let kind = Self.name(event.kind)
                let edge = try #require(edges.first { $0.from == state && $0.event == kind },
                                        "scan \(i): \(kind) from \(state) is not in docs/classifier.md")
                taken.insert(edge)
                state = edge.to
            }
            #expect(state == Self.name(classifier.state), "scan \(i): the diagram leads to \(state)")
        }
        #expect(taken == edges, "lines never taken at \(rate) scans/s: \(edges.subtracting(taken))")
    }
}
