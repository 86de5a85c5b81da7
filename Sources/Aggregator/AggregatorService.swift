import Dispatch
import Foundation
import Metrics
import MQTT
import Positioning
import Storage
import Wire

/// The running aggregator: MQTT in, the core on one serial queue, MQTT and SQLite out.
///
/// Every message, tick and signal is handled on `work`, so the core needs no locks. Zone
/// events are stored before they are published (a `kill -9` never loses a published event);
/// while the database refuses writes they are published anyway after a short wait, so a
/// broken disk never stops positioning.
public final class AggregatorService: @unchecked Sendable {
    let settings: AggregatorSettings
    let work = DispatchQueue(label: "whereabouts.aggregator")
    let core: AggregatorCore
    let metrics: AggregatorMetrics
    let log: @Sendable (String) -> Void
    private var client: MQTTClient?
    var writer: TrackWriter?
    /// This process's right to write the database, held until it exits (released by the
    /// kernel however it ends).
    var writerLock: AnyObject?
    private var http: HTTPEndpoints?
    /// What is published, also streamed to the map's pages (`/api/live`).
    let live = LiveFeed()
    private var timer: DispatchSourceTimer?
    /// Where self-calibration's learned state is kept (`AggregatorService+Calibration`).
    let calibration = CalibrationKeeping()
    private var effects: [Effect] = []
    /// Events waiting for their commit: (ticket, when queued, messages).
    var pending: [(ticket: UInt64, since: Double, messages: [MQTTMessage])] = []
    /// Enter time of each open visit, to close the same row on exit.
    var openVisits: [VisitKey: Double] = [:]
    /// Visits a crash left open, closed at the first connection (`closeRecoveredVisits`).
    var recovering: [OpenVisit] = []
    /// QoS 1 publishes the broker has not acknowledged yet: a clean shutdown waits for them, and
    /// state messages are shed while `maxUnacknowledged` are waiting. Acknowledgements are
    /// taken from the client in bulk (`takeAcknowledgements`), not delivered as events.
    private var inflight: Set<Int32> = []
    /// Acknowledgements taken from the client (`takeAcknowledgements`), reused.
    private var acknowledged: [Int32] = []
    /// State messages dropped because `maxUnacknowledged` publishes were waiting.
    private(set) var shedStates = 0
    private var connections = 0
    private var lastArrival = 0.0
    /// Messages not decoded on the network thread, for `whereabouts_processing_cpu_seconds`.
    private var cpuSampling = CPUSampling()
    private(set) var stopping = false
    private var catchUpScheduled = false
    /// A shard's status, the site's status and (shard 0) the site's occupancy; nil for the whole site.
    let sharding: Sharding?
    /// Home Assistant discovery (`Discovery`), made once, and its topics.
    private(set) lazy var discovery: [MQTTMessage] = {
        var d = Discovery(site: settings.site, topics: settings.topics, version: settings.version)
        return d.messages()
    }()
    lazy var discoveryTopics = Set(discovery.map(\.topic))
    /// Retained discovery configs of ours that the current discovery no longer has, cleared.
    var clearedDiscovery: Set<String> = []

    struct VisitKey: Hashable { let device: String, zone: String }

    /// How long an event waits for its commit before it is published anyway.
    static let commitPatience = 2.0
    /// QoS 1 publishes libmosquitto may hold unacknowledged (about 10 MB of state messages);
    /// beyond it state messages are dropped and counted, room changes and events never are.
    static let maxUnacknowledged = 20_000

    public init(settings: AggregatorSettings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
        metrics = AggregatorMetrics()
        core = AggregatorCore(site: settings.site, topics: settings.topics, locator: settings.locator,
                              dialects: settings.dialects, clockMode: settings.clockMode, metrics: metrics, shard: settings.shard, log: log)
        sharding = settings.shard.isWhole ? nil : Sharding(shard: settings.shard, zones: Publisher.zoneIds(of: settings.site))
        ProcessMetrics.register(in: metrics.registry)
        registerCalibrationMetrics()
        // Counted when scraped, on the work queue, from the states the core keeps.
        metrics.registry.collect("whereabouts_devices_present", "Devices in a room, by floor.", labels: ["floor"]) { [weak self] in
            guard let self else { return [] }
            let floors = self.snapshot { core in
                core.states.values.reduce(into: [String: Int]()) { counts, u in
                    if u.room != nil { counts[u.floor ?? "", default: 0] += 1 }
                }
            }
            return self.settings.site.floors.map { ([$0.id], Double(floors[$0.id] ?? 0)) }
        }
    }

