import Metrics
import MQTT
import Positioning
import Wire
import SiteModel

/// The aggregator's metrics (docs/protocol.md#metrics: their names are an interface, dashboards and scripts use them).
///
/// Labels have bounded cardinality: node, zone, reason and event type; never device.
final class AggregatorMetrics: Sendable {
    let registry: Registry
    private let readingsTotal: CounterFamily
    private let rejectedTotal: CounterFamily
    let batches: Counter
    /// Readings a shard heard on a topic every shard hears and left to the shard that owns them.
    let shardSkipped: Counter
    private let missedBatchesTotal: CounterFamily
    let nodesOnline: Gauge
    private let nodeUpFamily: GaugeFamily
    private let nodeAdverts: GaugeFamily
    private let nodeDropped: GaugeFamily
    private let nodeBuffered: GaugeFamily
    private let nodeClockOffsetFamily: GaugeFamily
    private let zoneEventsTotal: CounterFamily
    let roomChanges: Counter
    private let occupancyFamily: GaugeFamily
    let devicesTracked: Gauge
    /// Position solves made, and solves left out because a still device's last fix stood.
    let solved: Counter
    let held: Counter
    /// Readings of node beacons by other nodes: kept for calibration, never tracked.
    let beaconReadings: Counter
    /// Saves of self-calibration's learned state, by result (stored, failed).
    let calibrationSaves: CounterFamily
    /// Solved updates whose `state` message was published, and those the state deadband
    /// suppressed (nothing a consumer acts on changed and no heartbeat was due).
    let statesPublished: Counter
    let statesSuppressed: Counter
    let confidence: Histogram
    let fixes: Histogram
    let residual: Histogram
    /// Seconds from a message's arrival to the last message it caused being handed to MQTT.
    let processing: Histogram
    /// The work thread's CPU time per message: `processing` less what waiting for a core adds.
    let processingCPU: Histogram
    let mqttReconnects: Counter
    let publishFailures: Counter
    let storageCommits: Histogram
    /// Calibration reloads on SIGHUP, by outcome (`applied`, `refused`).
    let calibrationReloads: CounterFamily

