import ForceStageCore
import Testing

/// `forces` through a classifier one scan at a time and through a copy of
/// it in batches (each call taking what it can), with the events of each.
public func classifyBothWays(_ forces: [Float], _ stamps: [Int64], parameters: ClassifierParameters)
    -> (one: Classifier, many: Classifier, perScan: [ForceEvent], batched: [ForceEvent]) {
    var one = Classifier(parameters: parameters), many = one
    var ring = EventRing()
    var a: [ForceEvent] = [], b: [ForceEvent] = []
    for i in forces.indices {
        one.step(force: forces[i], sample: Int64(i), timestampNs: stamps[i], into: &ring)
        while let e = ring.popFirst() { a.append(e) }
    }
    var start = 0
    while start < forces.count {
        let taken = forces.withUnsafeBufferPointer { f in
            stamps.withUnsafeBufferPointer { t in
                many.step(forces: f.baseAddress! + start, timestamps: t.baseAddress! + start, count: forces.count - start,
                          firstSample: Int64(start), into: &ring)
            }
        }
        #expect(taken > 0 || !ring.isEmpty)
    if taken == 0 && ring.isEmpty { break }  // a batch step that takes nothing would loop for ever
        while let e = ring.popFirst() { b.append(e) }
        start += taken
    }
    #expect(ring.overflowCount == 0)
    return (one, many, a, b)
}
