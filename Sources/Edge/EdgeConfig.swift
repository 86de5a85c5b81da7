public import MQTT
public import Options
public import Wire

/// Everything the edge service needs, from the config file and flags (flags win).
public struct EdgeConfig: Sendable {
    /// This node's name, as in the site file; also the MQTT topic level.
    public var node: String
    public var mqtt: MQTTOptions
    /// Topic prefix `<p>` (docs/protocol.md, MQTT topics).
    public var prefix = BrokerSettings.defaultPrefix
    /// QoS of readings; status is always 1, telemetry 0.
    public var qos: QoS = .atMostOnce
    /// Seconds between batches.
    public var batchInterval = 0.25
    /// Readings that close a batch early.
    public var batchMax = 200
    /// Readings streams: with P > 1 each device's readings go to its partition's topic
    /// (docs/protocol.md, Partitions and shards); the site's `partitions` must be the same.
    public var partitions = Partitioning.single
    /// Readings kept while the broker is away; beyond it the oldest are dropped and counted.
    public var bufferMax = 100_000
    public var filter = ReadingFilter.Rules()
    /// Seconds between telemetry messages.
    public var telemetryInterval = 30.0
    /// Seconds a shutdown waits for buffered readings to reach the broker.
    public var flushTimeout = 10.0
    /// Where advertisements come from; nil when neither the file nor the flags chose one.
    public var source: SourceSetting?
    /// `print`: also write each decoded report as a JSON line on standard output.
    public var printReports = false
    /// Identity resolving keys: resolvable private addresses made with one are published as
    /// `irk:<key hex>`; other rotating addresses are dropped.
    public var irks: [IRKEntry] = []
    /// Things worth saying at start that do not stop it (keys other users can read).
    public var warnings: [String] = []
    /// The broker settings `mqtt` was made from, for `--check-config` to check the files they
    /// name; nil when the options were made in code.
    public var broker: BrokerSettings?

    public init(node: String, mqtt: MQTTOptions) {
        self.node = node
        self.mqtt = mqtt
    }

    /// Every default, stated once: a config's initial values, and what the settings table shows
    /// as `(default: …)` (`EdgeSetting.all`).
    static let defaults = EdgeConfig(node: "", mqtt: MQTTOptions(broker: BrokerURL(host: "localhost"), clientID: ""))

    /// Batches on the wire at once, awaiting their PUBACK (or, at QoS 0, their write).
    /// Small, so libmosquitto never queues much: the rest waits in our bounded queue,
    /// where the drop policy and the `buffered` count apply.
    var window: Int { 16 }
}

/// The one source of advertisements: `adapter`, `monitor`, `replay` or `stdin`.
public enum SourceSetting: Sendable, Equatable {
    /// Scan with this HCI adapter; `active` also asks for scan responses.
    case adapter(String, active: Bool)
    case monitor
    /// A btsnoop capture, paced at `speed` (0: as fast as possible).
    case replay(path: String, speed: Double, retime: Bool)
    case stdin

    /// The setting keys that choose a source; a source flag replaces the file's choice.
    static let keys = ["adapter", "monitor", "replay", "stdin"]
    /// Replay pacing when `speed` is not set: the capture's own timing.
    static let defaultSpeed = 1.0
}

extension SourceSetting: CustomStringConvertible {
    public var description: String {
        switch self {
        case .adapter(let name, let active): "adapter \(name) (\(active ? "active" : "passive") scan)"
        case .monitor: "monitor"
        case .replay(let path, let speed, let retime): "replay \(path) at speed \(speed)\(retime ? ", retimed" : "")"
        case .stdin: "stdin"
        }
    }
}

/// A setting of the edge: a YAML key (`tls.ca`) and the flag that overrides it (`--tls-ca`).
public struct EdgeSetting: Sendable {
    public let key: String
    /// The value's placeholder in help; nil for a switch (`--monitor`, `monitor: true`).
    public let valueName: String?
    public let help: String
    public let defaultText: String?
    public let repeatable: Bool
    /// Shown bare in the usage line (the node), or, for the sources, as alternatives of which
    /// one is needed, from the flags or the file.
    public var required = false
    public var group: String?

    /// The setting as a command-line option.
    public var option: Option {
        valueName.map { Option.value(flag, $0, help: help, default: defaultText, repeatable: repeatable, required: required, group: group) }
            ?? Option.flag(flag, help: help, required: required, group: group)
    }

    /// The command-line spelling of `key`: `batch_max` → `batch-max`, `tls.ca` → `tls-ca`.
    public var flag: String { BrokerSettings.flag(forKey: key) }

    init(_ broker: BrokerSettings.Setting) {
        self.init(broker.key, broker.valueName, broker.help, default: broker.defaultValue)
    }

