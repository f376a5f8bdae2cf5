import Foundation

/// The tmux binary, if installed.
let tmux: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// Runs a short command with posix_spawn and waitpid, output to a file. (Foundation's
/// Process can miss the exit of tmux's client, which forks the server, and wait forever.)
func spawnAndWait(_ arguments: [String], timeout: Double = 10) throws -> (status: Int32, stdout: String) {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("fs-spawn-\(UUID().uuidString)")
    defer { unlink(out.path) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let r = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
    guard r == 0 else { throw POSIXError(POSIXErrorCode(rawValue: r) ?? .EIO) }
    var status: Int32 = 0
    let deadline = Date().addingTimeInterval(timeout)
    while waitpid(pid, &status, WNOHANG) == 0 {
        if Date() > deadline { kill(pid, SIGKILL); waitpid(pid, &status, 0); break }
        usleep(10_000)
    }
    return ((status >> 8) & 0xff, (try? String(contentsOf: out, encoding: .utf8)) ?? "")
}

/// A detached 80 x 24 tmux session running a shell script, for tests of full-screen
/// commands: what the screen shows, keys typed into it, and a file the script
/// writes when the command under test has ended. Killed at ``close()``.
struct TmuxSession {
    let name: String
    /// The file the script writes after the command under test: `command-exit=$?` and `stty -a`.
    let done: URL

    /// Starts `commandLine` in a session named `name` (unique per test); with `trapInterrupt`
    /// the shell survives a Ctrl-C so that it can report what the command left behind.
    init(name: String, in dir: URL, commandLine: String, trapInterrupt: Bool = false) throws {
        self.name = name
        done = dir.appendingPathComponent("done")
        let script = dir.appendingPathComponent("run.sh")
        try """
        \(trapInterrupt ? "trap 'echo shell-saw-int' INT" : "")
        \(commandLine)
        echo "command-exit=$?" > \(done.path).part
        stty -a >> \(done.path).part
        mv \(done.path).part \(done.path)
        sleep 60
        """.write(to: script, atomically: true, encoding: .utf8)
        _ = try spawnAndWait([tmux!, "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "sh \(script.path)"])
    }

    func close() { _ = try? spawnAndWait([tmux!, "kill-session", "-t", name]) }

    /// The screen as text, one line per row.
    func screen() throws -> String { try spawnAndWait([tmux!, "capture-pane", "-p", "-t", name]).stdout }

    func send(_ keys: String) throws { _ = try spawnAndWait([tmux!, "send-keys", "-t", name, keys]) }

    /// Polls the screen until `ready` holds or `seconds` pass; the last screen seen.
    func waitForScreen(seconds: Double, every micros: useconds_t = 200_000, until ready: (String) -> Bool) throws -> String {
        var shown = ""
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            shown = try screen()
            if ready(shown) { break }
            usleep(micros)
        }
        return shown
    }

    /// What the script wrote after the command ended (empty if it did not within `seconds`). The
    /// script writes it whole under another name and renames it, so it is complete once it exists
    /// (a 300 ms head start for `stty -a` to finish writing was a race on a loaded machine).
    func afterExit(seconds: Double = 30) -> String {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end && !FileManager.default.fileExists(atPath: done.path) { usleep(100_000) }
        return (try? String(contentsOf: done, encoding: .utf8)) ?? ""
    }
}