    /// Opens the database, recovers visits a crash left open, connects, subscribes and serves.
    public func start() throws {
        for warning in StartupAudit.warnings(settings) { log("warning: \(warning)") }
        if let path = settings.database {
            try openStorage(path)
            try openCalibration(StoreLocation(path))
        }
        let topics = settings.topics, scratch = PrepareScratch()
        // Acknowledgements are only counted (`inflight`): taken with each message and tick
        // instead of a block on the work queue each, which woke it for nothing when idle.
        var mqtt = settings.mqtt
        mqtt.deliverAcknowledgements = false
        let client = try MQTTClient(mqtt, queue: work,
                                    prepare: { topic, payload in
                                        PreparedBatch.prepare(topic: topic, payload: payload, topics: topics, scratch: scratch)
                                    },
                                    onEvent: { [weak self] event in self?.handle(event) })
        self.client = client
        metrics.registry.collect("whereabouts_shed_messages_total",
                                 "Messages dropped on arrival because too many were already waiting for the aggregator.",
                                 type: .counter) { [([], Double(client.shedMessages))] }
        AggregatorMetrics.collectReadPauses(of: client, in: metrics.registry)
        metrics.registry.collect("whereabouts_shed_states_total",
                                 "Device state messages dropped because the broker had not acknowledged too many publishes.",
                                 type: .counter) { [weak self] in
            guard let self else { return [] }
            return [([], Double(self.work.sync { self.shedStates }))]
        }
        // QoS 1, so the broker queues QoS 1 batches for the aggregator's session while it is away.
        for filter in core.subscriptions { try client.subscribe(filter, qos: .atLeastOnce) }
        // Our own retained occupancy, read back until the warm-up ends (`OccupancyWarmUp`), and
        // the discovery configs retained, to clear those of entities we no longer make.
        try client.subscribe(core.retainedOccupancy, qos: .atLeastOnce)
        if settings.homeAssistant { try client.subscribe(Self.retainedDiscovery, qos: .atLeastOnce) }
        if let sharding { try startSharding(sharding, client: client) }
        try client.start()
        if let address = settings.http {
            http = try HTTPEndpoints(address: address, token: settings.httpToken, service: self)
        }
        let timer = DispatchSource.makeTimerSource(queue: work)
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
    }

    /// A clean stop: `offline` first (subscribers then know what follows is a stop, not
    /// people leaving), exits for every open visit, stored (or kept in the journal) and
    /// published, disconnect. Retained rooms, states and occupancy stay as they were.
    public func stop() {
        work.sync {
            guard !stopping else { return }
            stopping = true
            publish(MQTTMessage(topic: settings.topics.aggregatorStatus, payload: Array("offline".utf8), qos: .atLeastOnce, retain: true))
            timer?.cancel()
            effects.removeAll(keepingCapacity: true)
            // Before the shutdown's exits: they reset the powers of devices leaving.
            saveCalibrationIfDue(wall: now(), force: true, wait: true)
            core.shutdown(wall: now(), into: &effects)
            perform()
            // Before the held exits go out: the writer commits what is queued (retrying a
            // failing database for `shutdownGrace`) and keeps the visit writes it could not
            // store in a journal beside the database, so the next start stores them at the
            // times published instead of closing those visits again with a second `exit`.
            writer?.close()
            releasePending(upTo: .max)
        }
        if let sharding { stopSharding(sharding, timeout: settings.shutdownGrace) }
        if client != nil {
            waitForAcknowledgements(timeout: settings.shutdownGrace)
            client?.disconnect()
        }
        http = nil
    }

    // MARK: - Work queue

    private func handle(_ event: MQTTEvent) {
        guard !stopping else { return }
        switch event {
        case .message(let m):
            // Before the clocks are read: a message's figures are its own work.
            takeAcknowledgements()
            let arrival = now()
            let prepared = m.prepared as? PreparedBatch
            if prepared == nil, let sharding, handleShardMessage(m, sharding) { return }
            // A readings batch is prepared; anything else may be our own occupancy read back.
            if prepared == nil, m.payload.withUnsafeBytes({ core.readBack(topic: m.topic, payload: $0) }) { return }
            if prepared == nil, m.topic.hasPrefix("homeassistant/") { return readBackDiscovery(m) }
            // A readings batch was sampled or not where it was decoded; any other message here.
            let sampled = prepared.map { $0.cpuSeconds != nil } ?? cpuSampling.take()
            let cpu = sampled ? threadCPUTime() : 0
            lastArrival = arrival
            effects.removeAll(keepingCapacity: true)
            m.payload.withUnsafeBytes { core.handle(topic: m.topic, payload: $0, prepared: prepared, arrival: arrival, into: &effects) }
            perform()
            // Decoding on the network thread is part of a message's processing too.
            metrics.processing.observe(now() - arrival + (prepared?.seconds ?? 0))
            if sampled { metrics.processingCPU.observe(threadCPUTime() - cpu + (prepared?.cpuSeconds ?? 0)) }
            scheduleCatchUp()
        case .connected:
            connections += 1
            if connections > 1 { metrics.mqttReconnects.add() }
            log("connected to \(client?.currentBroker ?? settings.mqtt.broker)")
            // A shard's site status follows every shard's (`AggregatorService+Shards`).
            if let sharding { shardingConnected(sharding) } else {
                publish(MQTTMessage(topic: settings.topics.aggregatorStatus, payload: Array("online".utf8), qos: .atLeastOnce, retain: true))
            }
            core.warmUp.connected(at: now())
            core.brokerBack(wall: now())
            // No occupancy here: the zones wait for the engine to place their devices again.
            var start = settings.homeAssistant ? discovery : []
            // After a reconnect the broker may have lost retained state: publish it again.
            if connections > 1 { start += core.currentStateMessages() }
            for m in start { publish(m) }
            closeRecoveredVisits()
        case .refused(_, let reason):
            log("broker refused the connection: \(reason)")
        case .disconnected(let code, let reason):
            if code != 0 { log("no connection to \(BrokerURL.listDescription(settings.mqtt.brokers)): \(reason); retrying") }
            effects.removeAll(keepingCapacity: true)
            core.brokerLost(wall: now(), into: &effects)
            perform()
        case .published:
            break   // not delivered: the client keeps acknowledgements for `takeAcknowledgements`
        }
    }

