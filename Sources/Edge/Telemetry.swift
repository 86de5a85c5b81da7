import Wire

/// The node's `telemetry` message of docs/protocol.md#mqtt-topics-and-payloads, counters since start.
struct Telemetry: Sendable {
    /// What the publisher knows about readings.
    struct Counts {
        /// Readings the broker has (acknowledged at QoS 1, written at QoS 0).
        var published: UInt64 = 0
        /// Readings handed to libmosquitto and not yet confirmed.
        var inflight = 0
        /// QoS 0 readings unconfirmed when a connection dropped, and readings each too large
        /// for the broker's packet limit on their own.
        var lost: UInt64 = 0
        /// Readings waiting in the queue (filled in when publishing telemetry).
        var waiting = 0
        /// Every reading given up on: queue overflow plus `lost`.
        var dropped: UInt64 = 0
    }

    let topic: String
    let version: String
    /// The source: `hci0`, `monitor`, `replay:FILE`, `stdin`.
    let adapter: String
    let counters: EdgeCounters
    let started: Double
    /// The live source's state now (an adapter that went away says so here).
    let sourceState: @Sendable () -> String?

    func payload(_ c: Counts) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.objectStart()
        w.field("version", version)
        w.field("adapter", adapter)
        // Beyond the fields docs/protocol.md#telemetry started with: whether a live adapter is scanning, or down and why.
        if let state = sourceState() { w.field("adapter_state", state) }
        w.field("uptime", unixTime() - started, decimals: 0)
        w.key("adverts"); w.value(counters.advertCount)
        w.key("published"); w.value(c.published)
        w.key("dropped"); w.value(c.dropped)
        w.field("buffered", c.waiting + c.inflight)
        // Beyond the fields docs/protocol.md#telemetry started with: input that could not be decoded and was skipped.
        w.key("malformed"); w.value(counters.malformedCount)
        w.objectEnd()
        return w.bytes
    }
}
