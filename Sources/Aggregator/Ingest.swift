import Wire

/// Checks what the nodes send before the engine sees it: the node named in the topic is the
/// node in the payload and is in the site; sequence gaps are counted and replayed batches
/// refused; a node whose clock is off is corrected from batch time versus arrival.
///
/// Pure: no I/O and no clock; the caller passes each message's arrival time.
public struct Ingest: Sendable {
    public enum ClockMode: String, Sendable { case node, arrival }

    /// What the aggregator knows of one node's stream.
    public struct NodeStream: Sendable {
        public var lastSeq: UInt64?
        public var lastBatchTime: Double = 0
        public var batches: UInt64 = 0
        public var readings: UInt64 = 0
        /// Batches that never arrived, from `seq` gaps.
        public var missedBatches: UInt64 = 0
        /// Arrival minus batch time, smoothed: the node's clock error plus transit.
        public var clockOffset: Double?
        public var lastArrival: Double = 0
    }

    public let topics: Topics
    public let clockMode: ClockMode
    /// Offsets smaller than this are transit, not a wrong clock, and are left alone.
    public let clockTolerance: Double
    private let knownNodes: Set<String>
    public private(set) var nodes: [String: NodeStream] = [:]

    public init(topics: Topics, knownNodes: some Sequence<String>, clockMode: ClockMode = .node, clockTolerance: Double = 1.0) {
        self.topics = topics
        self.knownNodes = Set(knownNodes)
        self.clockMode = clockMode
        self.clockTolerance = clockTolerance
    }

    /// Accepts a batch from `<p>/nodes/<node>/readings`; returns its readings with times
    /// corrected, or the reason it was refused. Single bad readings are left out and added
    /// to `badReadings`.
    public mutating func accept(topic: String, payload: UnsafeRawBufferPointer, arrival: Double,
                                badReadings: inout Int) -> Result<Batch, PayloadError> {
        guard let (topicNode, leaf) = topics.parseNodeTopic(topic), leaf == "readings" else {
            return .failure(PayloadError(.malformed, "not a readings topic: \(topic)"))
        }
        var batch: Batch
        do { batch = try Batch.decode(payload, badReadings: &badReadings) } catch { return .failure(error) }
        guard batch.node == topicNode else {
            return .failure(PayloadError(.nodeMismatch, "topic names \(topicNode), payload names \(batch.node)"))
        }
        guard knownNodes.contains(batch.node) else {
            return .failure(PayloadError(.unknownNode, "node \(batch.node) is not in the site file"))
        }
        var stream = nodes[batch.node] ?? NodeStream()
        if let last = stream.lastSeq {
            if batch.seq <= last {
                // A lower seq with a newer time is a node that restarted; an older time is a replay.
                guard batch.t > stream.lastBatchTime else {
                    return .failure(PayloadError(.replayed, "seq \(batch.seq) after \(last) from \(batch.node)"))
                }
            } else if batch.seq > last + 1 {
                stream.missedBatches += batch.seq - last - 1
            }
        }
        stream.lastSeq = batch.seq
        stream.lastBatchTime = batch.t
        stream.batches += 1
        stream.readings += UInt64(batch.readings.count)
        stream.lastArrival = arrival
        let sample = arrival - batch.t
        let offset = stream.clockOffset.map { $0 + 0.1 * (sample - $0) } ?? sample
        stream.clockOffset = offset
        nodes[batch.node] = stream
        let shift: Double
        switch clockMode {
        case .arrival: shift = sample
        case .node: shift = abs(offset) > clockTolerance ? offset : 0
        }
        if shift != 0 {
            for i in batch.readings.indices { batch.readings[i].t += shift }
            batch.t += shift
        }
        return .success(batch)
    }
}
