import Foundation
import TestSupport
import Logging
import Synchronization
import Testing
@testable import ForceStageService

/// The socket file and its clients, on a real EventServer in this process:
/// creation mode, what sits at the path before and after, the client limit,
/// the status client's timeouts, and the SIGHUP rule. Serialized: the umask
/// is the process's, and `EventServer` sets it around `bind`, so a second
/// server made by a test running beside `modeAtCreation` could bind under, or
/// restore over, that test's umask 0 (seen once in a full run: mode 0640).
@Suite("Socket server files and limits", .serialized)
struct SocketServerTests {
    let logger = Logger(label: "test")

    func connectFD(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        if r != 0 { close(fd); return -1 }
        return fd
    }

    func errorMessage(_ path: String) -> String? {
        do { let s = try EventServer(path: path, clientQueue: 4, logger: logger); s.close(); return nil } catch { return error.description }
    }

    @Test("the socket is 0660 from creation even under umask 0; the umask is restored")
    func modeAtCreation() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.sock").path
        let old = umask(0)
        defer { umask(old) }
        let server = try EventServer(path: path, clientQueue: 4, logger: logger)
        defer { server.close() }
        #expect(umask(0) == 0, "the process umask is restored after bind")
        var st = stat()
        #expect(lstat(path, &st) == 0)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
        #expect(st.st_mode & 0o777 == 0o660, "mode \(String(st.st_mode & 0o777, radix: 8))")
    }

    @Test("at exit only the socket this process created is removed: a file swapped in at the path stays")
    func removesOnlyItsOwn() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("b.sock").path
        let server = try EventServer(path: path, clientQueue: 4, logger: logger)
        // Someone replaces the socket with their own file (a shared directory).
        let other = dir.appendingPathComponent("other").path
        try "not yours\n".write(toFile: other, atomically: false, encoding: .utf8)
        #expect(rename(other, path) == 0)
        server.close()
        #expect((try? String(contentsOfFile: path, encoding: .utf8)) == "not yours\n", "another file at the path is left alone")

        // And its own socket is removed.
        unlink(path)
        let again = try EventServer(path: path, clientQueue: 4, logger: logger)
        again.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("refuses to start over a regular file, a symlink, or a live socket, and leaves each alone; a stale socket of its own is replaced")
    func refusesExisting() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("file").path
        try "data\n".write(toFile: file, atomically: false, encoding: .utf8)
        let fileError = errorMessage(file)
        #expect(fileError?.contains("exists and is not a socket; it is left alone") == true, "\(fileError ?? "accepted")")
        #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "data\n")

        let link = dir.appendingPathComponent("link").path
        #expect(symlink(file, link) == 0)
        #expect(errorMessage(link) != nil)
        #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "data\n")

        let live = dir.appendingPathComponent("live.sock").path
        let first = try EventServer(path: live, clientQueue: 4, logger: logger)
        defer { first.close() }
        let liveError = errorMessage(live)
        #expect(liveError?.contains("another service is already serving it") == true, "\(liveError ?? "accepted")")
        #expect(connectFD(live) >= 0, "the first server still serves")

        // A stale socket (its server gone without cleaning up) of this user is replaced.
        let stale = dir.appendingPathComponent("stale.sock").path
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in stale.utf8.enumerated() { raw[i] = b } }
        #expect(withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } } == 0)
        close(s)
        let replaced = try EventServer(path: stale, clientQueue: 4, logger: logger)
        replaced.close()
    }

    @Test("a stale socket of another user is not removed", .enabled(if: geteuid() == 0, "chown to another user needs root"))
    func foreignStaleSocket() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stale = dir.appendingPathComponent("theirs.sock").path
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in stale.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        close(s)
        #expect(lchown(stale, 12345, 12345) == 0)
        let e = errorMessage(stale)
        #expect(e?.contains("stale socket of user 12345") == true, "\(e ?? "accepted")")
        var st = stat()
        #expect(lstat(stale, &st) == 0 && st.st_uid == 12345, "left in place")
    }

    @Test("client limit: the client past --max-clients gets the status line and one error line and is closed, counted; the others stay served")
    func clientLimit() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("c.sock").path
        let server = try EventServer(path: path, clientQueue: 4, maxClients: 2, logger: logger)
        defer { server.close() }
        let a = connectFD(path), b = connectFD(path), c = connectFD(path)
        defer { close(a); close(b); close(c) }
        #expect(a >= 0 && b >= 0 && c >= 0)
        var rendered = 0
        server.acceptAll { rendered += 1; return "{\"status\":{\"clients\":2}}\n" }
        #expect(server.clients.count == 2)
        #expect(server.refused == 1)
        #expect(rendered == 1, "the status is rendered for the client turned away, once")
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text = ""
        while true {
            let n = recv(c, &buffer, buffer.count, 0)
            if n <= 0 { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(text)")
        #expect(lines.first == "{\"status\":{\"clients\":2}}", "\(text)")
        #expect(lines.last?.hasPrefix("{\"error\":\"refused: the service serves at most 2 clients\"") == true, "\(text)")
        server.broadcast("{\"event\":\"peek\"}\n")
        let n = recv(a, &buffer, buffer.count, 0)
        #expect(n > 0 && String(decoding: buffer[0..<n], as: UTF8.self) == "{\"event\":\"peek\"}\n")
    }

    @Test("the path appears only once the socket listens: a client that connects the moment it sees the file is never refused")
    func appearsListening() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var refused = 0
        for i in 0..<200 {
            let path = dir.appendingPathComponent("r\(i).sock").path
            let result = Mutex<Int32>(0)
            let watcher = Thread {
                var st = stat()
                let deadline = Date().addingTimeInterval(30)
                while lstat(path, &st) != 0 && Date() < deadline {}
                let fd = connectFD(path)
                result.withLock { $0 = fd >= 0 ? 1 : -1 }
                if fd >= 0 { close(fd) }
            }
            watcher.start()
            let server = try EventServer(path: path, clientQueue: 4, logger: logger)
            _ = waitUntil(30) { result.withLock { $0 } != 0 }
            if result.withLock({ $0 }) != 1 { refused += 1 }
            server.close()
        }
        #expect(refused == 0, "\(refused) of 200 clients found the path before it listened")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        #expect(leftovers.isEmpty, "no temporary names left: \(leftovers)")
    }

    @Test("SIGHUP rule: reload under systemd, without a terminal, or when asked; in a terminal it is a hang-up")
    func hangupRule() {
        #expect(!HangupPolicy.reloads(explicit: false, environment: [:], stdinIsTerminal: true))
        #expect(HangupPolicy.reloads(explicit: true, environment: [:], stdinIsTerminal: true))
        #expect(HangupPolicy.reloads(explicit: false, environment: ["NOTIFY_SOCKET": "/run/systemd/notify"], stdinIsTerminal: true))
        #expect(HangupPolicy.reloads(explicit: false, environment: ["INVOCATION_ID": "abc"], stdinIsTerminal: true))
        #expect(HangupPolicy.reloads(explicit: false, environment: [:], stdinIsTerminal: false))
    }
}

