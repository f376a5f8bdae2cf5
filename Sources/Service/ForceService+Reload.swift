#if canImport(Glibc)
import Glibc
#endif
import Logging
import ForceStageFormats

extension ForceService {
    /// Starts a reload on its own thread: a reload stuck reading the profile (a FIFO put
    /// in its place, a hung network mount) must never keep SIGTERM or a hang-up from
    /// stopping the service. SIGHUPs during a reload are coalesced into one more pass.
    func startReload() {
        let job = ReloadJob(planner: planner, state: state, logger: logger, rate: sampleRateHz, scansPerRefill: scansPerRefill)
        if state.reloading.exchange(true, ordering: .acquiringAndReleasing) {
            state.reloadAgain.store(true, ordering: .releasing)
            return
        }
        let state = self.state
        let thread = ServiceThread(name: "forcestage-reload") {
            while true {
                repeat {
                    state.reloadAgain.store(false, ordering: .relaxed)
                    job.run()
                } while state.reloadAgain.load(ordering: .acquiring)
                state.reloading.store(false, ordering: .releasing)
                // A SIGHUP between the check above and the store: take it here, unless a new thread already did.
                if !state.reloadAgain.load(ordering: .acquiring) || state.reloading.exchange(true, ordering: .acquiringAndReleasing) { break }
            }
        }
        guard let thread else {
            state.reloading.store(false, ordering: .releasing)
            logger.error("cannot start a reload thread; the old profile stays", metadata: ["errno": "\(errno)"])
            return
        }
        thread.detach()
    }
}

/// One profile reload: re-read, validate whole (the same plan as the start), then hand to the scan thread.
struct ReloadJob: Sendable {
    let planner: ServicePlanner
    let state: ServiceState
    let logger: Logger
    let rate: Double
    let scansPerRefill: Int

    func run() {
        let current = state.source.withLock { $0 }
        guard let path = current.profilePath else {
            logger.warning("reload ignored: no profile", metadata: ["hint": "start with --profile FILE to reload on SIGHUP"])
            return
        }
        func refuse(_ reason: String) {
            state.counters.reloadFailures.add(1, ordering: .relaxed)
            logger.error("profile reload refused; the old profile stays", metadata: ["profile.file": "\(path)", "reason": "\(reason)"])
        }
        let profile: Profile
        do { profile = try Profile.load(path: path) } catch {
            refuse(error.description)
            return
        }
        let next = PanelSource(profile: profile)
        if let why = next.mismatch(deviceName: planner.deviceName, label: planner.deviceLabel) { refuse(why); return }
        if Set(next.forceChannelIDs) != Set(current.forceChannelIDs) {
            refuse("it reads channels \(next.forceChannelIDs) instead of \(current.forceChannelIDs); restart the service to change channels")
            return
        }
        if next.regions != current.regions {
            refuse("its [[region]] tables differ from the running ones; restart the service to change regions")
            return
        }
        let checked: ServicePlanner.Plan
        do { checked = try planner.plan(next, rate: rate, scansPerRefill: scansPerRefill) } catch { refuse(error.description); return }
        let b = checked.budget
        state.pendingSetup.withLock { $0 = checked.setup }
        state.reloadPending.store(true, ordering: .releasing)
        state.source.withLock { $0 = next }
        state.budgetNs.store(checked.budgetNs, ordering: .relaxed)
        state.worstCaseNs.store(checked.worstCaseNs, ordering: .relaxed)
        state.counters.reloads.add(1, ordering: .relaxed)
        logger.info("profile reloaded", metadata: ["profile.file": "\(path)", "profile.name": "\(profile.name)",
                                                   "budget.worst_case_ms": "\(ms(b.worstCaseMs))", "budget.ms": "\(ms(b.budgetMs))"])
    }
}
