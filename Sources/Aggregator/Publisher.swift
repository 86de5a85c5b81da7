import MQTT
import Positioning
import Wire

/// Turns engine output into the messages of SPEC §2, aggregator → subscribers.
///
/// Pure formatting: it keeps only what it needs to publish a room topic on change and to
/// look up display names. One JSON writer is reused for every payload.
struct Publisher {
    let topics: Topics
    private var writer = JSONWriter(capacity: 512)
    /// Per device: the room last published and its topics, built once rather than per update.
    private var devices: [String: DeviceTopics] = [:]
    private let zoneNames: [String: String]
    private let zoneFloors: [String: String]

    init(site: Site, topics: Topics) {
        self.topics = topics
        var names: [String: String] = [:], floors: [String: String] = [:]
        for floor in site.floors {
            for room in floor.rooms { names[room.id] = room.name; floors[room.id] = floor.id }
        }
        for zone in site.zones { names[zone.id] = zone.name; floors[zone.id] = zone.floor }
        zoneNames = names
        zoneFloors = floors
    }

    /// Every room and zone id of the site, in file order.
    static func zoneIds(of site: Site) -> [String] {
        site.floors.flatMap { $0.rooms.map(\.id) } + site.zones.map(\.id)
    }

    /// `devices/<id>/room` when the room changed, then `devices/<id>/state` (always last).
    mutating func update(_ u: DeviceUpdate, into out: inout [MQTTMessage]) {
        // A device the engine has not placed in a room yet is not `away`: say nothing until it is.
        if u.room == nil && devices[u.id] == nil { return }
        let room = u.room ?? "away"
        var device = devices[u.id] ?? DeviceTopics(room: nil, roomTopic: topics.deviceRoom(u.id), stateTopic: topics.deviceState(u.id),
                                                   statePrefix: Self.statePrefix(u))
        if device.room != room {
            device.room = room
            devices[u.id] = device
            out.append(MQTTMessage(topic: device.roomTopic, payload: Array(room.utf8), qos: .atLeastOnce, retain: true))
        }
        writer.reset()
        // `{"id":…,"name":…,"room":` is the same for every update of a device: kept, not rewritten.
        writer.appendKeyed(device.statePrefix)
        writer.value(room)
        writer.key(literal: "floor"); if let floor = u.floor { writer.value(floor) } else { writer.null() }
        writer.key(literal: "zones"); writer.arrayStart(); for z in u.zones { writer.value(z) }; writer.arrayEnd()
        writer.key(literal: "x"); writer.value(u.x, decimals: 2)
        writer.key(literal: "y"); writer.value(u.y, decimals: 2)
        writer.key(literal: "z"); writer.value(u.z, decimals: 2)
        writer.key(literal: "confidence"); writer.value(u.confidence, decimals: 2)
        writer.key(literal: "fixes"); writer.value(u.fixes)
        writer.key(literal: "t"); writer.time(u.t)
        writer.key(literal: "since"); writer.time(u.since)
        writer.key(literal: "nearest")
        if let n = u.nearest {
            writer.objectStart()
            writer.key(literal: "node"); writer.value(n.node)
            writer.key(literal: "distance"); writer.value(n.distance, decimals: 2)
            writer.key(literal: "proximity"); writer.value(n.proximity.rawValue)
            writer.objectEnd()
        } else {
            writer.null()
        }
        writer.objectEnd()
        out.append(MQTTMessage(topic: device.stateTopic, payload: writer.bytes, qos: .atLeastOnce, retain: true))
    }

    /// `{"id":"<id>","name":<name or null>,"room":` of a device's state payload.
    private static func statePrefix(_ u: DeviceUpdate) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.objectStart()
        w.field("id", u.id)
        w.key("name"); if let name = u.name { w.value(name) } else { w.null() }
        w.key("room")
        return w.bytes
    }

    /// Drops a forgotten device's topics. Its retained `away` room stays on the broker.
    mutating func forget(_ id: String) { devices.removeValue(forKey: id) }

    /// Makes the next update of every device publish its room topic again.
    mutating func forgetRooms() {
        devices = devices.mapValues { DeviceTopics(room: nil, roomTopic: $0.roomTopic, stateTopic: $0.stateTopic, statePrefix: $0.statePrefix) }
    }

    /// `zones/<zone>/events`.
    mutating func event(_ e: ZoneEvent) -> MQTTMessage {
        writer.reset()
        writer.objectStart()
        writer.field("type", e.type.rawValue)
        writer.field("device", e.device)
        writer.field("zone", e.zone)
        writer.key("floor"); if let f = e.floor ?? zoneFloors[e.zone] { writer.value(f) } else { writer.null() }
        writer.key("t"); writer.time(e.t)
        writer.field("confidence", e.confidence, decimals: 2)
        if let dwell = e.dwell { writer.field("dwell", dwell, decimals: 1) }
        writer.objectEnd()
        return MQTTMessage(topic: topics.zoneEvents(e.zone), payload: writer.bytes, qos: .atLeastOnce, retain: false)
    }

    /// `zones/<zone>/occupancy`.
    mutating func occupancy(zone: String, devices: [String], t: Double) -> MQTTMessage {
        writer.reset()
        writer.objectStart()
        writer.field("count", devices.count)
        writer.key("devices"); writer.arrayStart(); for d in devices { writer.value(d) }; writer.arrayEnd()
        writer.key("t"); writer.time(t)
        writer.objectEnd()
        return MQTTMessage(topic: topics.zoneOccupancy(zone), payload: writer.bytes, qos: .atLeastOnce, retain: true)
    }

    /// Home Assistant discovery for a named device (a `device_tracker`) and each zone's count.
    mutating func discovery(site: Site) -> [MQTTMessage] {
        var out: [MQTTMessage] = []
        for device in site.devices {
            guard let name = device.name, !device.id.contains("*") else { continue }
            writer.reset()
            writer.objectStart()
            writer.field("name", name)
            writer.field("unique_id", "whereabouts_" + Topics.slug(device.id))
            writer.field("state_topic", topics.deviceRoom(device.id))
            writer.field("json_attributes_topic", topics.deviceState(device.id))
            writer.field("payload_not_home", "away")
            writer.field("source_type", "bluetooth_le")
            availability()
            writer.objectEnd()
            out.append(MQTTMessage(topic: Topics.homeAssistantTracker(device.id), payload: writer.bytes, qos: .atLeastOnce, retain: true))
        }
        for zone in Publisher.zoneIds(of: site) {
            writer.reset()
            writer.objectStart()
            writer.field("name", "\(zoneNames[zone] ?? zone) occupancy")
            writer.field("unique_id", "whereabouts_\(Topics.slug(zone))_occupancy")
            writer.field("state_topic", topics.zoneOccupancy(zone))
            writer.field("value_template", "{{ value_json.count }}")
            writer.field("state_class", "measurement")
            writer.field("unit_of_measurement", "devices")
            availability()
            writer.objectEnd()
            out.append(MQTTMessage(topic: Topics.homeAssistantOccupancy(zone), payload: writer.bytes, qos: .atLeastOnce, retain: true))
        }
        return out
    }

    private mutating func availability() {
        writer.field("availability_topic", topics.aggregatorStatus)
        writer.field("payload_available", "online")
        writer.field("payload_not_available", "offline")
    }
}

/// A device's room as last published (nil: publish it with the next update) and its topics.
private struct DeviceTopics {
    var room: String?
    let roomTopic: String
    let stateTopic: String
    let statePrefix: [UInt8]
}