    init(registry: Registry = Registry()) {
        self.registry = registry
        calibrationReloads = registry.counter("whereabouts_calibration_reloads_total",
                                              "Calibration files reloaded on SIGHUP, by outcome (applied, refused: the old one kept).", labels: ["outcome"])
        readingsTotal = registry.counter("whereabouts_readings_total", "Readings accepted, by node.", labels: ["node"])
        rejectedTotal = registry.counter("whereabouts_rejected_total", "Payloads or readings refused, by reason.", labels: ["reason"])
        batches = registry.counter("whereabouts_batches_total", "Reading batches accepted.").labels()
        shardSkipped = registry.counter("whereabouts_shard_skipped_total",
                                        "Readings on the plain readings topic or a dialect's left to the shard that owns their device.").labels()
        missedBatchesTotal = registry.counter("whereabouts_missed_batches_total", "Batches that never arrived (seq gaps), by node.", labels: ["node"])
        nodesOnline = registry.gauge("whereabouts_nodes_online", "Nodes whose status is online.").labels()
        nodeUpFamily = registry.gauge("whereabouts_node_up", "1 when the node's status is online.", labels: ["node"])
        nodeAdverts = registry.gauge("whereabouts_node_adverts", "Advertisements the node heard since it started (telemetry).", labels: ["node"])
        nodeDropped = registry.gauge("whereabouts_node_dropped", "Readings the node dropped since it started (telemetry).", labels: ["node"])
        nodeBuffered = registry.gauge("whereabouts_node_buffered", "Readings waiting in the node's buffer (telemetry).", labels: ["node"])
        nodeClockOffsetFamily = registry.gauge("whereabouts_node_clock_offset_seconds",
                                               "The node's clock minus this server's, less the shortest transit (its latest refused batch's while clock_ahead).",
                                               labels: ["node"])
        zoneEventsTotal = registry.counter("whereabouts_zone_events_total", "Zone enter and exit events, by zone and type.", labels: ["zone", "type"])
        roomChanges = registry.counter("whereabouts_room_changes_total", "Devices entering a room (room flips included).").labels()
        occupancyFamily = registry.gauge("whereabouts_zone_devices", "Devices in each room and zone.", labels: ["zone"])
        devicesTracked = registry.gauge("whereabouts_devices_tracked", "Devices the engine has seen.").labels()
        let solves = registry.counter("whereabouts_solves_total",
                                      "Position solves by result: solved, or held (a still device's last fix stood; nothing published).",
                                      labels: ["result"])
        solved = solves.labels("solved")
        held = solves.labels("held")
        calibrationSaves = registry.counter("whereabouts_self_calibration_saves_total",
                                            "Saves of self-calibration's learned state to the database, by result (stored, failed).",
                                            labels: ["result"])
        beaconReadings = registry.counter("whereabouts_node_beacon_readings_total",
                                          "Readings of a node's own advertisements by another node (kept for calibration, not tracked).").labels()
        let states = registry.counter("whereabouts_states_total",
                                      "Solved device updates by result: published (a devices/<id>/state message), or suppressed by the state deadband.",
                                      labels: ["result"])
        statesPublished = states.labels("published")
        statesSuppressed = states.labels("suppressed")
        confidence = registry.histogram("whereabouts_position_confidence", "Confidence of solved positions (published or not).",
                                        buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]).labels()
        fixes = registry.histogram("whereabouts_position_nodes", "Nodes used per solved position.",
                                   buckets: [1, 2, 3, 4, 6, 8, 12]).labels()
        residual = registry.histogram("whereabouts_position_residual", "Mean robust fit cost per node of solved positions (lower fits better).",
                                      buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32]).labels()
        processing = registry.histogram("whereabouts_processing_seconds", "Message arrival to publish, per message.",
                                        buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1]).labels()
        processingCPU = registry.histogram("whereabouts_processing_cpu_seconds",
                                           "CPU time of the work thread per message (processing less time without a core); one message in 16 measured.",
                                           buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1]).labels()
        mqttReconnects = registry.counter("whereabouts_mqtt_reconnects_total", "Connections to the broker after the first.").labels()
        publishFailures = registry.counter("whereabouts_publish_failures_total", "Messages the MQTT client refused to send.").labels()
        storageCommits = registry.histogram("whereabouts_storage_commit_duration_seconds", "Duration of each database commit.",
                                            buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]).labels()
    }

    func readings(_ node: String) -> Counter { readingsTotal.labels(node) }
    func rejected(_ reason: RejectReason) -> Counter { rejectedTotal.labels(reason.rawValue) }
    func missedBatches(_ node: String) -> Counter { missedBatchesTotal.labels(node) }
    func nodeUp(_ node: String) -> Gauge { nodeUpFamily.labels(node) }
    func nodeClockOffset(_ node: String) -> Gauge { nodeClockOffsetFamily.labels(node) }
    func zoneEvents(_ zone: String, _ type: String) -> Counter { zoneEventsTotal.labels(zone, type) }
    func zoneDevices(_ zone: String) -> Gauge { occupancyFamily.labels(zone) }

    func observe(_ u: DeviceUpdate) {
        guard u.room != nil else { return }
        confidence.observe(u.confidence)
        fixes.observe(Double(u.fixes))
        residual.observe(u.residual)
    }

    func observe(node: String, telemetry t: NodeTelemetry) {
        if let v = t.adverts { nodeAdverts.labels(node).set(Double(v)) }
        if let v = t.dropped { nodeDropped.labels(node).set(Double(v)) }
        if let v = t.buffered { nodeBuffered.labels(node).set(Double(v)) }
    }
}

extension AggregatorMetrics {
    /// The MQTT client's backpressure: how often it stopped reading from the broker because
    /// the work queue was full, and for how long in all (the broker held the messages meanwhile).
    static func collectReadPauses(of client: MQTTClient, in registry: Registry) {
        registry.collect("whereabouts_mqtt_read_pauses_total",
                         "Times the aggregator stopped reading from the broker because its work queue was full.",
                         type: .counter) { [([], Double(client.readPauses.count))] }
        registry.collect("whereabouts_mqtt_read_paused_seconds_total",
                         "Seconds the aggregator did not read from the broker because its work queue was full.",
                         type: .counter) { [([], client.readPauses.seconds)] }
    }
}
