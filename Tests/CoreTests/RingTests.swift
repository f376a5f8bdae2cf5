import Testing
import ForceStageCore

@Suite("Ring")
struct RingTests {
    @Test("FIFO order across wrap-around")
    func fifo() {
        var ring = Ring<4, Int>(filler: 0)
        for round in 0..<5 {
            #expect(ring.pushLast(round * 10) == nil)
            #expect(ring.pushLast(round * 10 + 1) == nil)
            #expect(ring.popFirst() == round * 10)
            #expect(ring.popFirst() == round * 10 + 1)
        }
        #expect(ring.isEmpty)
        #expect(ring.popFirst() == nil)
    }

    @Test("A full ring hands back what it cannot take and counts it")
    func overflow() {
        var ring = Ring<4, Int>(filler: 0)
        for i in 0..<4 { #expect(ring.pushLast(i) == nil) }
        #expect(ring.isFull)
        #expect(ring.pushLast(99) == 99)
        #expect(ring.pushLast(100) == 100)
        #expect(ring.overflowCount == 2)
        #expect(ring[0] == 0 && ring[3] == 3)
        #expect(ring.popFirst() == 0)
        #expect(ring.pushLast(4) == nil)
        #expect((0..<ring.count).map { ring[$0] } == [1, 2, 3, 4])
    }

    @Test("Capacity must be a power of two")
    func powerOfTwo() async {
        await #expect(processExitsWith: .failure) {
            _ = Ring<3, Int>(filler: 0)
        }
    }
}
