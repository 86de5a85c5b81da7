import BLE
import Wire
import SiteModel

/// A decoded scenario with every problem found on the way (errors and warnings, each with
/// line and key). The scenario is usable only when `errors` is empty.
public struct ScenarioDecoding: Sendable {
    public var scenario: Scenario
    public var problems: [SiteProblem]
    public var errors: [SiteProblem] { problems.filter { $0.severity == .error } }
    public var warnings: [SiteProblem] { problems.filter { $0.severity == .warning } }
}

extension Scenario {
    /// Decodes a scenario file's tree, collecting every problem rather than stopping at the first.
    public static func decode(_ root: ConfigNode) -> ScenarioDecoding {
        var d = ScenarioDecoder()
        d.decodeRoot(root)
        return ScenarioDecoding(scenario: d.scenario, problems: d.reader.problems)
    }
}

struct ScenarioDecoder {
    var reader = ConfigReader()
    var scenario = Scenario()

    mutating func decodeRoot(_ root: ConfigNode) {
        guard let f = reader.fields(root, "", known: ["seed", "duration", "start", "effects", "nodes", "devices", "node_beacons"]) else { return }
        if let seed = reader.integer(f["seed"], "seed", within: 0...Int.max) { scenario.seed = UInt64(seed) }
        if let d = reader.duration(f["duration"], "duration") {
            if d > 0 && d <= 86_400 { scenario.duration = d } else { reader.error("duration", f["duration"]?.line ?? 0, "must be more than 0 and at most 24h") }
        }
        if let s = reader.number(f["start"], "start", within: 0...4e9) { scenario.start = s }
        if let node = f["effects"] { decodeEffects(node, "effects") }
        if let node = f["node_beacons"] { decodeNodeBeacons(node, "node_beacons") }
        if let items = reader.list(f["nodes"], "nodes") {
            for (i, item) in items.enumerated() { decodeNode(item, "nodes[\(i)]") }
        }
        guard let devices = reader.list(f["devices"], "devices"), !devices.isEmpty else {
            reader.error("devices", root.line, "a scenario needs at least one device")
            return
        }
        for (i, item) in devices.enumerated() { decodeDevice(item, "devices[\(i)]") }
        var seen: Set<String> = []
        for device in scenario.devices where !seen.insert(device.id).inserted {
            reader.error(device.key, device.line, "device \(device.id) given twice")
        }
    }

    mutating func decodeEffects(_ node: ConfigNode, _ key: String) {
        let known: Set<String> = ["path_loss_exponent", "shadowing_sd", "shadowing_correlation", "fading", "rician_k", "body_loss",
                                  "floor_loss", "rx_offset_sd", "tx_error_sd", "loss_base", "loss_mid_rssi", "loss_width",
                                  "sensitivity", "clock_offset_sd", "clock_drift_ppm", "door_width", "batch_interval", "batch_max"]
        guard let f = reader.fields(node, key, known: known) else { return }
        var e = scenario.effects
        func set(_ name: String, _ range: ClosedRange<Double>, _ apply: (inout ChannelEffects, Double) -> Void) {
            if let v = reader.number(f[name], f.path(name), within: range) { apply(&e, v) }
        }
        set("path_loss_exponent", 1...6) { $0.pathLossExponent = $1 }
        set("shadowing_sd", 0...20) { $0.shadowingSD = $1 }
        set("shadowing_correlation", 0.1...100) { $0.shadowingCorrelation = $1 }
        set("rician_k", 0...100) { $0.ricianK = $1 }
        if reader.bool(f["fading"], f.path("fading")) == false { e.ricianK = nil }
        set("body_loss", 0...40) { $0.bodyLoss = $1 }
        set("floor_loss", 0...60) { $0.floorLoss = $1 }
        set("rx_offset_sd", 0...20) { $0.rxOffsetSD = $1 }
        set("tx_error_sd", 0...20) { $0.txErrorSD = $1 }
        set("loss_base", 0...0.99) { $0.lossBase = $1 }
        set("loss_mid_rssi", -127...0) { $0.lossMidRSSI = $1 }
        set("loss_width", 0.1...30) { $0.lossWidth = $1 }
        set("sensitivity", -127...0) { $0.sensitivity = $1 }
        set("clock_offset_sd", 0...60) { $0.clockOffsetSD = $1 }
        set("clock_drift_ppm", 0...1000) { $0.clockDriftPPM = $1 }
        set("door_width", 0...10) { $0.doorWidth = $1 }
        set("batch_interval", 0.01...60) { $0.batchInterval = $1 }
        if let n = reader.integer(f["batch_max"], f.path("batch_max"), within: 1...10_000) { e.batchMax = n }
        scenario.effects = e
    }

