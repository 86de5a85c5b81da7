import Metrics
import MQTT
import Positioning
import Storage
import Wire
import SiteModel

/// The aggregator without I/O: MQTT messages and ticks in, effects out.
///
/// Owned by one thread. Event time comes from the readings (through `Ingest` and the
/// engine); the wall clock only moves event time forward between readings, so devices
/// still go away when every node falls silent.
final class AggregatorCore {
    let site: Site
    let topics: Topics
    let engine: Engine
    var ingest: Ingest
    let dialects: [Dialect]
    /// This aggregator's share of the site's partitions (`--shard I/N`; the whole site by default).
    let shard: Shard
    let partitions: Partitioning
    let metrics: AggregatorMetrics
    var publisher: Publisher
    var occupancy: Occupancy
    /// Holds back occupancy that would drop an occupant the broker holds until the engine has
    /// placed its devices again after a start (`OccupancyWarmUp`).
    var warmUp: OccupancyWarmUp
    private var outputs: [EngineOutput] = []
    private var forgotten: [String] = []
    /// The engine's solve and hold counts already added to the metrics.
    private var counted = (solves: 0, holds: 0, beacons: 0)
    /// Zones whose occupants changed in the message being handled: the index in `effects` of
    /// the last event that changed each.
    private var changedZones: [String: Int] = [:]
    /// Site nodes' readings topics, by topic, and the node each names, so that a batch's topic
    /// is not parsed again on the work queue. Only a site node's own spelling of its topic
    /// (`Topics.nodeReadings`) is kept: a node's name can be spelt in many `%XX` escapes, each
    /// naming the same node, and anyone publishing those could otherwise grow the cache
    /// without end. Other topics are parsed every time, so the cache is as big as the site.
    private var readingsTopics: [String: (node: String, partition: Int?)] = [:]
    /// Topics cached (tests: the cache stays as big as the site).
    var cachedReadingsTopics: Int { readingsTopics.count }
    /// The readings of the batch being handled (reused).
    var raw: [BatchReading] = []
    private var messages: [MQTTMessage] = []
    /// Latest state of every device, for `/api/devices`.
    private(set) var states: [String: DeviceUpdate] = [:]
    var nodesOnline: Set<String> = []
    /// The newest event time seen and the wall time it was seen at.
    var eventClock: (event: Double, wall: Double)?
    /// Where refusals are logged (`AggregatorCore+Refusals`), and those logged already.
    let log: (String) -> Void
    var loggedRefusals: Set<RefusalKey> = []
    /// Each site node's `whereabouts_node_clock_offset_seconds`, looked up once (a family's
    /// lookup allocates its labels).
    var clockGauges: [String: Gauge] = [:]
    /// Broker outages and their backfill passes (`AggregatorCore+Backfill`).
    var backfill: BackfillState

    init(site: Site, topics: Topics, locator: LocatorKind, dialects: [Dialect], clockMode: Ingest.ClockMode, metrics: AggregatorMetrics,
         shard: Shard = .whole, log: @escaping (String) -> Void = AggregatorCore.standardError) {
        self.site = site
        self.shard = shard
        self.partitions = Partitioning(count: site.partitions) ?? .single
        self.log = log
        self.topics = topics
        // A held fix says nothing new (same place, room and zones as the state already
        // published and retained): publishing it would only load the broker and subscribers,
        // so the engine need not make it.
        var options = EngineOptions()
        options.reportsHeldFixes = false
        self.engine = Engine(site: site, locator: locator, options: options)
        self.ingest = Ingest(topics: topics, knownNodes: site.nodes.map(\.name), clockMode: clockMode)
        self.dialects = dialects
        self.metrics = metrics
        // A shard's occupancy is its share only, under `<p>/shards/<I>`; shard 0 publishes the
        // site's sum (`SiteOccupancy`).
        self.publisher = Publisher(site: site, topics: topics, occupancyTopics: shard.isWhole ? topics : topics.shard(shard.index))
        self.occupancy = Occupancy(zones: Publisher.zoneIds(of: site), rooms: site.floors.flatMap { $0.rooms.map(\.id) })
        self.warmUp = OccupancyWarmUp(rooms: Set(site.floors.flatMap { $0.rooms.map(\.id) }))
        self.backfill = BackfillState(nodes: site.nodes.count, horizon: site.positioning.backfillHorizon,
                                      registry: metrics.registry)
    }

    /// Handles one message; `arrival` is the wall time it arrived. `prepared` is a readings
    /// batch decoded already on the network thread (its `payload` is then not read).
    func handle(topic: String, payload: UnsafeRawBufferPointer, prepared: PreparedBatch? = nil, arrival: Double,
                into effects: inout [Effect]) {
        route(topic: topic, payload: payload, prepared: prepared, arrival: arrival, into: &effects)
        publishOccupancy(into: &effects)
    }

