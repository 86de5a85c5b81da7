/// Seconds to wait before reopening an adapter: doubling from 1 s to at most 30 s, back to
/// 1 s once it works again.
public struct Backoff: Sendable {
    public let initial: Double
    public let maximum: Double
    private var next: Double

    public init(initial: Double = 1, maximum: Double = 30) {
        self.initial = initial
        self.maximum = maximum
        next = initial
    }

    /// The delay before the next attempt; each call doubles the following one.
    public mutating func delay() -> Double {
        defer { next = min(next * 2, maximum) }
        return next
    }

    public mutating func reset() { next = initial }
}