    mutating func decodeNodeBeacons(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["interval", "tx_power"]) else { return }
        var beacons = NodeBeacons(line: node.line)
        if let s = reader.duration(f["interval"], f.path("interval")) {
            if (0.02...10.24).contains(s) { beacons.interval = s } else { reader.error(f.path("interval"), node.line, "must be 20ms...10.24s as BLE allows") }
        }
        if let v = reader.integer(f["tx_power"], f.path("tx_power"), within: -100...20) { beacons.txPower = v }
        scenario.nodeBeacons = beacons
    }

    mutating func decodeNode(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["name", "rx_offset", "clock_offset", "clock_drift_ppm"]) else { return }
        guard let name = reader.string(f["name"], f.path("name")) else {
            reader.error(f.path("name"), node.line, "missing")
            return
        }
        scenario.nodes.append(NodeSetting(name: name, rxOffset: reader.number(f["rx_offset"], f.path("rx_offset"), within: -40...40),
                                          clockOffset: reader.number(f["clock_offset"], f.path("clock_offset"), within: -3600...3600),
                                          clockDriftPPM: reader.number(f["clock_drift_ppm"], f.path("clock_drift_ppm"), within: -1000...1000),
                                          line: node.line))
    }

    mutating func decodeDevice(_ node: ConfigNode, _ key: String) {
        let known: Set<String> = ["id", "ibeacon", "phone", "mac", "tx_power", "interval", "interval_ms", "jitter_ms", "speed",
                                  "height", "body_loss", "loop", "path"]
        guard let f = reader.fields(node, key, known: known) else { return }
        // A bad kind still lets the rest be checked, so every problem shows at once.
        let kind = decodeKind(f)
        var device = DeviceSpec(kind: kind ?? .mac(BluetoothAddress(rawValue: 0)))
        device.line = node.line
        device.key = key
        if let v = reader.integer(f["tx_power"], f.path("tx_power"), within: -100...20) { device.txPower = v }
        if f["interval"] != nil && f["interval_ms"] != nil {
            reader.error(f.path("interval"), node.line, "give interval or interval_ms, not both")
        } else if let ms = reader.number(f["interval_ms"], f.path("interval_ms"), within: 20...10_240) {
            device.interval = ms / 1000
        } else if let s = reader.duration(f["interval"], f.path("interval")) {
            if (0.02...10.24).contains(s) { device.interval = s } else { reader.error(f.path("interval"), node.line, "must be 20ms...10.24s as BLE allows") }
        }
        if let ms = reader.number(f["jitter_ms"], f.path("jitter_ms"), within: 0...1000) { device.jitter = ms / 1000 }
        if let v = reader.number(f["speed"], f.path("speed"), within: 0.05...10) { device.speed = v }
        if let v = reader.number(f["height"], f.path("height"), within: 0...10) { device.height = v }
        device.bodyLoss = reader.number(f["body_loss"], f.path("body_loss"), within: 0...40)
        if let v = reader.bool(f["loop"], f.path("loop")) { device.loop = v }
        if let items = reader.list(f["path"], f.path("path")) {
            for (i, item) in items.enumerated() {
                if let step = decodeStep(item, f.path("path") + "[\(i)]") { device.path.append(step) }
            }
        }
        if kind != nil { scenario.devices.append(device) }
    }

    /// The device's kind from `ibeacon`, `phone` or `mac`, or from an `id` spelled as SPEC §1 does.
    mutating func decodeKind(_ f: ConfigReader.Fields) -> AdvertiserKind? {
        let given = ["ibeacon", "phone", "mac"].filter { f[$0] != nil }
        guard given.count <= 1 else {
            reader.error(f.key, f.line, "give one of ibeacon, phone or mac, not \(given.joined(separator: " and "))")
            return nil
        }
        let id = reader.string(f["id"], f.path("id"))
        if let node = f["ibeacon"] { return decodeIBeacon(node, f.path("ibeacon")) }
        if let node = f["phone"] { return decodePhone(node, f.path("phone"), id: id) }
        if let text = reader.string(f["mac"], f.path("mac")) {
            guard let address = BluetoothAddress(text) else {
                reader.error(f.path("mac"), f["mac"]?.line ?? f.line, "expects an address aa:bb:cc:dd:ee:ff, got '\(text)'")
                return nil
            }
            return .mac(address)
        }
        guard let id else {
            reader.error(f.key, f.line, "a device needs an id (iBeacon:…, irk:…, mac:…) or one of ibeacon, phone, mac")
            return nil
        }
        if let kind = Self.kind(fromID: id) { return kind }
        reader.error(f.path("id"), f["id"]?.line ?? f.line, "'\(id)' is not an iBeacon:<uuid>-<major>-<minor>, irk:<32 hex digits of the key> or mac:<address> id"
                     + (id.hasPrefix("irk:") ? Self.nameHint : ""))
        return nil
    }

    /// Said when a phone's id names it instead of spelling its key, as ids once did.
    static let nameHint = "; to use the site's key of a name, write phone: { name: NAME }"

    /// `iBeacon:<uuid>-<major>-<minor>`, `irk:<32 hex digits of the key>` or `mac:<address>`.
    static func kind(fromID id: String) -> AdvertiserKind? {
        if id.hasPrefix("mac:") { return BluetoothAddress(String(id.dropFirst(4))).map { .mac($0) } }
        if id.hasPrefix("irk:") {
            return IdentityResolvingKey(hex: String(id.dropFirst(4))).map { .phone(name: $0.hex, irk: $0, rotation: 900) }
        }
        guard id.hasPrefix("iBeacon:") else { return nil }
        let parts = id.dropFirst(8).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 7, let major = UInt16(parts[5]), let minor = UInt16(parts[6]),
              let uuid = parseUUID(parts[0..<5].joined(separator: "-")) else { return nil }
        return .iBeacon(uuid: uuid, major: major, minor: minor)
    }

    mutating func decodeIBeacon(_ node: ConfigNode, _ key: String) -> AdvertiserKind? {
        guard let f = reader.fields(node, key, known: ["uuid", "major", "minor"]) else { return nil }
        let text = reader.string(f["uuid"], f.path("uuid"))
        let uuid = text.flatMap(parseUUID)
        if text == nil { reader.error(f.path("uuid"), node.line, "missing") }
        else if uuid == nil { reader.error(f.path("uuid"), f["uuid"]?.line ?? node.line, "expects a UUID like f7826da6-4fa2-4e98-8024-bc5b71e0893e") }
        let major = reader.integer(f["major"], f.path("major"), within: 0...65_535) ?? 0
        let minor = reader.integer(f["minor"], f.path("minor"), within: 0...65_535) ?? 0
        return uuid.map { .iBeacon(uuid: $0, major: UInt16(major), minor: UInt16(minor)) }
    }

    mutating func decodePhone(_ node: ConfigNode, _ key: String, id: String?) -> AdvertiserKind? {
        guard let f = reader.fields(node, key, known: ["name", "irk", "rotate"]) else { return nil }
        // The id, when given, spells the key (SPEC §1: irk:<key hex>).
        var idKey: IdentityResolvingKey?
        if let id, id.hasPrefix("irk:") {
            idKey = IdentityResolvingKey(hex: String(id.dropFirst(4)))
            guard idKey != nil else {
                reader.error(key, node.line, "the id '\(id)' is not irk:<32 hex digits of the key>" + Self.nameHint)
                return nil
            }
        }
        let name = reader.string(f["name"], f.path("name")) ?? idKey?.hex
        guard let name, !name.isEmpty else {
            reader.error(f.path("name"), node.line, "a phone needs a name (the site's irks entry to take the key from) or an id irk:<key hex>")
            return nil
        }
        var irk = idKey
        if let hex = reader.string(f["irk"], f.path("irk")) {
            irk = IdentityResolvingKey(hex: hex)
            if irk == nil { reader.error(f.path("irk"), f["irk"]?.line ?? node.line, "expects 32 hex digits") }
            else if let idKey, idKey != irk { reader.error(f.path("irk"), f["irk"]?.line ?? node.line, "is not the key the id spells") }
        }
        var rotation = 900.0
        if let r = reader.duration(f["rotate"], f.path("rotate")) {
            if r >= 1 { rotation = r } else { reader.error(f.path("rotate"), node.line, "must be at least 1s") }
        }
        return .phone(name: name, irk: irk, rotation: rotation)
    }

    mutating func decodeStep(_ node: ConfigNode, _ key: String) -> PathStep? {
        let known: Set<String> = ["at", "floor", "dwell", "dwell_s", "random_walk", "for", "for_s", "still", "still_s", "away", "away_s"]
        guard let f = reader.fields(node, key, known: known) else { return nil }
        let kinds = ["at", "random_walk", "still", "away"].filter { f[$0] != nil || f[$0 + "_s"] != nil }
        guard kinds.count == 1 else {
            reader.error(key, node.line, kinds.isEmpty ? "a path step needs one of at, random_walk, still, away"
                                                       : "give one of at, random_walk, still, away, not \(kinds.joined(separator: " and "))")
            return nil
        }
        switch kinds[0] {
        case "at":
            guard let p = reader.point2(f["at"], f.path("at")) else { return nil }
            let floor = reader.string(f["floor"], f.path("floor"))
            return PathStep(.waypoint(p, floor: floor, dwell: reader.duration(f, "dwell") ?? 0), line: node.line, key: key)
        case "random_walk":
            guard let room = reader.string(f["random_walk"], f.path("random_walk")) else { return nil }
            guard let d = reader.duration(f, "for"), d > 0 else {
                reader.error(f.path("for"), node.line, "a random walk needs a positive duration (for: 2m)")
                return nil
            }
            return PathStep(.randomWalk(room: room, duration: d), line: node.line, key: key)
        case "still":
            return reader.duration(f, "still").map { PathStep(.still($0), line: node.line, key: key) }
        default:
            return reader.duration(f, "away").map { PathStep(.away($0), line: node.line, key: key) }
        }
    }
}

/// 16 bytes from a dashed (or plain) 32-hex-digit UUID.
func parseUUID(_ text: String) -> [UInt8]? {
    let plain = text.filter { $0 != "-" }
    guard plain.count == 32, let bytes = parseHex(plain) else { return nil }
    return bytes
}
