import MQTT
import Options
public import Wire
public import SiteModel
import YAML

/// A bad setting: the message names the key or flag, and the file line when it came from one.
public struct EdgeConfigError: Error, Equatable, CustomStringConvertible {
    public let message: String
    /// The config file could not be read at all (missing, unreadable, too large): a failure
    /// (exit 1) like a missing site or capture, not a usage error (64) that a restart
    /// cannot mend.
    public let isUnreadableFile: Bool
    public init(_ message: String, isUnreadableFile: Bool = false) {
        self.message = message
        self.isUnreadableFile = isUnreadableFile
    }
    public var description: String { message }
}

/// One setting's value(s) and where they came from, for messages.
struct SettingValue {
    var texts: [String]
    /// `--batch-max`, or `edge.yaml:12: batch_max`.
    var origin: String
}

extension EdgeConfig {
    /// Builds the configuration from a parsed config file and the command line's values,
    /// keyed by setting key (`batch_max`); flags override the file.
    public static func load(flags: [String: [String]], file: ConfigNode? = nil,
                            fileName: String = "config") throws(EdgeConfigError) -> EdgeConfig {
        var values = try file.map { root throws(EdgeConfigError) in try flatten(root, fileName: fileName) } ?? [:]
        // `--replay x` with a file that names an adapter means the replay, not two sources.
        if SourceSetting.keys.contains(where: { flags[$0] != nil }) {
            for key in SourceSetting.keys { values[key] = nil }
        }
        for setting in EdgeSetting.all {
            if let given = flags[setting.key], !given.isEmpty {
                values[setting.key] = SettingValue(texts: given, origin: "--\(setting.flag)")
            }
        }
        return try build(Reader(values: values))
    }

    private static func build(_ r: Reader) throws(EdgeConfigError) -> EdgeConfig {
        guard let node = r.text("node"), !node.isEmpty else {
            throw EdgeConfigError("node: required (--node NAME or `node:` in the config file)")
        }
        let broker = try r.brokerSettings()
        var mqtt = try r.mqtt(broker, clientID: r.text("client_id") ?? "whereabouts-edge-\(node)")
        mqtt.protocolVersion = try r.protocolVersion() ?? mqtt.protocolVersion
        mqtt.keepalive = try r.int("keepalive", in: 5...3600).map { Int32($0) } ?? mqtt.keepalive
        let reconnectMax = try r.duration("reconnect_max", in: 1...3600) ?? Double(mqtt.reconnectDelay.upperBound)
        mqtt.reconnectDelay = 1...UInt32(reconnectMax.rounded(.up))
        var config = EdgeConfig(node: node, mqtt: mqtt)
        config.broker = broker
        config.prefix = broker.prefix
        config.qos = try r.int("qos", in: 0...1).map { $0 == 1 ? .atLeastOnce : .atMostOnce } ?? config.qos
        config.batchInterval = try r.duration("batch_interval", in: 0.01...60) ?? config.batchInterval
        config.batchMax = try r.int("batch_max", in: 1...10_000) ?? config.batchMax
        config.bufferMax = try r.int("buffer_max", in: 1...100_000_000) ?? config.bufferMax
        if let p = try r.int("partitions", in: 1...Partitioning.maxCount) { config.partitions = Partitioning(count: p) ?? .single }
        config.telemetryInterval = try r.duration("telemetry_interval", in: 0.1...86_400) ?? config.telemetryInterval
        config.flushTimeout = try r.duration("flush_timeout", in: 0...3600) ?? config.flushTimeout
        config.filter = ReadingFilter.Rules(include: r.list("include").map(Glob.init),
                                            exclude: r.list("exclude").map(Glob.init),
                                            minRSSI: try r.int("min_rssi", in: -127...20),
                                            minInterval: try r.duration("min_interval", in: 0...86_400))
        config.source = try r.source()
        config.printReports = try r.bool("print") ?? false
        (config.irks, config.warnings) = try r.irks()
        return config
    }

    /// Turns the file's mapping into setting keys (`tls.ca`), refusing unknown keys.
    static func flatten(_ root: ConfigNode, fileName: String) throws(EdgeConfigError) -> [String: SettingValue] {
        guard let entries = root.entries else {
            throw EdgeConfigError("\(fileName):\(root.line): the edge config must be a mapping, got \(root.kindName)")
        }
        var out: [String: SettingValue] = [:]
        for entry in entries {
            if entry.key == "tls", let inner = entry.value.entries {
                for sub in inner { try add("tls." + sub.key, sub.value, sub.keyLine, fileName, &out) }
            } else if entry.key == "irks", entry.value.items != nil {
                let origin = "\(fileName):\(entry.keyLine): irks"
                out["irks"] = SettingValue(texts: try irkTexts(entry.value, origin: origin), origin: origin)
            } else {
                try add(entry.key, entry.value, entry.keyLine, fileName, &out)
            }
        }
        return out
    }

    private static func add(_ key: String, _ node: ConfigNode, _ line: Int, _ fileName: String,
                            _ out: inout [String: SettingValue]) throws(EdgeConfigError) {
        let origin = "\(fileName):\(line): \(key)"
        guard let setting = EdgeSetting.all.first(where: { $0.key == key }) else {
            throw EdgeConfigError("\(fileName):\(line): unknown key '\(key)'")
        }
        if node.isNull { return }
        if let text = node.text {
            out[key] = SettingValue(texts: [text], origin: origin)
        } else if setting.repeatable, let items = node.items, items.allSatisfy({ $0.text != nil }) {
            out[key] = SettingValue(texts: items.compactMap(\.text), origin: origin)
        } else {
            throw EdgeConfigError("\(origin): expects \(setting.repeatable ? "a value or a list of values" : "a value"), got \(node.kindName)")
        }
    }
}

