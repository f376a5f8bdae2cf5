#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Nanoseconds on `clock` (`CLOCK_MONOTONIC` unless a channel's
/// `current_timestamp_clock` says otherwise): the one way the host tools,
/// the emulator and the service read a clock. The Core reads none; it takes
/// its timestamps from the scans.
@inline(__always)
public func clockNanoseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> Int64 {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// Nanoseconds on `CLOCK_MONOTONIC`, the clock the kernel's IIO timestamps use.
@inline(__always)
public func monotonicNanoseconds() -> Int64 { clockNanoseconds(CLOCK_MONOTONIC) }
