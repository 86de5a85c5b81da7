import Wire

/// Checks what the nodes send before the engine sees it: the node named in the topic is the
/// node in the payload and is in the site; sequence gaps are counted and replayed batches
/// refused; a node whose clock is off is corrected from batch time versus arrival.
///
/// No one batch may wedge a node (docs/operations.md#which-batches-and-readings-are-refused).
/// A replay is exactly a batch the node's stream has had: the same (`seq`, `t`) as
/// one of its last `recentBatches` accepted, whatever the clock mode, so neither a batch with a
/// wild `seq` or time nor an edge restarting with its clock behind makes later batches replays.
/// A batch stamped more than `maxAhead` after its arrival (beyond the node's last trusted clock
/// error) is refused while it is alone; once `runBatches` such batches agreeing on the error have
/// come over a whole clock window, and none within the bound among them, the node's clock is
/// ahead and is corrected as any other. A lower `seq` is late, a return or a restart
/// (`Ingest+Sequence.swift`), never a gap counted twice.
///
/// Pure: no I/O and no clock; the caller passes each message's arrival time.
public struct Ingest: Sendable {
    public enum ClockMode: String, Sendable { case node, arrival }

    /// What the aggregator knows of one node's stream.
    public struct NodeStream: Sendable {
        public var lastSeq: UInt64?
        public var batches: UInt64 = 0
        public var readings: UInt64 = 0
        /// Batches that never arrived, from `seq` gaps.
        public var missedBatches: UInt64 = 0
        /// Arrival minus batch time at its least over the last `clockWindow` or two: the
        /// node's clock error plus the shortest transit.
        public var clockOffset: Double?
        public var lastArrival: Double = 0
        /// Times `seq` went back to start a new sequence (an edge restarted), or returned to the
        /// sequence left at the last one (two edges with this node's name).
        public var restarts: UInt64 = 0
        /// The time of the batch with `lastSeq`: a lower `seq` with an older time is late.
        var lastT = -Double.infinity
        /// The `seq` the stream had when it last started a new sequence.
        var leftSeq: UInt64?
        var restartWindow = (since: -Double.infinity, count: 0)
        var sharedNameWarned = false
        var clock = ClockEstimate()
        var recent = RecentBatches()
        var ahead: AheadRun?
        /// The clock error (`clockOffset`) at the node's last accepted batch, and its arrival:
        /// the bound for `clock_ahead` is measured from it, for `trustSpan` after.
        var trusted = (offset: 0.0, at: -Double.infinity)
        /// Seconds the node's latest refused batch was stamped after its arrival (`clock_ahead`).
        public var refusedAhead: Double? { ahead.map { -$0.sample } }
    }

    /// The (`seq`, `t`) of a node's last `recentBatches` accepted batches, oldest overwritten.
    /// One array per node, filled once: nothing is allocated per batch.
    struct RecentBatches: Sendable {
        private var entries: [(seq: UInt64, t: Double)] = []
        private var next = 0

        func contains(seq: UInt64, t: Double) -> Bool {
            entries.contains { $0.seq == seq && $0.t == t }
        }

        mutating func insert(seq: UInt64, t: Double) {
            if entries.count < Ingest.recentBatches {
                if entries.isEmpty { entries.reserveCapacity(Ingest.recentBatches) }
                entries.append((seq, t))
            } else {
                entries[next] = (seq, t)
            }
            next = (next + 1) % Ingest.recentBatches
        }
    }

    /// A run of a node's batches stamped too far ahead, all agreeing on how far: when it began
    /// and last had one (arrivals), its first and latest arrival minus batch time, its batches.
    struct AheadRun: Sendable {
        var since: Double, last: Double, first: Double, sample: Double, count: Int

