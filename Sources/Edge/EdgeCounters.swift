import Synchronization

/// Counters written on the source thread and read for telemetry.
public final class EdgeCounters: Sendable {
    /// Advertising reports decoded (before identity and filters).
    let adverts = Atomic<UInt64>(0)
    /// Input that could not be decoded (bad packets or lines), skipped.
    let malformed = Atomic<UInt64>(0)

    public init() {}

    public var advertCount: UInt64 { adverts.load(ordering: .relaxed) }
    public var malformedCount: UInt64 { malformed.load(ordering: .relaxed) }
}
