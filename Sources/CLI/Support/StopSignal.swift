import Foundation

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