    /// Devices left due by a message or tick are solved in steps queued behind the messages
    /// already waiting, so a message never waits for a whole catch-up.
    private func scheduleCatchUp() {
        guard core.needsCatchUp, !catchUpScheduled else { return }
        catchUpScheduled = true
        work.async { [weak self] in
            guard let self else { return }
            catchUpScheduled = false
            guard !stopping, core.needsCatchUp else { return }
            effects.removeAll(keepingCapacity: true)
            core.catchUp(into: &effects)
            perform()
            scheduleCatchUp()
        }
    }

    private func tick() {
        takeAcknowledgements()
        guard !stopping else { return }
        effects.removeAll(keepingCapacity: true)
        core.tick(wall: now(), into: &effects)
        if core.warmUp.warming, core.endWarmUpIfDue(wall: now(), into: &effects) {
            try? client?.unsubscribe(core.retainedOccupancy)
            if settings.homeAssistant { try? client?.unsubscribe(Self.retainedDiscovery) }
        }
        perform()
        if let sharding { shardingTick(sharding) }
        scheduleCatchUp()
        saveCalibrationIfDue(wall: now())
        // Events whose commit is late (a failing disk) are published anyway.
        // Not for a leased one: what it publishes must be stored (`AggregatorSettings.leased`).
        if !settings.leased, let first = pending.first, now() - first.since > Self.commitPatience {
            releasePending(upTo: pending.last?.ticket ?? .max)
        }
    }

    private func perform() {
        for effect in effects {
            switch effect {
            case .publish(let m): publish(m)
            case .state(let m, let device):
                // The count may be a tick old (acknowledgements are taken with messages and
                // ticks, not in catch-up steps): take them before shedding on it.
                if inflight.count >= Self.maxUnacknowledged { takeAcknowledgements() }
                if inflight.count < Self.maxUnacknowledged {
                    publish(m)
                } else {
                    shedStates += 1
                    core.stateShed(device)
                }
            case .event(let e, let messages): store(e, then: messages)
            case .track(let u): record(u)
            case .backfilledTrack(let u): record(u, backfilled: true)
            case .lateEvent(let e, let messages): store(e, then: messages, backfilled: true)
            case .nodeHealth(let node, let t, let telemetry, let online):
                writer?.recordHealth(NodeHealth(node: node, t: t, adverts: telemetry?.adverts, dropped: telemetry?.dropped,
                                                buffered: telemetry?.buffered, online: online))
            case .forget(let id): writer?.forget(id)
            }
        }
    }

    func publish(_ m: MQTTMessage) {
        guard let client else { return }
        live.published(m)
        do {
            let mid = try client.publish(m.topic, m.payload, qos: m.qos, retain: m.retain)
            if m.qos > .atMostOnce { inflight.insert(mid) }
        } catch {
            metrics.publishFailures.add()
        }
    }

    private func waitForAcknowledgements(timeout: Double) {
        let deadline = now() + timeout
        while now() < deadline, work.sync(execute: { takeAcknowledgements(); return !inflight.isEmpty }) { usleep(10_000) }
    }

    /// Publishes the broker acknowledged since the last call leave `inflight`.
    private func takeAcknowledgements() {
        guard let client else { return }
        client.takeAcknowledged(into: &acknowledged)
        for mid in acknowledged { inflight.remove(mid) }
        acknowledged.removeAll(keepingCapacity: true)
    }

    // MARK: - For the HTTP endpoints (called off the work queue)

    func snapshot<T>(_ body: (AggregatorCore) -> T) -> T { work.sync { body(core) } }

    var isConnected: Bool { client?.connection == .connected }

    /// Wall seconds since a message last arrived.
    var secondsSinceLastMessage: Double { work.sync { lastArrival == 0 ? .infinity : now() - lastArrival } }
}

func now() -> Double { Date().timeIntervalSince1970 }

/// CPU seconds the calling thread has run.
func threadCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
