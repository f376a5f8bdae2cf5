import Foundation
import TestSupport
import Testing
import ForceStageIIO

@Suite("ForceStageIIO without hardware")
struct IIOUnitTests {
    @Test("default scans per refill: what arrives within the budget, clamped to 1...4", arguments: [
        (80.0, 5.0, 1), (860.0, 5.0, 4), (500.0, 5.0, 2), (250.0, 5.0, 1), (3300.0, 5.0, 4),
        (860.0, 2.0, 1), (860.0, 3.5, 3), (10.0, 100.0, 1), (0.0, 5.0, 1), (-5.0, 5.0, 1), (.nan, 5.0, 1),
    ])
    func defaultScansPerRefill(rate: Double, budget: Double, expected: Int) {
        #expect(IIOBuffer.defaultScansPerRefill(sampleRateHz: rate, latencyBudgetMs: budget) == expected)
    }

    @Test("unknown rate gives one scan per refill")
    func unknownRate() {
        #expect(IIOBuffer.defaultScansPerRefill(sampleRateHz: nil) == 1)
    }

    @Test("IIOError carries errno, its name, strerror text and the operation")
    func errorText() {
        let e = IIOError(code: -ETIMEDOUT, operation: "iio_buffer_refill(iio:device0)")
        #expect(e.code == ETIMEDOUT)
        #expect(e.name == "ETIMEDOUT")
        #expect(e.text == String(cString: strerror(ETIMEDOUT)))
        #expect(e.description == "iio_buffer_refill(iio:device0): \(String(cString: strerror(ETIMEDOUT))) (ETIMEDOUT)")
        #expect(e.isTimeout && !e.isDeviceGone && !e.isCancelled)
        #expect(IIOError(code: ENODEV, operation: "x").isDeviceGone)
        #expect(IIOError(code: EBADF, operation: "x").isCancelled)
        #expect(IIOError(code: ENOSYS, operation: "x").isUnsupported)
        #expect(IIOError(code: 4095, operation: "x").name == "errno 4095")
    }

    @Test("a context that cannot be created throws IIOError with the URI in the operation")
    func badContext() {
        #expect {
            _ = try IIOContext(uri: "xml:/nonexistent/forcestage.xml")
        } throws: { error in
            guard let e = error as? IIOError else { return false }
            return e.operation.contains("xml:/nonexistent/forcestage.xml") && e.code != 0
        }
    }
}
