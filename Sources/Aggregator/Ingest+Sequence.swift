import Wire

extension Ingest {
    /// More restarts than this within a minute of arrivals are not an edge rebooting but two
    /// edges publishing under one node name, each making the other's `seq` go back.
    public static let restartsPerMinute = 3

    /// Something about a node's sequence worth one log line (the aggregator logs it).
    public enum StreamNotice: Sendable, Equatable {
        /// The node's first restart: `seq` went back from `from` to `to`.
        case restarted(from: UInt64, to: UInt64)
        /// More than `restartsPerMinute` restarts in a minute, once per node.
        case sharedName(restarts: Int)
    }
}

extension Ingest.NodeStream {
    /// Places an accepted batch in the node's sequence: a gap counts missed batches; a lower
    /// `seq` with an older time within `recentBatches` is a late batch filling a gap counted
    /// before; any other lower `seq` starts a new sequence (an edge restarted), as does a jump
    /// beyond `sequenceWindow`; a `seq` just after the one left at the last restart returns to
    /// that sequence (two edges share the node's name) and counts its gap from there.
    mutating func sequence(_ batch: BatchHeader, arrival: Double) -> Ingest.StreamNotice? {
        let window = UInt64(Ingest.recentBatches)
        guard let last = lastSeq else { return follow(batch) }
        if batch.seq > last, batch.seq - last <= window { return follow(batch, gap: batch.seq - last - 1) }
        if let left = leftSeq, batch.seq > left, batch.seq - left <= window {
            return restart(batch, arrival: arrival, gap: batch.seq - left - 1)
        }
        if batch.seq >= last {
            let ahead = batch.seq - last
            return follow(batch, gap: ahead == 0 || ahead > Ingest.sequenceWindow ? 0 : ahead - 1)
        }
        if last - batch.seq <= window, batch.t < lastT {
            if missedBatches > 0 { missedBatches -= 1 }
            return nil
        }
        return restart(batch, arrival: arrival, gap: 0)
    }

    private mutating func follow(_ batch: BatchHeader, gap: UInt64 = 0) -> Ingest.StreamNotice? {
        missedBatches += gap
        lastSeq = batch.seq
        lastT = batch.t
        return nil
    }

    /// A new sequence from `batch`; the one left is remembered to recognise a return to it.
    private mutating func restart(_ batch: BatchHeader, arrival: Double, gap: UInt64) -> Ingest.StreamNotice? {
        let from = lastSeq ?? 0
        leftSeq = lastSeq
        _ = follow(batch, gap: gap)
        restarts += 1
        if arrival - restartWindow.since > 60 { restartWindow = (arrival, 0) }
        restartWindow.count += 1
        if restartWindow.count > Ingest.restartsPerMinute, !sharedNameWarned {
            sharedNameWarned = true
            return .sharedName(restarts: restartWindow.count)
        }
        return restarts == 1 ? .restarted(from: from, to: batch.seq) : nil
    }
}