/// A listening socket that never accepts, its backlog filled: what a stuck service looks like to a client.
final class FullBacklog {
    let path: String
    let listener: Int32
    var fillers: [Int32] = []

    init(path: String) {
        self.path = path
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        listen(listener, 0)
        for _ in 0..<16 {
            let f = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(f, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            if r != 0 { close(f); break }
            fillers.append(f)
        }
    }

    func shutDown() {
        for f in fillers { Glibc.close(f) }
        Glibc.close(listener)
        unlink(path)
    }
}

@Suite("Status client timeouts")
struct StatusClientTimeoutTests {
    @Test("a service whose backlog is full: status gives up at its timeout with a clear reason instead of hanging")
    func fullBacklog() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = FullBacklog(path: dir.appendingPathComponent("stuck.sock").path)
        defer { full.shutDown() }
        #expect(!full.fillers.isEmpty)
        let result = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let path = full.path
        let started = Date()
        Thread {
            do throws(StatusClient.Failure) { _ = try StatusClient.fetch(socketPath: path, timeoutMs: 500); result.withLock { $0 = "answered" } } catch {
                result.withLock { $0 = "\(error.timedOut) \(error.description)" }
            }
            done.signal()
        }.start()
        // Without a connect timeout the call never returns; closing the listener later releases it.
        // The bound is only for that failure (a loaded machine may take seconds to run the thread).
        let returned = done.wait(timeout: .now() + 30) == .success
        #expect(returned, "status returned within 30 s")
        if returned {
            let message = result.withLock { $0 } ?? ""
            #expect(message.hasPrefix("true "), "\(message)")
            #expect(message.contains("accepted no connection within 500 ms"), "\(message)")
            // The 500 ms were waited (an upper bound would be the machine's speed, not the timeout's).
            #expect(Date().timeIntervalSince(started) >= 0.5)
        }
    }

    @Test("a service that accepts but never answers: a timeout too", .timeLimit(.minutes(1)))
    func silentService() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("silent.sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        listen(listener, 4)
        do throws(StatusClient.Failure) { _ = try StatusClient.fetch(socketPath: path, timeoutMs: 300); Issue.record("answered") } catch {
            #expect(error.timedOut)
            #expect(error.description.contains("no status reply"))
        }
    }
}
