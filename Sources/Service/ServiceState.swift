import Synchronization
import ForceStageFormats
import ForceStageIIO

/// What the service's threads share, and nothing else: every member is
/// `Sendable` by construction (atomics, mutexes, the event channel), so the
/// compiler proves the sharing safe.
///
/// - scan thread: reads and classifies, pushes into ``events``, takes a pending reload;
/// - sink thread (the caller of ``ForceService/run()``): pops ``events``, serves clients, handles signals;
/// - reload thread (one at a time, on SIGHUP): validates a profile into ``pendingSetup``.
final class ServiceState: Sendable {
    let counters: ServiceCounters
    /// Scan thread → sink thread.
    let events: EventChannel
    /// Stops the scan source (its poll, or a blocking refill).
    let stop: IIOScanStop
    /// A validated setup waiting for the scan thread to apply it.
    let pendingSetup = Mutex<PanelSetup?>(nil)
    let reloadPending = Atomic<Bool>(false)
    /// A reload thread is running (SIGHUPs meanwhile are coalesced into it).
    let reloading = Atomic<Bool>(false)
    /// A SIGHUP came while a reload ran: it runs once more.
    let reloadAgain = Atomic<Bool>(false)
    /// The budget in force, nanoseconds (a reload may change it).
    let budgetNs = Atomic<Int64>(0)
    let worstCaseNs = Atomic<Int64>(0)
    /// Where the calibration in force came from.
    let source: Mutex<PanelSource>
    /// The scan loop, built at start and handed once to the scan thread.
    let scanLoop: Mutex<ScanLoop?>

    init(counters: ServiceCounters, events: EventChannel, stop: IIOScanStop, source: PanelSource, scanLoop: consuming sending ScanLoop) {
        self.counters = counters
        self.events = events
        self.stop = stop
        self.source = Mutex(source)
        self.scanLoop = Mutex(Optional(scanLoop))
    }

    /// Hands the scan loop to the thread that will run it (once; `nil` after).
    func takeScanLoop() -> ScanLoop? {
        scanLoop.withLock { $0.take() }
    }

    /// The setup a reload left for the scan thread, if any.
    func takePendingSetup() -> PanelSetup? {
        guard reloadPending.load(ordering: .acquiring) else { return nil }
        reloadPending.store(false, ordering: .relaxed)
        return pendingSetup.withLock { p in
            let next = p
            p = nil
            return next
        }
    }
}
