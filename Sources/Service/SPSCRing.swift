import Synchronization

/// A lock-free single-producer single-consumer ring of fixed capacity.
///
/// One thread pushes, one other thread pops; neither ever waits for the other.
/// Storage is allocated once at creation, so pushing and popping never allocate.
/// A push into a full ring is refused and counted in ``overflows``: the
/// producer (the sensor side) never blocks on a slow consumer, and no loss is silent.
///
/// Indices are free-running counters: `tail - head` is the element count, and a
/// slot is `index & mask`. The producer publishes a written slot by storing
/// `tail` with release ordering; the consumer reads `tail` with acquiring
/// ordering before reading the slot, and the mirror image for `head`.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    /// Slots; a power of two.
    public let capacity: Int
    @usableFromInline let mask: Int
    @usableFromInline let storage: UnsafeMutablePointer<Element>
    /// Next slot to read; written only by the consumer.
    @usableFromInline let head = Atomic<Int>(0)
    /// Next slot to write; written only by the producer.
    @usableFromInline let tail = Atomic<Int>(0)
    @usableFromInline let _overflows = Atomic<Int>(0)

    /// Creates an empty ring.
    ///
    /// - Parameter capacity: slots, rounded up to a power of two (at least 2).
    public init(capacity: Int) {
        var c = 2
        while c < capacity { c <<= 1 }
        self.capacity = c
        mask = c - 1
        storage = UnsafeMutablePointer<Element>.allocate(capacity: c)
    }

    deinit { storage.deallocate() }

    /// Elements a push refused because the ring was full.
    public var overflows: Int { _overflows.load(ordering: .relaxed) }

    /// Elements waiting; exact from either side's thread, a snapshot from others.
    public var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }

    /// Whether a push would be refused now. Producer thread only (then exact).
    public var isFull: Bool { tail.load(ordering: .relaxed) &- head.load(ordering: .acquiring) >= capacity }

    /// Appends `element` unless the ring is full. Producer thread only.
    ///
    /// - Returns: `true` when stored; `false` when full (the overflow is counted).
    /// - Complexity: O(1), no allocation, no lock.
    @inlinable
    @discardableResult
    public func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t &- head.load(ordering: .acquiring) >= capacity {
            _overflows.add(1, ordering: .relaxed)
            return false
        }
        (storage + (t & mask)).initialize(to: element)
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Removes and returns the oldest element, or `nil` when empty. Consumer thread only.
    /// - Complexity: O(1), no allocation, no lock.
    @inlinable
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let element = storage[h & mask]
        head.store(h &+ 1, ordering: .releasing)
        return element
    }
}

/// A lock-free single-producer single-consumer ring of fixed-size byte slots,
/// for scans whose size is known only at run time (the device's scan layout).
///
/// Each slot holds a small header (``ScanSlotKind`` and a nanosecond stamp)
/// and `slotBytes` of payload. The producer copies a scan into the next free
/// slot; the consumer reads it in place and then releases it. Same ordering
/// rules as ``SPSCRing``.
public final class ScanRing: @unchecked Sendable {
    /// What a slot carries.
    public enum Kind: Int64, Sendable {
        /// A scan; the stamp is its arrival on CLOCK_MONOTONIC.
        case scan = 0
        /// The sensor could not be read; the stamp is when that was noticed.
        case lost = 1
        /// The stream ended (stop requested, or the data ran out).
        case end = 2
    }

    /// Slots; a power of two.
    public let capacity: Int
    /// Payload bytes per slot.
    public let slotBytes: Int
    @usableFromInline let stride: Int
    @usableFromInline let mask: Int
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let head = Atomic<Int>(0)
    @usableFromInline let tail = Atomic<Int>(0)
    @usableFromInline let _overflows = Atomic<Int>(0)
    @usableFromInline static let header = 16

    /// Creates an empty ring of `capacity` slots (rounded up to a power of two) of `slotBytes` each.
    public init(capacity: Int, slotBytes: Int) {
        var c = 2
        while c < capacity { c <<= 1 }
        self.capacity = c
        self.slotBytes = slotBytes
        mask = c - 1
        stride = Self.header + (slotBytes + 7) & ~7
        storage = UnsafeMutableRawPointer.allocate(byteCount: c * stride, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: c * stride)
    }

    deinit { storage.deallocate() }

    /// Scans (and markers) a push refused because the ring was full.
    public var overflows: Int { _overflows.load(ordering: .relaxed) }

    /// Slots waiting.
    public var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }

    /// Whether a push would be refused now. Producer thread only (then exact).
    public var isFull: Bool { tail.load(ordering: .relaxed) &- head.load(ordering: .acquiring) >= capacity }

    /// Copies `slotBytes` from `bytes` into the next slot. Producer thread only.
    ///
    /// - Returns: `false` when the ring is full (counted in ``overflows``).
    @inlinable
    @discardableResult
    public func push(kind: Kind, stampNs: Int64, bytes: UnsafeRawPointer?) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t &- head.load(ordering: .acquiring) >= capacity {
            _overflows.add(1, ordering: .relaxed)
            return false
        }
        let slot = storage + (t & mask) * stride
        slot.storeBytes(of: kind.rawValue, as: Int64.self)
        slot.storeBytes(of: stampNs, toByteOffset: 8, as: Int64.self)
        if let bytes { (slot + Self.header).copyMemory(from: bytes, byteCount: slotBytes) }
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// The oldest slot, read in place, or `nil` when empty. Consumer thread
    /// only; the payload stays valid until ``release()``.
    @inlinable
    public func front() -> (kind: Kind, stampNs: Int64, bytes: UnsafeRawPointer)? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let slot = UnsafeRawPointer(storage + (h & mask) * stride)
        let kind = Kind(rawValue: slot.load(as: Int64.self)) ?? .scan
        return (kind, slot.load(fromByteOffset: 8, as: Int64.self), slot + Self.header)
    }

    /// Frees the slot ``front()`` returned. Consumer thread only.
    @inlinable
    public func release() {
        head.store(head.load(ordering: .relaxed) &+ 1, ordering: .releasing)
    }
}
