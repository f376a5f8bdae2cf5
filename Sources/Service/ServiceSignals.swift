import Synchronization
import ForceStageIIO
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP for the service, handled as input on the sink
/// thread: the handler only records the signal in an atomic bit set and writes
/// one byte into the sink thread's wake-up pipe (both async-signal-safe); the
/// sink thread ``take()``s them after its `poll`. No dispatch queue, no extra thread.
enum ServiceSignals {
    /// What the handler may touch: initialised before the handler is installed.
    private final class Shared: Sendable {
        let pending = Atomic<UInt32>(0)
        let wakeFD = Atomic<Int32>(-1)
    }
    private static let shared = Shared()
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Routes the signals to `wake`. Call once, before any thread is started.
    static func install(waking wake: SelfPipe) {
        let shared = Self.shared
        shared.wakeFD.store(wake.writeFD, ordering: .releasing)
        for sig in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                ServiceSignals.shared.pending.bitwiseOr(1 << UInt32(sig), ordering: .acquiringAndReleasing)
                var one: UInt8 = 1
                _ = write(ServiceSignals.shared.wakeFD.load(ordering: .acquiring), &one, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(sig, &action, nil)
        }
        // A mask inherited from whoever started us (a supervisor, the emulator) must not hide them from this thread.
        var set = sigset_t()
        sigemptyset(&set)
        for s in handled { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signals that arrived since the last call, in the order SIGINT, SIGTERM, SIGHUP.
    static func take() -> [Int32] {
        let bits = shared.pending.exchange(0, ordering: .acquiringAndReleasing)
        guard bits != 0 else { return [] }
        return handled.filter { bits & (1 << UInt32($0)) != 0 }
    }

    /// Blocks the handled signals in the calling thread, so they reach the sink thread only
    /// (the scan thread's poll and libiio's reads are never interrupted).
    static func blockInThisThread() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in handled { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
