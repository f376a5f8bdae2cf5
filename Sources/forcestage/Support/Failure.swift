import ArgumentParser
import Foundation

/// Prints `forcestage <command>: message` on stderr and ends with `code`.
/// Codes: 1 bad input or missing device, 2 bad recording, 3 emulator setup, 4 needs root.
func fail(_ command: String, _ message: String, code: Int32 = 1) -> ExitCode {
    FileHandle.standardError.write(Data("forcestage \(command): \(message)\n".utf8))
    return ExitCode(code)
}

/// Monotonic nanoseconds, the clock the emulator and the drivers stamp with.
func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Delivers SIGINT and SIGTERM to a handler on a background queue instead of killing the process.
final class StopSignal: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var _stopped = false
    var stopped: Bool { lock.withLock { _stopped } }

    init(_ onStop: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [weak self] in
                self?.lock.withLock { self?._stopped = true }
                onStop()
            }
            s.resume()
            sources.append(s)
        }
    }

    /// Stops listening (releasing the handler and what it holds) and restores the default actions.
    func end() {
        for s in sources { s.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