/// Typed reads of the merged settings, with messages that name the origin.
struct Reader {
    let values: [String: SettingValue]

    func text(_ key: String) -> String? { values[key]?.texts.last }
    func list(_ key: String) -> [String] { values[key]?.texts ?? [] }
    private func origin(_ key: String) -> String { values[key]?.origin ?? key }

    func int(_ key: String, in range: ClosedRange<Int>) throws(EdgeConfigError) -> Int? {
        guard let t = text(key) else { return nil }
        guard let v = Int(t), range.contains(v) else {
            throw EdgeConfigError("\(origin(key)): expects a whole number in \(range.lowerBound)...\(range.upperBound), got '\(t)'")
        }
        return v
    }

    /// Seconds, written `250ms`, `1.5s`, `2m`, `1h` or a bare number of seconds.
    func duration(_ key: String, in range: ClosedRange<Double>) throws(EdgeConfigError) -> Double? {
        guard let t = text(key) else { return nil }
        guard let v = parseDuration(t), range.contains(v) else {
            throw EdgeConfigError("\(origin(key)): expects a duration in \(range.lowerBound)s...\(range.upperBound)s (like 250ms or 30s), got '\(t)'")
        }
        return v
    }

    /// A switch: `true`/`false` (or yes/no, on/off) in the file; a flag on the command line.
    func bool(_ key: String) throws(EdgeConfigError) -> Bool? {
        guard let t = text(key) else { return nil }
        switch t.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw EdgeConfigError("\(origin(key)): expects true or false, got '\(t)'")
        }
    }

    /// The one source chosen by `adapter`, `monitor`, `replay` or `stdin`; `scan` and
    /// `speed` are checked even when their source is not the one chosen.
    func source() throws(EdgeConfigError) -> SourceSetting? {
        let active: Bool
        switch text("scan") {
        case nil, "passive": active = false
        case "active": active = true
        case let other?: throw EdgeConfigError("\(origin("scan")): expects passive or active, got '\(other)'")
        }
        guard let speed = parseSpeed() else {
            throw EdgeConfigError("\(origin("speed")): expects a number in 0...1000000, got '\(text("speed") ?? "")'")
        }
        var chosen: [(key: String, source: SourceSetting)] = []
        if let adapter = text("adapter") { chosen.append(("adapter", .adapter(adapter, active: active))) }
        if try bool("monitor") == true { chosen.append(("monitor", .monitor)) }
        if let path = text("replay") { chosen.append(("replay", .replay(path: path, speed: speed, retime: try bool("retime") ?? false))) }
        if try bool("stdin") == true { chosen.append(("stdin", .stdin)) }
        guard chosen.count <= 1 else {
            let named = chosen.map { origin($0.key) }.joined(separator: ", ")
            throw EdgeConfigError("one source at a time: adapter, monitor, replay or stdin (got \(named))")
        }
        return chosen.first?.source
    }

    private func parseSpeed() -> Double? {
        guard let t = text("speed") else { return SourceSetting.defaultSpeed }
        guard let v = Double(t), v.isFinite, (0...1_000_000).contains(v) else { return nil }
        return v
    }

    /// The broker, user, password source and TLS files, read and checked as every tool does.
    func brokerSettings() throws(EdgeConfigError) -> BrokerSettings {
        do { return try BrokerSettings { text($0) } } catch { throw EdgeConfigError(error.message) }
    }

    func mqtt(_ settings: BrokerSettings, clientID: String) throws(EdgeConfigError) -> MQTTOptions {
        do { return try MQTTOptions(settings, clientID: clientID) }
        catch { throw EdgeConfigError("\(origin("broker")): \(error.message)") }
    }

    func protocolVersion() throws(EdgeConfigError) -> ProtocolVersion? {
        switch text("protocol") {
        case nil: return nil
        case "3.1.1", "311", "4": return .v311
        case "5", "5.0": return .v5
        case let other?: throw EdgeConfigError("\(origin("protocol")): expects 3.1.1 or 5, got '\(other)'")
        }
    }
}

/// `250ms`, `1.5s`, `2m`, `1h`, or a bare number of seconds.
func parseDuration(_ text: String) -> Double? {
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        guard let v = Double(text.dropLast(suffix.count)), v.isFinite, v >= 0 else { return nil }
        return v * scale
    }
    guard let v = Double(text), v.isFinite, v >= 0 else { return nil }
    return v
}

extension EdgeConfig {
    /// Loads `path` (YAML) under the command line's values; a problem names the file, line and key.
    public static func load(flags: [String: [String]], configFile path: String?) throws(EdgeConfigError) -> EdgeConfig {
        guard let path else { return try load(flags: flags) }
        let root: ConfigNode
        do { root = try YAML.parse(contentsOf: path) } catch {
            throw EdgeConfigError("\(path): \(error)", isUnreadableFile: error.isUnreadable)
        }
        var config = try load(flags: flags, file: root, fileName: path)
        if root["irks"] != nil, flags["irks"] == nil, let warning = exposureWarning(path) { config.warnings.append(warning) }
        return config
    }
}
