import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A process on the slave side of a new pseudo-terminal (its controlling
/// terminal, in its own session), driven from the master side the way a
/// person at a keyboard drives it: read what it shows, type answers, press Ctrl-C.
final class PseudoTerminal {
    let master: Int32
    let pid: pid_t
    private(set) var output = ""
    private var status: Int32?

    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        // posix_openpt/grantpt/unlockpt/ptsname by hand (glibc hides them from Swift): the
        // multiplexor, TIOCSPTLCK to unlock the slave, TIOCGPTN for its number.
        let m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard m >= 0 else { throw POSIXError(.EIO) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(m, UInt(0x4004_5431), &unlock) == 0, ioctl(m, UInt(0x8004_5430), &number) == 0 else {
            close(m)
            throw POSIXError(.EIO)
        }
        let slavePath = "/dev/pts/\(number)"
        // 80 x 24, as over ssh.
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(m, UInt(TIOCSWINSZ), &size)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // After setsid, opening the terminal makes it the controlling one (glibc runs setsid before the file actions).
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawn_file_actions_addclose(&actions, m)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var env = environment
        env["TERM"] = "xterm"
        let envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let r = posix_spawn(&child, arguments[0], &actions, &attributes, argv, envp)
        guard r == 0 else { close(m); throw POSIXError(POSIXErrorCode(rawValue: r) ?? .EIO) }
        master = m
        pid = child
        _ = fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        if status == nil { kill(pid, SIGKILL); _ = waitExit(timeout: 5) }
        close(master)
    }

    /// Reads what is there now.
    private func pump() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(master, &buffer, buffer.count)
            if n <= 0 { break }
            output += String(decoding: buffer[0..<n], as: UTF8.self)
        }
    }

    /// Waits until the screen output contains `text` (after `from`); returns whether it did in time.
    @discardableResult
    func expect(_ text: String, timeout: Double, from: String.Index? = nil) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            pump()
            if output.contains(text) { return true }
            if !running { pump(); return output.contains(text) }
            usleep(20_000)
        }
        return false
    }

    /// Types `text` (a newline is Enter; "\u{3}" is Ctrl-C, which the terminal turns into SIGINT).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) }
    }

    var running: Bool {
        if status != nil { return false }
        var s: Int32 = 0
        if waitpid(pid, &s, WNOHANG) == pid { status = s; return false }
        return true
    }

    /// Waits for the process to end; its exit code (128 + signal when killed), or nil on timeout.
    func waitExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while running && Date() < deadline {
            pump()
            usleep(20_000)
        }
        pump()
        guard let s = status else { return nil }
        return s & 0x7f == 0 ? (s >> 8) & 0xff : 128 + (s & 0x7f)
    }
}
