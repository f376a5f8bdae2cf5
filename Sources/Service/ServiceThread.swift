#if canImport(Glibc)
import Glibc
#endif

/// A named POSIX thread running `body`, joined with ``join()``.
///
/// The service's two extra threads (scan, reload) are started here rather than
/// through Foundation's `Thread`, so the service path does not need Foundation;
/// `body` is `@Sendable`, so the compiler checks everything it captures.
struct ServiceThread: ~Copyable {
    private let handle: pthread_t

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept, as the kernel allows).
    /// - Returns: `nil` when the system refuses a thread (`pthread_create` failed).
    init?(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let named: @Sendable () -> Void = {
            // The thread's name for top -H and /proc (pthread_setname_np is not in the Glibc module).
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                var bytes = Array(name.utf8.prefix(15))
                _ = write(fd, &bytes, bytes.count)
                close(fd)
            }
            body()
        }
        let box = Unmanaged.passRetained(Box(named)).toOpaque()
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            ServiceSignals.blockInThisThread()
            box.body()
            return nil
        }, box)
        guard r == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        handle = thread
    }

    /// Lets the thread run on its own; its resources go when it returns.
    consuming func detach() {
        _ = pthread_detach(handle)
    }

    /// Waits for the thread to return.
    consuming func join() {
        _ = pthread_join(handle, nil)
    }
}