        init(_ sample: Double, at arrival: Double) {
            (since, last, first, self.sample, count) = (arrival, arrival, sample, sample, 1)
        }
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
                // After a silence too (an outage of the broker): the first batches then are
                // the oldest of the edge's backlog, whose transit is the outage; without the
                // last estimate they would read as a clock that far behind and be moved to
                // their arrival. A clock that really changed is followed a window later.
                previous = current.isFinite ? current : previous
                current = .infinity
                since = arrival
            }
            current = min(current, sample)
            return min(current, previous)
        }
    }

    /// Seconds of arrivals per window of the clock estimate.
    public static let clockWindow = 5.0

    /// A batch stamped further than this (seconds) after its arrival, beyond the node's known
    /// clock error, is refused (`clock_ahead`; `.node` clock mode only) until such batches have
    /// come for a whole `clockWindow`. Transit and buffering only make a batch arrive later than
    /// it was stamped, so one batch from the future is a forgery or a broken edge and must not
    /// set the node's clock estimate; a whole window of them is a clock that is ahead (or the
    /// aggregator's own clock behind) and is corrected. Twice the 30 s step the estimate
    /// follows at once (`ClockRegressionTests`).
    public static let maxAhead = 60.0

    /// Seconds a node's last trusted clock error bounds `clock_ahead` after its last accepted
    /// batch: a node sending once a minute, or silent for a while, keeps its correction.
    public static let trustSpan = 600.0

    /// A run ahead is trusted once it has this many batches over at least `clockWindow` of
    /// arrivals, gaps between them up to `trustSpan`, their clock errors agreeing within
    /// `runAgreement` seconds: an edge may send once a minute, and a clock steadily ahead
    /// agrees with itself where forged batches need to.
    public static let runBatches = 3
    public static let runAgreement = 5.0

    /// Accepted batches per node remembered to recognise a replay: 16 s of an edge's batches at
    /// 4 a second, more than a broker's redelivery after a reconnect reaches back.
    public static let recentBatches = 64

    /// A `seq` further than this ahead of the node's last one starts a new sequence rather than
    /// counting a gap of that many lost batches (a day of an edge's batches is 345,600; an
    /// aggregator that was away that long starts with no stream to compare with).
    public static let sequenceWindow: UInt64 = 100_000

    public let topics: Topics
    public let clockMode: ClockMode
    /// Offsets smaller than this are transit, not a wrong clock, and are left alone.
    public let clockTolerance: Double
    private let knownNodes: Set<String>
    /// Each node's plain stream (`<p>/nodes/<node>/readings`).
    public private(set) var nodes: [String: NodeStream] = [:]
    /// Each node's partition streams (`…/readings/<k>`, docs/protocol.md, Partitions and
    /// shards), by node then partition: each has its own `seq`, so each is a stream of its own.
    public private(set) var partitions: [String: [Int: NodeStream]] = [:]
    /// The partition of the last batch admitted or refused (nil: the plain topic), for the log line.
    public private(set) var lastPartition: Int?
    /// The last batch refused for its node, clock or seq (not for its bytes): for the log line.
    public private(set) var refused: BatchHeader?
    /// Set by the accepted batch that made it so, nil after any other: for the log line.
    public private(set) var notice: StreamNotice?

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
        return accept(topicNode: topicNode, partition: lastPartition, decoded: decoded, readings: &readings, arrival: arrival, badReadings: &badReadings)
    }

    /// As above for a batch decoded already (`Batch.decodeRaw`, on another thread): `readings`
    /// are its readings, left out and re-timed here as a batch's are.
    public mutating func accept(topic: String, decoded: Result<BatchHeader, PayloadError>, readings: inout [BatchReading],
                                arrival: Double, badReadings: inout Int) -> Result<BatchHeader, PayloadError> {
        guard let topicNode = readingsNode(topic) else {
            readings.removeAll(keepingCapacity: true)
            return .failure(PayloadError(.malformed, "not a readings topic: \(topic)"))
        }
        return accept(topicNode: topicNode, partition: lastPartition, decoded: decoded, readings: &readings, arrival: arrival, badReadings: &badReadings)
    }

    /// As above for a batch from `<p>/nodes/<topicNode>/readings` (or its partition `partition`'s
    /// topic), a topic the caller parsed already, so that it is not parsed twice.
    public mutating func accept(topicNode: String, partition: Int? = nil, decoded: Result<BatchHeader, PayloadError>, readings: inout [BatchReading],
                                arrival: Double, badReadings: inout Int) -> Result<BatchHeader, PayloadError> {
        lastPartition = partition
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

    /// The node of a readings topic, plain or a partition's (then `lastPartition`).
    private mutating func readingsNode(_ topic: String) -> String? {
        lastPartition = nil
        guard let (node, partition) = topics.parseReadingsTopic(topic) else { return nil }
        lastPartition = partition
        return node
    }

    /// Runs `body` on the stream the last batch came in (`lastPartition`), made if new, in place.
    private mutating func withStream<R>(_ node: String, _ body: (inout NodeStream) -> R) -> R {
        if let k = lastPartition { return body(&partitions[node, default: [:]][k, default: NodeStream()]) }
        return body(&nodes[node, default: NodeStream()])
    }

    /// Why a decoded batch is refused (node, clock, replay), or nil. The reasons carry fixed
    /// texts: a refused batch costs no string (the aggregator logs the first of each itself).
    private mutating func admit(_ batch: BatchHeader, topicNode: String, arrival: Double) -> PayloadError? {
        refused = batch
        notice = nil
        guard batch.node == topicNode else { return PayloadError(.nodeMismatch, "the topic names another node than the payload") }
        guard knownNodes.contains(batch.node) else { return PayloadError(.unknownNode, "a node the site file does not name") }
        // A replay first: a copy of a batch accepted already must not end or restart a run ahead.
        if let stream = stream(node: batch.node, partition: lastPartition), stream.recent.contains(seq: batch.seq, t: batch.t) {
            return PayloadError(.replayed, "a batch accepted already (the same seq and t)")
        }
        if clockMode == .node, !withStream(batch.node, { $0.admitsTime(arrival - batch.t, at: arrival) }) {
            return PayloadError(.clockAhead, "a batch stamped more than 60 s after its arrival")
        }
        return nil
    }

    /// Counts an accepted batch in its node's stream and corrects `batch.t` onto the
    /// aggregator's clock; returns the shift its readings' times take as well.
    /// A reading is taken before the batch that carries it is sent: the caller has left out
    /// readings stamped later than `batch.t + clockTolerance` (they would carry event time
    /// past every other node's readings, which would then be late).
    private mutating func record(_ batch: inout BatchHeader, readings: Int, arrival: Double) -> Double {
        // In place: a copy of the stream would copy its ring of recent batches.
        var notice: StreamNotice?
        let (mode, tolerance) = (clockMode, clockTolerance)
        let shift = withStream(batch.node) {
            $0.record(batch, readings: readings, arrival: arrival, mode: mode, tolerance: tolerance, notice: &notice)
        }
        self.notice = notice
        batch.t += shift
        return shift
    }
}

