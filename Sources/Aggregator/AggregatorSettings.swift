public import MQTT
public import Options
import Positioning
import Wire
import SiteModel

/// Everything the aggregator runs with: the site, where the broker and database are, and
/// how to serve HTTP. Built by the main from flags and the site file.
public struct AggregatorSettings: Sendable {
    public var site: Site
    public var mqtt: MQTTOptions
    public var topics: Topics
    /// SQLite file for tracks and visits; `nil` runs without storage.
    public var database: String?
    /// `ADDR:PORT` for /metrics, /healthz and the JSON API; `nil` serves nothing.
    public var http: String?
    /// Bearer token every HTTP request must carry, when set.
    public var httpToken: String?
    /// Where the site and the token were read from, for the start's permission checks.
    public var sitePath: String?
    public var httpTokenFile: String?
    public var locator: LocatorKind = .default
    public var dialects: [Dialect] = []
    public var clockMode: Ingest.ClockMode = .node
    /// Publish Home Assistant discovery for named devices and zones.
    public var homeAssistant = true
    /// The version shown in Home Assistant's device and origin blocks.
    public var version = ""
    /// This aggregator's share of the site's partitions (`--shard I/N`); Home Assistant
    /// discovery and the site's occupancy sums come from shard 0 alone.
    public var shard = Shard.whole
    /// Seconds a clean shutdown may spend flushing events and the database.
    public var shutdownGrace = 5.0

    public init(site: Site, mqtt: MQTTOptions, database: String?, http: String?) {
        self.site = site
        self.mqtt = mqtt
        self.topics = Topics(prefix: site.mqtt.prefix)
        self.database = database
        self.http = http
    }

    /// MQTT options from the site's `mqtt` section and `--broker` (`BrokerSettings(site:broker:)`,
    /// which throws `SiteBrokerConflict`), with the aggregator's session, will and bounds.
    public static func mqttOptions(site: Site, broker: BrokerURL?, clientID: String) throws -> MQTTOptions {
        let settings = try BrokerSettings(site: site.mqtt, broker: broker)
        var options = try MQTTOptions(settings, clientID: clientID)
        options.will = Will(topic: Topics(prefix: settings.prefix).aggregatorStatus, payload: Array("offline".utf8))
        // A session the broker keeps: what QoS 1 edges publish while the aggregator is away or
        // not yet reconnected after a broker restart is queued for it, not dropped. (With a
        // clean session an edge that reconnected first flushed its buffer to nobody.)
        options.cleanSession = false
        // Backpressure first: with this many received messages (batches of up to 200
        // readings) or bytes waiting for the work queue, the client stops reading, and the
        // broker's queue for this session holds the rest of a burst (max_queued_messages,
        // docs/operations.md) until half of them are handled.
        options.pauseReadingAtMessages = 500
        options.pauseReadingAtBytes = 3 << 20
        // Only past these bounds (what a read can bring beyond the pause marks: libmosquitto
        // reads as many packets per turn as it has publishes queued) is load shed, and counted.
        options.maxPendingMessages = 2_000
        // And at most this many payload bytes: about 0.4 s of 200,000 readings/s. Payloads
        // waiting are most of what a lagging aggregator holds, and glibc keeps what it once
        // held (a 2,000-batch backlog left RSS 60 MB higher for good).
        options.maxPendingBytes = 12 << 20
        // Every state message is QoS 1: with libmosquitto's default of 20 on the wire, state
        // went out at 20 per broker round trip, and whatever the engine made beyond that
        // waited in libmosquitto's queue (140 MB of it after a minute at 10,000 devices).
        options.maxInflight = 1_000
        return options
    }
}