    init(_ key: String, _ valueName: String?, _ help: String, default defaultText: String? = nil, repeatable: Bool = false,
         required: Bool = false, group: String? = nil) {
        self.key = key; self.valueName = valueName; self.help = help
        self.defaultText = defaultText; self.repeatable = repeatable
        self.required = required; self.group = group
    }

    /// Every setting; the edge main builds its option table from this list.
    public static let all: [EdgeSetting] = [EdgeSetting("node", "NAME", "This node's name, as in the site file.", required: true)]
        + BrokerSettings.settings.map(EdgeSetting.init) + [
        EdgeSetting("protocol", "3.1.1|5", "MQTT protocol version. With 5 the broker states its maximum packet size and batches are cut to fit it; with 3.1.1 a broker with such a limit drops the connection on a batch over it (keep batch_max small enough there).", default: EdgeConfig.defaults.mqtt.protocolVersion.rawValue),
        EdgeSetting("keepalive", "SECONDS", "MQTT keepalive; the broker declares the node offline after 1.5 times this.",
                    default: String(EdgeConfig.defaults.mqtt.keepalive)),
        EdgeSetting("reconnect_max", "DURATION", "Longest wait between reconnect attempts (they start at 1 s and double).",
                    default: durationText(Double(EdgeConfig.defaults.mqtt.reconnectDelay.upperBound))),
        EdgeSetting("client_id", "ID", "MQTT client id.", default: "whereabouts-edge-<node>"),
        EdgeSetting(BrokerSettings.prefixSetting),
        EdgeSetting("qos", "0|1", "MQTT QoS of readings.", default: String(EdgeConfig.defaults.qos.rawValue)),
        EdgeSetting("batch_interval", "DURATION", "Publish a batch this often (250ms, 1s).", default: durationText(EdgeConfig.defaults.batchInterval)),
        EdgeSetting("batch_max", "N", "Publish early when this many readings wait.", default: String(EdgeConfig.defaults.batchMax)),
        EdgeSetting("buffer_max", "N", "Readings kept while the broker is away.", default: String(EdgeConfig.defaults.bufferMax)),
        EdgeSetting("partitions", "P", "Publish each device's readings on readings/<k>, k = FNV-1a(id) mod P (the site's partitions); 1: the plain readings topic.",
                    default: String(EdgeConfig.defaults.partitions.count)),
        EdgeSetting("include", "GLOB", "Publish only devices whose id matches (repeatable).", repeatable: true),
        EdgeSetting("exclude", "GLOB", "Never publish devices whose id matches (repeatable).", repeatable: true),
        EdgeSetting("min_rssi", "DBM", "Drop readings weaker than this."),
        EdgeSetting("min_interval", "DURATION", "At most one reading per device this often."),
        EdgeSetting("telemetry_interval", "DURATION", "Publish telemetry this often.", default: durationText(EdgeConfig.defaults.telemetryInterval)),
        EdgeSetting("flush_timeout", "DURATION", "On shutdown, wait this long for buffered readings to reach the broker.",
                    default: durationText(EdgeConfig.defaults.flushTimeout)),
        EdgeSetting("adapter", "DEV", "Scan with this HCI adapter (hci0 or its address).", required: true, group: "source"),
        EdgeSetting("scan", "passive|active", "With adapter: active scanning also asks for scan responses.", default: "passive"),
        EdgeSetting("monitor", nil, "Listen on the HCI monitor channel beside a running bluetoothd.", required: true, group: "source"),
        EdgeSetting("replay", "FILE", "Replay a btsnoop capture through the same pipeline.", required: true, group: "source"),
        EdgeSetting("speed", "X", "Replay pacing: 1 = the capture's own timing, 0 = as fast as possible.",
                    default: numberText(SourceSetting.defaultSpeed)),
        EdgeSetting("retime", nil, "Shift replayed timestamps so the capture starts now."),
        EdgeSetting("stdin", nil, "Read H4 hex lines (hcidump -R style) from standard input.", required: true, group: "source"),
        EdgeSetting("print", nil, "Print each decoded report as a JSON line."),
        EdgeSetting("irks", "NAME:HEX", "An identity resolving key, 32 hex digits (repeatable; in the file [{id, key}]); prefer irks_file.",
                    repeatable: true),
        EdgeSetting("irks_file", "FILE", "YAML file of identity resolving keys: [{id, key}], or a site file's irks list."),
    ]
}

/// A duration as the settings spell it: `250ms` under a second, else seconds (`30s`).
func durationText(_ seconds: Double) -> String {
    seconds < 1 ? numberText(seconds * 1000) + "ms" : numberText(seconds) + "s"
}