    private func route(topic: String, payload: UnsafeRawBufferPointer, prepared: PreparedBatch?, arrival: Double,
                       into effects: inout [Effect]) {
        if let prepared, let (node, partition) = readingsTopics[topic] {
            return readings(node: node, partition: partition, prepared: prepared, arrival: arrival, into: &effects)
        }
        if let (node, partition) = topics.parseReadingsTopic(topic) {
            // A partition the site does not have (an edge with another `partitions`): refused
            // before a sequence stream is made for it, so topics cannot grow memory without end.
            if let partition, partition >= partitions.count { return reject(.partition) }
            if engine.index(ofNode: node) != nil, topic == topics.nodeReadings(node, partition: partition) { readingsTopics[topic] = (node, partition) }
            if let prepared {
                readings(node: node, partition: partition, prepared: prepared, arrival: arrival, into: &effects)
            } else {
                readings(node: node, topic: topic, payload: payload, arrival: arrival, into: &effects)
            }
            return
        }
        if let (node, leaf) = topics.parseNodeTopic(topic) {
            switch leaf {
            // A node the site does not name gets no status and no metric label: anyone on the
            // broker could otherwise add `whereabouts_node_up` series without end.
            case "status" where engine.index(ofNode: node) == nil, "telemetry" where engine.index(ofNode: node) == nil:
                reject(RejectReason.unknownNode)
            case "status": status(node: node, payload: payload, arrival: arrival, into: &effects)
            case "telemetry": telemetry(node: node, payload: payload, arrival: arrival, into: &effects)
            default: reject(.malformed)
            }
            return
        }
        for dialect in dialects {
            guard let (node, reading) = try? dialect.reading(topic: topic, payload: payload, arrival: arrival) else { continue }
            // Every shard hears the dialects: each keeps its own devices' readings.
            guard shard.isWhole || owns(reading.id) else { return metrics.shardSkipped.add() }
            accept(node: node, readings: CollectionOfOne(reading), arrival: arrival, into: &effects)
            return
        }
        reject(.malformed)
    }

    /// Moves event time with the wall clock (for away detection) and publishes what follows.
    func tick(wall: Double, into effects: inout [Effect]) {
        backfillIfDue(wall: wall, into: &effects)
        guard let clock = eventClock else { return }
        advance(to: clock.event + max(0, wall - clock.wall), into: &effects)
        publishOccupancy(into: &effects)
    }

    /// A clean shutdown: every open visit gets its exit event. Rooms, states and each zone's
    /// retained occupancy are left as they were: the devices were still being heard, and an
    /// empty room or an `away` published at a stop reads as everyone leaving, to be undone at
    /// the next start (docs/operations.md, Home Assistant).
    func shutdown(wall: Double, into effects: inout [Effect]) {
        backfillBeforeShutdown(into: &effects)
        let t = eventClock.map { $0.event + max(0, wall - $0.wall) } ?? wall
        for e in engine.shutdown(at: t) { emit(e, into: &effects) }
        changedZones.removeAll(keepingCapacity: true)
    }

    /// A batch decoded on the network thread: its ids are in `prepared.ids`, not the payload.
    /// `node`: the node its topic names.
    private func readings(node: String, partition: Int?, prepared: PreparedBatch, arrival: Double, into effects: inout [Effect]) {
        var bad = prepared.badReadings
        raw.removeAll(keepingCapacity: true)
        raw.append(contentsOf: prepared.readings)
        let result = ingest.accept(topicNode: node, partition: partition, decoded: prepared.decoded, readings: &raw, arrival: arrival, badReadings: &bad)
        prepared.ids.withUnsafeBytes { ids in
            accepted(result, node: node, bad: bad, ids: ids, hashed: true, arrival: arrival, into: &effects)
        }
    }

    private func readings(node: String, topic: String, payload: UnsafeRawBufferPointer, arrival: Double, into effects: inout [Effect]) {
        var bad = 0
        let result = ingest.accept(topic: topic, payload: payload, arrival: arrival, into: &raw, badReadings: &bad)
        accepted(result, node: node, bad: bad, ids: payload, hashed: false, arrival: arrival, into: &effects)
    }

