import Foundation
import TestSupport
import Testing
@testable import ForceStageService

@Suite("Socket client queue")
struct EventClientTests {
    /// Reads what is waiting on `fd` as lines.
    func readLines(_ fd: Int32) -> [String] {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return text.split(separator: "\n").map(String.init)
    }

    @Test("a full queue counts drops and reports them in sequence before the next event; shutdown lines keep the order")
    func dropsReportedInOrder() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        let client = EventClient(fd: fds[0], id: 1, eventCapacity: 4)
        for i in 0..<10 { client.enqueue(event: "e\(i)\n") }   // the client is not being written to: 4 fit
        #expect(client.drops == 6)
        #expect(client.pendingDrops == 6)
        #expect(client.write())
        client.enqueue(event: "e10\n")
        #expect(client.write())
        let first = readLines(fds[1])
        #expect(first.count == 6)
        #expect(Array(first[0..<4]) == ["e0", "e1", "e2", "e3"])
        #expect(first[4].hasPrefix("{\"dropped\":6,\"droppedTotal\":6"), "\(first[4])")
        #expect(first[5] == "e10")

        // Full again at shutdown (with the ring wrapped): the report and the final line still go out, in order.
        for i in 11..<20 { client.enqueue(event: "e\(i)\n") }
        client.flushDropNotice()
        client.enqueueFinal("final\n")
        #expect(client.write())
        let second = readLines(fds[1])
        #expect(Array(second[0..<4]) == ["e11", "e12", "e13", "e14"])
        #expect(second[4].hasPrefix("{\"dropped\":5,\"droppedTotal\":11"), "\(second)")
        #expect(second[5] == "final")
        #expect(second.count == 6)
    }

    @Test("a client's lines are served at most linesPerTurn a turn, and it is read again only once they are served")
    func linesPerTurn() throws {
        var flood: [Int32] = [-1, -1], quiet: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &flood) == 0)
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &quiet) == 0)
        defer { for fd in flood + quiet { close(fd) } }
        for fd in [flood[0], flood[1], quiet[0]] { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        let flooder = EventClient(fd: flood[0], id: 1, eventCapacity: 4), other = EventClient(fd: quiet[0], id: 2, eventCapacity: 4)
        // As many `status` lines as the socket takes (tens of kilobytes), and one from the other client.
        let chunk = Array(String(repeating: "status\n", count: 1000).utf8)
        var sentBytes = 0
        while true {
            let n = chunk.withUnsafeBytes { send(flood[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sentBytes += n }
            if n < chunk.count { break }
        }
        let sentLines = sentBytes / 7   // whole lines; a cut one stays unfinished
        #expect(sentLines >= 1000)
        _ = "quit\n".withCString { send(quiet[1], $0, 5, 0) }
        // Turns as the service's loop takes them: each client reads (if nothing waits) and is served its share.
        var turns = 0, served = 0, otherServedAt: Int?
        while turns < 10_000 && served < sentLines {
            turns += 1
            for c in [flooder, other] {
                #expect(c.receive())
                let lines = c.takeTurn()
                #expect(lines.count <= EventClient.linesPerTurn)
                if c === flooder { served += lines.count; #expect(lines.allSatisfy { $0 == .command(.status) }) }
                if c === other, lines.contains(.command(.quit)) { otherServedAt = turns }
            }
        }
        #expect(otherServedAt == 1, "the other client is served in the first turn")
        #expect(served == sentLines, "every line of the flood is served in the end")
        #expect(turns >= sentLines / EventClient.linesPerTurn, "\(sentLines) lines took \(turns) turns")
    }
}
