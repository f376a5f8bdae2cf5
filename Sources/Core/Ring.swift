/// A fixed-capacity FIFO ring buffer stored inline, with no heap allocation.
///
/// The capacity is a power of two so that index arithmetic is a mask. When the
/// ring is full, ``pushLast(_:)`` refuses the new element, hands it back and
/// counts the overflow instead of trapping: on the data path an overflow is a
/// fact to report, not a crash.
public struct Ring<let capacity: Int, Element: BitwiseCopyable> {
    @usableFromInline internal var _storage: InlineArray<capacity, Element>
    /// Position of the first element (monotonic; masked on access).
    @usableFromInline internal var _head: Int
    @usableFromInline internal var _count: Int
    /// How many elements ``pushLast(_:)`` refused because the ring was full.
    public var overflowCount: UInt64 { _overflowCount }
    @usableFromInline internal var _overflowCount: UInt64

    /// Creates an empty ring. `filler` initialises the unused storage.
    ///
    /// - Precondition: `capacity` is a power of two.
    @inlinable
    public init(filler: Element) {
        precondition(capacity > 0 && capacity & (capacity &- 1) == 0,
                     "Ring capacity must be a power of two")
        _storage = InlineArray(repeating: filler)
        _head = 0
        _count = 0
        _overflowCount = 0
    }

    /// The most elements the ring holds.
    @inlinable public static var capacityCount: Int { capacity }

    /// The number of elements in the ring.
    @inlinable public var count: Int { _count }
    /// Whether the ring holds no element.
    @inlinable public var isEmpty: Bool { _count == 0 }
    /// Whether the ring holds `capacity` elements.
    @inlinable public var isFull: Bool { _count == capacity }

    /// Appends `element` unless the ring is full.
    ///
    /// - Returns: `nil` when the element was stored; the element itself when
    ///   the ring was full (the overflow is counted in ``overflowCount``).
    /// - Complexity: O(1).
    @inlinable
    @discardableResult
    public mutating func pushLast(_ element: Element) -> Element? {
        if _count == capacity {
            _overflowCount &+= 1
            return element
        }
        _storage[(_head &+ _count) & (capacity &- 1)] = element
        _count &+= 1
        return nil
    }

    /// Removes and returns the oldest element, or `nil` when empty.
    /// - Complexity: O(1).
    @inlinable
    public mutating func popFirst() -> Element? {
        guard _count > 0 else { return nil }
        let element = _storage[_head & (capacity &- 1)]
        _head = (_head &+ 1) & (capacity &- 1)
        _count &-= 1
        return element
    }

    /// The element `offset` places after the oldest one.
    ///
    /// - Precondition: `0 <= offset < count`.
    @inlinable
    public subscript(offset: Int) -> Element {
        precondition(offset >= 0 && offset < _count, "Ring offset out of range")
        return _storage[(_head &+ offset) & (capacity &- 1)]
    }

    /// Removes every element; the overflow count is kept.
    @inlinable
    public mutating func removeAll() {
        _head = 0
        _count = 0
    }
}

/// A ring is its inline storage and three integers: sendable when its elements are.
extension Ring: Sendable where Element: Sendable {}
