import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid`.
/// (Foundation's `Process` waits through a run loop whose wakeup socket
/// cannot always be made inside fresh namespaces.)
final class Child {
    let pid: pid_t
    private(set) var status: Int32?

    /// Starts `path` with `arguments`; `stdoutFD`/`stderrFD` replace the child's when given.
    init(path: String, arguments: [String], environment: [String: String], stdoutFD: Int32? = nil, stderrFD: Int32? = nil,
         closeInChild: [Int32] = []) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let fd = stdoutFD { posix_spawn_file_actions_adddup2(&actions, fd, 1) }
        if let fd = stderrFD { posix_spawn_file_actions_adddup2(&actions, fd, 2) }
        for fd in closeInChild { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard r == 0 else { throw POSIXError(POSIXErrorCode(rawValue: r) ?? .EIO) }
        self.pid = pid
    }

    /// Whether the child still runs (reaps it when it has ended).
    var isRunning: Bool {
        if status != nil { return false }
        var s: Int32 = 0
        let r = waitpid(pid, &s, WNOHANG)
        if r == pid { status = s; return false }
        return r == 0
    }

    /// Waits for the child to end.
    func wait() {
        while status == nil {
            var s: Int32 = 0
            let r = waitpid(pid, &s, 0)
            if r == pid { status = s } else if r < 0 && errno != EINTR { status = 0 }
        }
    }

    /// The exit code, or 128 + signal for a child killed by a signal.
    var exitCode: Int32 {
        guard let s = status else { return -1 }
        if s & 0x7f == 0 { return (s >> 8) & 0xff }
        return 128 + (s & 0x7f)
    }

    func signal(_ sig: Int32) { if isRunning { kill(pid, sig) } }
}