    /// `node`: the node the batch's topic names; `ids`: the bytes the readings' id ranges point
    /// into (the payload, or `PreparedBatch.ids`); `hashed`: the readings carry the engine's id
    /// hash (`PreparedBatch`).
    private func accepted(_ result: Result<BatchHeader, PayloadError>, node: String, bad: Int, ids: UnsafeRawBufferPointer, hashed: Bool, arrival: Double,
                          into effects: inout [Effect]) {
        if bad > 0 { metrics.rejected(.badReading).add(UInt64(bad)) }
        switch result {
        case .success(let batch):
            metrics.batches.add()
            accept(node: batch.node, ids: ids, hashed: hashed, arrival: arrival, into: &effects)
            let missed = ingest.lastPartition == nil ? ingest.nodes[batch.node]?.missedBatches ?? 0 : ingest.missedBatches(of: batch.node)
            let counter = metrics.missedBatches(batch.node)
            if missed > counter.current { counter.add(missed - counter.current) }
            observeClock(node: batch.node)
        case .failure(let error):
            refused(error, node: node)
        }
    }

    /// The readings of `raw` into the engine, ids straight from their bytes in `payload`.
    private func accept(node: String, ids payload: UnsafeRawBufferPointer, hashed: Bool, arrival: Double, into effects: inout [Effect]) {
        guard let n = engine.index(ofNode: node) else { return reject(RejectReason.unknownNode) }
        if !shard.isWhole { keepOwnReadings(node: node, ids: payload) }
        divertToBackfill(node: n, ids: payload, arrival: arrival)
        let (accepted, newest) = engine.ingest(nodeIndex: n, batch: raw, ids: payload, hashed: hashed) { reject($0) }
        finish(node: node, accepted: UInt64(accepted), newest: newest, arrival: arrival, into: &effects)
        backfillIfDue(wall: arrival, into: &effects)
    }

    private func accept<C: Collection>(node: String, readings: C, arrival: Double, into effects: inout [Effect]) where C.Element == Reading {
        guard let n = engine.index(ofNode: node) else { return reject(RejectReason.unknownNode) }
        var accepted: UInt64 = 0
        var newest = -Double.infinity
        for r in readings {
            if engine.ingest(nodeIndex: n, reading: r) {
                accepted += 1
                newest = max(newest, r.t)
            } else if let why = engine.lastRejection {
                reject(why)
            }
        }
        finish(node: node, accepted: accepted, newest: newest, arrival: arrival, into: &effects)
    }

    private func finish(node: String, accepted: UInt64, newest: Double, arrival: Double, into effects: inout [Effect]) {
        metrics.readings(node).add(accepted)
        guard accepted > 0 else { return }
        if newest > (eventClock?.event ?? -.infinity) { eventClock = (newest, arrival) }
        advance(to: newest, into: &effects)
    }

    /// Solves per message or tick at most: after a pause in arrivals (a stalled network
    /// thread, a quiet broker) every device due in the pause is due at once, and one message
    /// solved thousands (100 ms). The rest is caught up in steps of this size between
    /// messages (`catchUp`), as ticks solve between messages.
    static let solvesPerStep = 128

    /// Devices are due and unsolved: call `catchUp` (after the messages already waiting).
    var needsCatchUp: Bool { engine.hasDueDevices }

    /// Solves the next step of devices left due.
    func catchUp(into effects: inout [Effect]) {
        advance(to: engine.watermark, into: &effects)
        publishOccupancy(into: &effects)
    }

    func advance(to t: Double, into effects: inout [Effect]) {
        // While the broker is away or its backlog is gathered, event time stands (`AggregatorCore+Backfill`).
        guard !backfill.holdsLive else { return }
        outputs.removeAll(keepingCapacity: true)
        engine.advance(to: t, maxSolves: Self.solvesPerStep, into: &outputs)
        countEngineWork()
        applyOutputs(into: &effects)
        dropForgotten(into: &effects)
    }

    /// The engine's `outputs` as effects, in the engine's order.
    private func applyOutputs(into effects: inout [Effect]) {
        for output in outputs {
            switch output {
            case .update(let u): apply(update: u, into: &effects)
            case .event(let e): emit(e, into: &effects)
            }
        }
    }

    /// Adds the engine's solves, holds and node beacon readings since the last call to the metrics.
    private func countEngineWork() {
        if engine.solves != counted.solves { metrics.solved.add(UInt64(engine.solves - counted.solves)); counted.solves = engine.solves }
        if engine.holds != counted.holds { metrics.held.add(UInt64(engine.holds - counted.holds)); counted.holds = engine.holds }
        let beacons = engine.beaconLinks.total
        if beacons != counted.beacons { metrics.beaconReadings.add(UInt64(beacons - counted.beacons)); counted.beacons = beacons }
    }

