/// Other edge dialects the aggregator accepts, mapped to the same readings (docs/protocol.md#mqtt-topics-and-payloads):
/// ESPresense nodes and Theengs Gateway / OpenMQTTGateway.
public enum Dialect: String, Sendable, CaseIterable {
    case espresense, theengs

    /// The subscription for this dialect; `base` is Theengs' base topic (e.g. `home`).
    public func subscription(base: String = "home") -> String {
        switch self {
        case .espresense: "espresense/devices/+/+"
        case .theengs: "\(base)/+/BTtoMQTT/+"
        }
    }

    /// Maps one message to `(node, reading)`. `arrival` stands in for the reading's time,
    /// since neither dialect carries one.
    public func reading(topic: String, payload: UnsafeRawBufferPointer, arrival: Double) throws(PayloadError) -> (node: String, reading: Reading) {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let fields = try DialectFields.decode(payload)
        switch self {
        case .espresense:
            // espresense/devices/<id>/<room>: the room is the node's name.
            guard levels.count == 4, levels[0] == "espresense", levels[1] == "devices" else {
                throw PayloadError(.malformed, "not an ESPresense device topic: \(topic)")
            }
            let id = fields.id ?? String(levels[2])
            guard let rssi = fields.rssi else { throw PayloadError(.badReading, "no rssi") }
            let reading = try Dialect.validated(Reading(id: id, mac: fields.mac, rssi: rssi, tx: fields.rssiAt1m,
                                                         t: arrival, kind: ReadingKind(id: id)))
            return (String(levels[3]), reading)
        case .theengs:
            // <base>/<gateway>/BTtoMQTT/<MAC>: the gateway is the node.
            guard levels.count >= 3, levels[levels.count - 2] == "BTtoMQTT" else {
                throw PayloadError(.malformed, "not a BTtoMQTT topic: \(topic)")
            }
            let gateway = levels.count >= 3 ? String(levels[levels.count - 3]) : ""
            let mac = (fields.id ?? String(levels[levels.count - 1])).lowercased()
            guard let rssi = fields.rssi else { throw PayloadError(.badReading, "no rssi") }
            let id: String, kind: ReadingKind
            if let uuid = fields.uuid, let major = fields.major, let minor = fields.minor {
                id = "iBeacon:\(uuid.lowercased())-\(major)-\(minor)"; kind = .ibeacon
            } else {
                id = "mac:\(mac)"; kind = .mac
            }
            let reading = try Dialect.validated(Reading(id: id, mac: mac, rssi: rssi, tx: fields.txPower, t: arrival, kind: kind))
            return (gateway, reading)
        }
    }

    public func reading(topic: String, payload: [UInt8], arrival: Double) throws(PayloadError) -> (node: String, reading: Reading) {
        let result = payload.withUnsafeBytes { raw in
            Result { () throws(PayloadError) -> (node: String, reading: Reading) in
                try reading(topic: topic, payload: raw, arrival: arrival)
            }
        }
        return try result.get()
    }

    private static func validated(_ r: Reading) throws(PayloadError) -> Reading {
        guard Reading.isValidId(r.id) else {
            throw PayloadError(.badReading, "the id is empty, over \(Reading.maxIdBytes) bytes, or not ASCII without control characters")
        }
        guard Batch.rssiRange.contains(Int64(r.rssi)) else { throw PayloadError(.badReading, "rssi out of range") }
        return r
    }
}

extension ReadingKind {
    /// The kind an id's spelling implies (`iBeacon:…` → ibeacon, …, else mac).
    public init(id: String) {
        if id.hasPrefix("iBeacon:") { self = .ibeacon }
        else if id.hasPrefix("altBeacon:") { self = .altbeacon }
        else if id.hasPrefix("eddystone:") { self = .eddystone }
        else if id.hasPrefix("irk:") { self = .irk }
        else { self = .mac }
    }
}

/// The fields both dialects use; anything else in their payloads is skipped.
private struct DialectFields {
    var id: String?, mac: String?, uuid: String?
    var rssi: Int?, rssiAt1m: Int?, txPower: Int?, major: Int?, minor: Int?

    static func decode(_ payload: UnsafeRawBufferPointer) throws(PayloadError) -> DialectFields {
        guard payload.count <= 64 * 1024 else { throw PayloadError(.oversized, "payload of \(payload.count) bytes") }
        var f = DialectFields()
        var s = JSONScanner(payload)
        do throws(JSONError) {
            try s.object { (s: inout JSONScanner, key) throws(JSONError) in
                if keyEquals(key, "id") { f.id = try s.string() }
                else if keyEquals(key, "mac") { f.mac = try s.string() }
                else if keyEquals(key, "uuid") { f.uuid = try s.string() }
                else if keyEquals(key, "rssi") { f.rssi = Int(try s.integer()) }
                else if keyEquals(key, "rssi@1m") { f.rssiAt1m = Int(try s.integer()) }
                else if keyEquals(key, "txpower") { f.txPower = Int(try s.integer()) }
                else if keyEquals(key, "major") { f.major = Int(try s.integer()) }
                else if keyEquals(key, "minor") { f.minor = Int(try s.integer()) }
                else { try s.skipValue() }
            }
        } catch {
            throw PayloadError(.malformed, error.description)
        }
        return f
    }
}
