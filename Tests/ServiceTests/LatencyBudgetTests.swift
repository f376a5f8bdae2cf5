import Testing
import ForceStageCore
import ForceStageService

@Suite("Latency budget")
struct LatencyBudgetTests {
    func parameters(rate: Float, press: Debounce = Debounce(.eager, milliseconds: 5),
                    release: Debounce = Debounce(.deferred, milliseconds: 10), spikes: Bool = true) throws -> ClassifierParameters {
        var s = ClassifierSettings(sensitivity: .medium)
        s.pressDebounce = press
        s.releaseDebounce = release
        s.spikeRejection = spikes
        return try ClassifierParameters(s, sampleRateHz: rate)
    }

    @Test("HX711 at 80 scans/s with a three-scan deferred press debounce cannot meet 25 ms; the message names the knob")
    func hx711DeferredRefused() throws {
        // 3 scans of 12.5 ms: press_ms = 37.5 resolves to 3 scans.
        let p = try parameters(rate: 80, press: Debounce(.deferred, milliseconds: 37.5))
        let b = LatencyBudget(parameters: p, sampleRateHz: 80, scansPerRefill: 1, kernelBuffers: 4, budgetMs: 25)
        #expect(b.worstCaseMs == 12.5 + 0 + 12.5 + 25)
        #expect(!b.fits)
        let message = try #require(b.refusal)
        #expect(message.contains("80 scans/s"))
        #expect(message.contains("25 ms latency budget"))
        #expect(message.contains("3-scan deferred press debounce"))
        #expect(message.contains("[debounce] press = \"eager\""))
        #expect(message.contains("--budget-ms"))
    }

    @Test("HX711 at 80 scans/s, eager press, one scan per refill: 25 ms exactly, accepted")
    func hx711EagerFits() throws {
        let p = try parameters(rate: 80)
        let b = LatencyBudget(parameters: p, sampleRateHz: 80, scansPerRefill: 1, kernelBuffers: 4, budgetMs: 25)
        #expect(b.samplingMs == 12.5)
        #expect(b.filterMs == 12.5)
        #expect(b.refillMs == 0)
        #expect(b.debounceMs == 0)   // deferred release of 10 ms is one scan at 80/s: nothing extra
        #expect(b.fits)
        #expect(b.refusal == nil)
        #expect(b.kernelQueueMs == 50)
    }

    @Test("scans per refill are what waits: the refusal points at --scans-per-refill")
    func refillRefused() throws {
        let p = try parameters(rate: 250)
        let b = LatencyBudget(parameters: p, sampleRateHz: 250, scansPerRefill: 4, kernelBuffers: 4, budgetMs: 15)
        // sampling 4 + refill 3 x 4 + spike filter 4 + the deferred 10 ms release (3 scans, 2 beyond the first) 8.
        #expect(b.worstCaseMs == 4 + 12 + 4 + 8)
        let message = try #require(b.refusal)
        #expect(message.contains("4 scans per refill add 12 ms: lower --scans-per-refill"))
    }

    @Test("a rate too slow for the budget says to raise the rate")
    func slowRate() throws {
        let p = try parameters(rate: 10)
        let b = LatencyBudget(parameters: p, sampleRateHz: 10, scansPerRefill: 1, kernelBuffers: 4, budgetMs: 25)
        let message = try #require(b.refusal)
        #expect(message.contains("raise the sample rate"))
    }

    @Test("default scans per refill: the most (up to 4) that fits the budget and waits at most 5 ms", arguments: [
        // 860/s: 1.16 ms scans, the 10 ms deferred release is 8 extra scans; 250/s: 4 ms scans, 2 extra.
        (Float(80), 25.0, 1), (Float(860), 25.0, 4), (Float(860), 14.0, 3), (Float(250), 25.0, 2), (Float(250), 20.0, 2), (Float(250), 16.0, 1),
    ])
    func defaultRefill(rate: Float, budget: Double, expected: Int) throws {
        let p = try parameters(rate: rate)
        #expect(LatencyBudget.scansPerRefill(parameters: p, sampleRateHz: Double(rate), kernelBuffers: 4, budgetMs: budget) == expected)
    }
}
