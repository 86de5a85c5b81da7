import Wire

/// A node's streams: its plain readings topic and each partition's (docs/protocol.md,
/// Partitions and shards), each with its own `seq`; here they are looked up and summed.
extension Ingest {
    /// The stream of `node`'s partition `partition` (nil: its plain stream), if it has had a batch.
    public func stream(node: String, partition: Int?) -> NodeStream? {
        guard let partition else { return nodes[node] }
        return partitions[node]?[partition]
    }

    /// Batches `node` missed over all its streams.
    public func missedBatches(of node: String) -> UInt64 {
        (nodes[node]?.missedBatches ?? 0) + (partitions[node]?.values.reduce(0) { $0 + $1.missedBatches } ?? 0)
    }

    /// `node`'s streams summed: batches, readings, missed batches and restarts added up, the
    /// latest arrival, and the clock error of the stream heard last; nil before any batch.
    public func summary(of node: String) -> NodeStream? {
        let all = (nodes[node].map { [$0] } ?? []) + (partitions[node].map { Array($0.values) } ?? [])
        guard var out = all.max(by: { $0.lastArrival < $1.lastArrival }) else { return nil }
        out.batches = all.reduce(0) { $0 + $1.batches }
        out.readings = all.reduce(0) { $0 + $1.readings }
        out.missedBatches = all.reduce(0) { $0 + $1.missedBatches }
        out.restarts = all.reduce(0) { $0 + $1.restarts }
        return out
    }
}
