import Wire

/// Checks what the nodes send before the engine sees it: the node named in the topic is the
/// node in the payload and is in the site; sequence gaps are counted and replayed batches
/// refused; a node whose clock is off is corrected from batch time versus arrival.
///
/// No one batch may wedge a node (docs/operations.md §12 "Which batches and readings are
/// refused"): a batch stamped more than `maxAhead` after its arrival is refused before it
/// touches the node's stream, so it can neither set the node's clock estimate far ahead nor leave a
/// `lastBatchTime` that later batches must pass; and a `seq` more than `sequenceWindow` from
/// the last one starts a new sequence (an edge restarted, or a bad `seq`) rather than being a
/// replay or a gap of that many batches. What replay protection is for stays: a batch the
/// broker delivers again (QoS 1 redelivery, a queued or retained copy) has a `seq` at or
/// shortly behind the last one and a time not newer than the last one's.
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
        /// Arrival minus batch time at its least over the last `clockWindow` or two: the
        /// node's clock error plus the shortest transit.
        public var clockOffset: Double?
        public var lastArrival: Double = 0
        var clock = ClockEstimate()
    }

    /// The least of arrival minus batch time over two windows of arrivals. Transit only adds
    /// to that difference, so the least is the best view of the node's clock: batches held up
    /// by a broker outage do not move it, a clock that steps forward is followed at once,
    /// one that steps back within two windows. (A smoothed mean did neither: one NTP step of
    /// 30 s shifted the node's next readings 27 s into the future, and every other node's
    /// readings were then refused as late until real time caught up.)
    struct ClockEstimate: Sendable {
        private var current = Double.infinity, previous = Double.infinity, since = -Double.infinity

        mutating func add(_ sample: Double, at arrival: Double, window: Double) -> Double {
            if arrival - since >= window {
                previous = arrival - since >= 2 * window ? .infinity : current
                current = .infinity
                since = arrival
            }
            current = min(current, sample)
            return min(current, previous)
        }
    }

    /// Seconds of arrivals per window of the clock estimate.
    public static let clockWindow = 5.0

    /// A batch stamped further than this (seconds) after its arrival is refused (`clock_ahead`;
    /// `.node` clock mode only). Transit and buffering only make a batch arrive later than it
    /// was stamped, so a batch from the future is a node clock that is wrong by more than the
    /// estimate should follow, or a forged batch. Twice the 30 s step the clock estimate is
    /// tested to follow at once (`ClockRegressionTests`); an hour ahead, a time zone stamped as
    /// UTC, is refused and counted rather than trusted.
    public static let maxAhead = 60.0

    /// A `seq` further than this from the node's last one starts a new sequence: neither a
    /// replay (a broker redelivers or queues recent batches, never 100,000 behind) nor a gap of
    /// that many lost batches (a day of an edge's batches is 345,600; an aggregator that was
    /// away that long starts with no stream to compare with).
    public static let sequenceWindow: UInt64 = 100_000

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
        guard let topicNode = readingsNode(topic) else { return .failure(PayloadError(.malformed, "not a readings topic: \(topic)")) }
        var batch: Batch
        do { batch = try Batch.decode(payload, badReadings: &badReadings) } catch { return .failure(error) }
        var header = BatchHeader(node: batch.node, seq: batch.seq, t: batch.t)
        if let refused = admit(header, topicNode: topicNode, arrival: arrival) { return .failure(refused) }
        let count = batch.readings.count
        batch.readings.removeAll { $0.t > batch.t + clockTolerance }
        badReadings += count - batch.readings.count
        let shift = record(&header, readings: batch.readings.count, arrival: arrival)
        if shift != 0 {
            for i in batch.readings.indices { batch.readings[i].t += shift }
            batch.t = header.t
        }
        return .success(batch)
    }

    /// As `accept(topic:payload:arrival:badReadings:)`, decoding into `readings` (emptied
    /// first, reused): the aggregator's path, with no allocation per reading.
    public mutating func accept(topic: String, payload: UnsafeRawBufferPointer, arrival: Double,
                                into readings: inout [BatchReading], badReadings: inout Int) -> Result<BatchHeader, PayloadError> {
        readings.removeAll(keepingCapacity: true)
        guard let topicNode = readingsNode(topic) else { return .failure(PayloadError(.malformed, "not a readings topic: \(topic)")) }
        let decoded = Result { () throws(PayloadError) -> BatchHeader in
            try Batch.decodeRaw(payload, into: &readings, badReadings: &badReadings)
        }
        return accept(topicNode: topicNode, decoded: decoded, readings: &readings, arrival: arrival, badReadings: &badReadings)
    }

    /// As above for a batch decoded already (`Batch.decodeRaw`, on another thread): `readings`
    /// are its readings, left out and re-timed here as a batch's are.
    public mutating func accept(topic: String, decoded: Result<BatchHeader, PayloadError>, readings: inout [BatchReading],
                                arrival: Double, badReadings: inout Int) -> Result<BatchHeader, PayloadError> {
        guard let topicNode = readingsNode(topic) else {
            readings.removeAll(keepingCapacity: true)
            return .failure(PayloadError(.malformed, "not a readings topic: \(topic)"))
        }
        return accept(topicNode: topicNode, decoded: decoded, readings: &readings, arrival: arrival, badReadings: &badReadings)
    }

    /// As above for a batch from `<p>/nodes/<topicNode>/readings`, a topic the caller parsed
    /// already, so that it is not parsed twice.
    public mutating func accept(topicNode: String, decoded: Result<BatchHeader, PayloadError>, readings: inout [BatchReading],
                                arrival: Double, badReadings: inout Int) -> Result<BatchHeader, PayloadError> {
        var header: BatchHeader
        switch decoded {
        case .success(let h): header = h
        case .failure(let error):
            readings.removeAll(keepingCapacity: true)
            return .failure(error)
        }
        if let refused = admit(header, topicNode: topicNode, arrival: arrival) {
            readings.removeAll(keepingCapacity: true)
            return .failure(refused)
        }
        let count = readings.count, limit = header.t + clockTolerance
        // Most batches have no reading to leave out: looking is cheaper than removing none.
        if readings.contains(where: { $0.t > limit }) { readings.removeAll { $0.t > limit } }
        badReadings += count - readings.count
        let shift = record(&header, readings: readings.count, arrival: arrival)
        if shift != 0 { for i in readings.indices { readings[i].t += shift } }
        return .success(header)
    }

    private func readingsNode(_ topic: String) -> String? {
        guard let (node, leaf) = topics.parseNodeTopic(topic), leaf == "readings" else { return nil }
        return node
    }

    /// Why a decoded batch is refused (node, clock, replay), or nil.
    private func admit(_ batch: BatchHeader, topicNode: String, arrival: Double) -> PayloadError? {
        guard batch.node == topicNode else {
            return PayloadError(.nodeMismatch, "topic names \(topicNode), payload names \(batch.node)")
        }
        guard knownNodes.contains(batch.node) else {
            return PayloadError(.unknownNode, "node \(batch.node) is not in the site file")
        }
        // Written so that a time that is no number is refused too.
        if clockMode == .node, !(batch.t - arrival <= Self.maxAhead) {
            return PayloadError(.clockAhead, "batch time \(batch.t) from \(batch.node) is more than \(Self.maxAhead) s after its arrival \(arrival)")
        }
        if let stream = nodes[batch.node], let last = stream.lastSeq, batch.seq <= last, last - batch.seq < Self.sequenceWindow,
           batch.t <= stream.lastBatchTime {
            // A lower seq with a newer time is a node that restarted; an older time is a replay.
            return PayloadError(.replayed, "seq \(batch.seq) after \(last) from \(batch.node)")
        }
        return nil
    }

    /// Counts an accepted batch in its node's stream and corrects `batch.t` onto the
    /// aggregator's clock; returns the shift its readings' times take as well.
    /// A reading is taken before the batch that carries it is sent: the caller has left out
    /// readings stamped later than `batch.t + clockTolerance` (they would carry event time
    /// past every other node's readings, which would then be late).
    private mutating func record(_ batch: inout BatchHeader, readings: Int, arrival: Double) -> Double {
        var stream = nodes[batch.node] ?? NodeStream()
        // A jump beyond the window is a new sequence, not that many batches lost.
        if let last = stream.lastSeq, batch.seq > last, batch.seq - last <= Self.sequenceWindow { stream.missedBatches += batch.seq - last - 1 }
        stream.lastSeq = batch.seq
        stream.lastBatchTime = batch.t
        stream.batches += 1
        stream.readings += UInt64(readings)
        stream.lastArrival = arrival
        let shift = clockShift(batchTime: batch.t, stream: &stream, arrival: arrival)
        batch.t += shift
        nodes[batch.node] = stream
        return shift
    }

    /// The shift onto the aggregator's clock: the node's estimated clock error when that is
    /// larger than transit, or to arrival in `.arrival` mode.
    private func clockShift(batchTime: Double, stream: inout NodeStream, arrival: Double) -> Double {
        let sample = arrival - batchTime
        let offset = stream.clock.add(sample, at: arrival, window: Self.clockWindow)
        stream.clockOffset = offset
        switch clockMode {
        case .arrival: return sample
        case .node: return abs(offset) > clockTolerance ? offset : 0
        }
    }
}
