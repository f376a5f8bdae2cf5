import ForceStageClock
import Logging
import ForceStageCore
import ForceStageIIO

/// The service's hot path, on one thread: refill, classify the refill's scans
/// in one batch while they are still in cache, push the decided events to the
/// sink thread. Loss, return and the end come from the ``IIOScanSource``.
///
/// Built at start (so every refusal happens before streaming) and handed to its
/// thread once through ``ServiceState/takeScanLoop()``.
struct ScanLoop: ~Copyable {
    private let source: IIOScanSource
    private var stage: ClassifierStage
    private let counters: ServiceCounters
    private let logger: Logger

    init(source: IIOScanSource, stage: consuming ClassifierStage, counters: ServiceCounters, logger: Logger) {
        self.source = source
        self.stage = stage
        self.counters = counters
        self.logger = logger
    }

    /// Streams until the source stops or ends, then releases a press in progress and pushes the end.
    consuming func run(_ state: ServiceState) {
        let name = source.displayName
        stream: while true {
            if let next = state.takePendingSetup() { stage.apply(next) }
            switch source.next() {
            case .scans(let bytes, let arrivalNs):
                let n = stage.classify(bytes, arrivalNs: arrivalNs)
                counters.scansRead.add(Int64(n), ordering: .relaxed)
                counters.refills.add(1, ordering: .relaxed)
            case .idle:
                continue
            case .lost(let reason):
                logger.warning("sensor lost", metadata: ["sensor.device": "\(name)", "sensor.error": "\(reason)"])
                stage.sensorLost(stampNs: monotonicNanoseconds())
            case .unusable(let reason):
                logger.error("device came back unusable; waiting", metadata: ["sensor.device": "\(name)", "reason": "\(reason)"])
            case .recovered(let device):
                logger.info("device reopened", metadata: ["sensor.device": "\(device)"])
            case .ended:
                logger.info("data ended", metadata: ["sensor.device": "\(name)"])
                break stream
            case .stopped:
                break stream
            }
        }
        logger.info("buffer closed", metadata: ["sensor.device": "\(name)"])
        stage.finish()
        state.events.pushEnd()
    }
}