extension Ingest.NodeStream {
    /// Whether a batch whose arrival minus batch time is `sample` has a plausible time: not more
    /// than `maxAhead` ahead of the node's last trusted clock error, or ahead in a run of such
    /// batches that agree and has lasted a whole clock window (then the node's clock is ahead:
    /// trusted and corrected). A batch within the bound ends the run: the ones ahead were isolated.
    mutating func admitsTime(_ sample: Double, at arrival: Double) -> Bool {
        let known = arrival - trusted.at <= Ingest.trustSpan ? min(0, trusted.offset) : 0
        // Written so that a time that is no number is refused too.
        if sample >= known - Ingest.maxAhead {
            ahead = nil
            return true
        }
        guard sample.isFinite else { return false }
        var run = Ingest.AheadRun(sample, at: arrival)
        if let previous = ahead, arrival - previous.last <= Ingest.trustSpan, abs(sample - previous.first) <= Ingest.runAgreement {
            run = previous
            run.count += 1
        }
        run.last = arrival
        run.sample = sample
        guard run.count >= Ingest.runBatches, arrival - run.since >= Ingest.clockWindow else {
            ahead = run
            return false
        }
        ahead = nil
        return true
    }

    /// Counts an accepted batch; returns the shift onto the aggregator's clock: the node's
    /// estimated clock error when that is larger than transit, or to arrival in `.arrival` mode.
    mutating func record(_ batch: BatchHeader, readings: Int, arrival: Double, mode: Ingest.ClockMode, tolerance: Double,
                         notice: inout Ingest.StreamNotice?) -> Double {
        notice = sequence(batch, arrival: arrival)
        recent.insert(seq: batch.seq, t: batch.t)
        batches += 1
        self.readings += UInt64(readings)
        lastArrival = arrival
        let sample = arrival - batch.t
        let offset = clock.add(sample, at: arrival, window: Ingest.clockWindow)
        clockOffset = offset
        trusted = (offset, arrival)
        switch mode {
        case .arrival: return sample
        case .node: return abs(offset) > tolerance ? offset : 0
        }
    }
}