    /// A device's update: kept for `/api/devices`, its room and state messages, its track point
    /// (`backfilled`: the last of a backfill pass, whose track point is stored already).
    func apply(update u: DeviceUpdate, backfilled: Bool = false, into effects: inout [Effect]) {
        let before = states.updateValue(u, forKey: u.id)
        if before == nil { metrics.devicesTracked.set(Double(states.count)) }
        occupancy.expect(from: before?.rooms ?? RoomShares(), to: u.rooms)
        messages.removeAll(keepingCapacity: true)
        // The state deadband (`StatePolicy`) decides the state message only: the track,
        // the metrics and `/api/devices` take every update. After a start, a device the broker
        // holds in another room waits (`OccupancyWarmUp`).
        let held = warmUp.warming && warmUp.holds(u.id, room: u.room ?? "away")
        let outcome = held ? .unplaced : publisher.update(u, into: &messages)
        switch outcome {
        case .published: metrics.statesPublished.add()
        case .suppressed: metrics.statesSuppressed.add()
        case .unplaced: break
        }
        // The state message comes last. Under broker lag it may be dropped, unless a
        // room change or `away` comes with it: a device going away makes no later
        // update that would replace it, and neither is ever dropped.
        let sheddable = outcome == .published && messages.count == 1 && u.room != nil
        for m in messages { effects.append(sheddable ? .state(m, device: u.id) : .publish(m)) }
        if u.room != nil, !backfilled { effects.append(.track(u)) }
        metrics.observe(u)
    }

    /// Devices the engine forgot (away, silent for long): their state and topics go too.
    /// Only ids that were ever placed have any: the engine also forgets excluded ids and node
    /// beacons at every sweep (they never count as heard), and each of those would otherwise
    /// cost the writer a locked forget every second.
    private func dropForgotten(into effects: inout [Effect]) {
        engine.takeForgotten(into: &forgotten)
        guard !forgotten.isEmpty else { return }
        for id in forgotten {
            guard let last = states.removeValue(forKey: id) else { continue }
            occupancy.expect(from: last.rooms, to: RoomShares())
            publisher.forget(id)
            effects.append(.forget(id))
        }
        forgotten.removeAll(keepingCapacity: true)
        metrics.devicesTracked.set(Double(states.count))
    }

    /// `late`: solved by a backfill pass, stored marked and published with `"late": true`.
    func emit(_ e: ZoneEvent, late: Bool = false, into effects: inout [Effect]) {
        // A zone's occupancy lists every occupant, so it is made once per message or tick,
        // after all of that zone's events, not once per event (10,000 exits at a shutdown
        // made 10,000 payloads of up to 10,000 ids).
        if occupancy.apply(e) { changedZones[e.zone] = effects.count }
        metrics.zoneEvents(e.zone, e.type.rawValue).add()
        metrics.zoneDevices(e.zone).set(Double(occupancy.count(of: e.zone)))
        if e.isRoom && e.type == .enter { metrics.roomChanges.add() }
        effects.append(late ? .lateEvent(e, [publisher.event(e, late: true)]) : .event(e, [publisher.event(e)]))
    }

    /// Each zone whose occupants changed gets one occupancy message, published with the last
    /// of its events (after that event's commit, as before), stamped `t`: now in event time
    /// (the watermark), not the event's time, which an away exit back-dates to when the device
    /// was last heard, so occupancy times never go backwards.
    private func publishOccupancy(into effects: inout [Effect]) {
        guard !changedZones.isEmpty else { return }
        let t = engine.watermark
        for (zone, index) in changedZones {
            guard effects.indices.contains(index), let (e, found, late) = effects[index].zoneEvent else { continue }
            var messages = found
            guard !warmUp.warming || warmUp.publishes(zone: zone, occupants: occupancy.ids(of: zone), roomOf: { states[$0]?.room }) else {
                warmUp.hold(zone)
                continue
            }
            messages.append(publisher.occupancy(zone: zone, count: occupancy.count(of: zone), devices: occupancy.body(of: zone),
                                               expected: occupancy.expected(of: zone), t: t))
            effects[index] = late ? .lateEvent(e, messages) : .event(e, messages)
            warmUp.didPublish(zone)
        }
        changedZones.removeAll(keepingCapacity: true)
    }

    func reject(_ reason: RejectReason) { metrics.rejected(reason).add() }

    /// Maps the engine's refusals to the metric's reasons.
    func reject(_ why: Rejection) {
        switch why {
        case .late: reject(RejectReason.late)
        case .excluded: reject(RejectReason.excluded)
        case .unknownNode: reject(RejectReason.unknownNode)
        case .badRSSI: reject(RejectReason.badReading)
        case .capacity: reject(RejectReason.capacity)
        }
    }
}
