import Positioning
import Wire

/// A shard keeps only its own devices' readings (docs/protocol.md, Partitions and shards).
///
/// A partition topic it subscribes to carries its devices only, when the edge's `partitions`
/// is the site's; the plain readings topic (an edge without partitions) and the dialects reach
/// every shard. So each reading is checked by its id's hash: one FNV-1a pass over the id bytes
/// already in hand, nothing allocated. Only a sharded aggregator pays for it.
extension AggregatorCore {
    /// Whether this shard owns device `id`.
    func owns(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { shard.owns(id: UnsafeRawBufferPointer($0), partitions) }
    }

    /// Leaves out of `raw` the readings of devices another shard owns. On a partition topic
    /// those are refused (`partition`: that edge hashes into another number of partitions, and
    /// two shards would each see part of a device); on the plain topic they are another
    /// shard's share, counted in `whereabouts_shard_skipped_total`.
    func keepOwnReadings(node: String, ids: UnsafeRawBufferPointer) {
        let before = raw.count, shard = shard, partitions = partitions
        raw.removeAll { r in
            guard r.idIsPlain else { return !owns(r.id(in: ids)) }
            return !shard.owns(id: r.idBytes(in: ids), partitions)
        }
        let foreign = before - raw.count
        guard foreign > 0 else { return }
        if ingest.lastPartition == nil {
            metrics.shardSkipped.add(UInt64(foreign))
        } else {
            metrics.rejected(.partition).add(UInt64(foreign))
            if loggedRefusals.insert(RefusalKey(node: node, reason: .partition)).inserted {
                log("node \(node) sent readings on partition \(ingest.lastPartition ?? 0) of devices in another shard's partitions: "
                    + "its partitions is not the site's \(partitions.count); refused (whereabouts_rejected_total{reason=\"partition\"})")
            }
        }
    }

    /// The subscriptions for the readings: every partition and the plain topic for the whole
    /// site; for a shard its own partitions' topics, and the plain topic, whose readings it
    /// filters.
    var readingsSubscriptions: [String] {
        guard !shard.isWhole else { return [topics.allNodeReadings, topics.allNodeReadings(partition: nil)] }
        return [topics.allNodeReadings] + shard.partitions(of: partitions).map { topics.allNodeReadings(partition: $0) }
    }
}
