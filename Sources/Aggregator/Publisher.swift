import MQTT
import Positioning
import Wire

/// Turns engine output into the messages of SPEC §2, aggregator → subscribers.
///
/// Formatting, and the state deadband (`StatePolicy`): it keeps what it needs to publish a
/// room topic on change, a device's state only when it changed enough or is due again, and
/// to look up display names. One JSON writer is reused for every payload.
struct Publisher {
    let topics: Topics
    let policy: StatePolicy
    private var writer = JSONWriter(capacity: 512)
    /// Per device: the room and state last published and its topics, built once rather than per
    /// update. Kept by the engine's index of the device (`DeviceUpdate.device`) and checked by id:
    /// a dictionary by id hashed the whole id at every update (about 900 instructions).
    private var records: [DeviceTopics] = []
    /// Each recorded device's index in `records`, for what names a device by id (forget, invalidate).
    private var indices: [String: Int] = [:]
    private let zoneNames: [String: String]
    private let zoneFloors: [String: String]
    /// Every room's and zone's events and occupancy topics, built once.
    private let zoneTopicCache: [String: (events: String, occupancy: String)]

    init(site: Site, topics: Topics) {
        self.topics = topics
        self.policy = StatePolicy(site.positioning)
        var names: [String: String] = [:], floors: [String: String] = [:]
        for floor in site.floors {
            for room in floor.rooms { names[room.id] = room.name; floors[room.id] = floor.id }
        }
        for zone in site.zones { names[zone.id] = zone.name; floors[zone.id] = zone.floor }
        zoneNames = names
        zoneFloors = floors
        var cache: [String: (events: String, occupancy: String)] = [:]
        for zone in Self.zoneIds(of: site) { cache[zone] = (topics.zoneEvents(zone), topics.zoneOccupancy(zone)) }
        zoneTopicCache = cache
    }

    /// Every room and zone id of the site, in file order.
    static func zoneIds(of site: Site) -> [String] {
        site.floors.flatMap { $0.rooms.map(\.id) } + site.zones.map(\.id)
    }

    /// What `update` did with a device's state.
    enum StateOutcome: Equatable {
        /// The state message was appended.
        case published
        /// The deadband left it out: nothing a consumer acts on changed, no heartbeat due.
        case suppressed
        /// Nothing: the engine has not placed the device in a room yet.
        case unplaced
    }

    /// `devices/<id>/room` when the room changed, then `devices/<id>/state` (always last) when
    /// `policy` says the update is worth it.
    @discardableResult
    mutating func update(_ u: DeviceUpdate, into out: inout [MQTTMessage]) -> StateOutcome {
        let room = u.room ?? "away"
        // In place through the index: a device already known costs no copy of its record and
        // no allocation here.
        let index: Int
        if let i = recordIndex(u) {
            index = i
        } else {
            // A device the engine has not placed in a room yet is not `away`: say nothing until it is.
            if u.room == nil { return .unplaced }
            index = record(u)
        }
        // One in-place access decides both topics (reading `records[index]` copies the whole
        // record, its topics' references included, and three such reads cost more than the
        // decision itself).
        let (roomChanged, publish) = Self.take(u, room: room, policy: policy, into: &records[index])
        if roomChanged {
            out.append(MQTTMessage(topic: records[index].roomTopic, payload: Array(room.utf8), qos: .atLeastOnce, retain: true))
        }
        guard publish else { return .suppressed }
        let device = records[index]
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
        return .published
    }

    /// Records `u` in its device's record: whether its room topic and its state are due (the
    /// state as `policy` says), each then marked published.
    private static func take(_ u: DeviceUpdate, room: String, policy: StatePolicy, into device: inout DeviceTopics)
        -> (roomChanged: Bool, publish: Bool) {
        let roomChanged = device.room != room
        if roomChanged { device.room = room }
        if let last = device.published, !policy.publishes(u, room: room, after: last) { return (roomChanged, false) }
        device.published = PublishedState(u, room: room)
        return (roomChanged, true)
    }

    /// Where `u`'s device is recorded, if it is.
    private func recordIndex(_ u: DeviceUpdate) -> Int? {
        guard u.device >= 0 else { return indices[u.id] }
        return u.device < records.count && records[u.device].id == u.id ? u.device : nil
    }

    /// Records `u`'s device (at its engine index; after the others for an update no engine made),
    /// replacing what was recorded there.
    private mutating func record(_ u: DeviceUpdate) -> Int {
        let index = u.device >= 0 ? u.device : records.count
        if index >= records.count { records.append(contentsOf: repeatElement(DeviceTopics(), count: index + 1 - records.count)) }
        if let old = records[index].id { indices.removeValue(forKey: old) }
        if let previous = indices[u.id] { records[previous] = DeviceTopics() }
        records[index] = DeviceTopics(id: u.id, roomTopic: topics.deviceRoom(u.id), stateTopic: topics.deviceState(u.id),
                                      statePrefix: Self.statePrefix(u))
        indices[u.id] = index
        return index
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

    /// Drops a forgotten device's topics and the state last published for it. Its retained
    /// `away` room stays on the broker.
    mutating func forget(_ id: String) {
        if let i = indices.removeValue(forKey: id) { records[i] = DeviceTopics() }
    }

    /// Makes the next update of every device publish its room topic and its state again.
    mutating func forgetRooms() {
        for i in records.indices {
            records[i].room = nil
            records[i].published = nil
        }
    }

    /// Forgets the state last published for `id` (it was dropped before reaching the broker):
    /// the device's next update is published.
    mutating func invalidate(_ id: String) {
        if let i = indices[id] { records[i].published = nil }
    }

    /// Devices whose topics and last published state are kept (for tests: forgetting frees them).
    var deviceCount: Int { indices.count }

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
        return MQTTMessage(topic: zoneTopics(e.zone).events, payload: writer.bytes, qos: .atLeastOnce, retain: false)
    }

    /// `zones/<zone>/occupancy` whose `count` devices are given as the JSON array's body
    /// (`"a","b"`, `Occupancy.body(of:)`): copied whole, not written id by id.
    mutating func occupancy(zone: String, count: Int, devices body: [UInt8], t: Double) -> MQTTMessage {
        writer.reset()
        writer.objectStart()
        writer.field("count", count)
        writer.key("devices"); writer.arrayStart(); if !body.isEmpty { writer.raw(body) }; writer.arrayEnd()
        writer.key("t"); writer.time(t)
        writer.objectEnd()
        return MQTTMessage(topic: zoneTopics(zone).occupancy, payload: writer.bytes, qos: .atLeastOnce, retain: true)
    }

    /// A zone's events and occupancy topics: the site's made once, any other zone (a visit a
    /// crash left open in a zone the site no longer names) each time.
    private func zoneTopics(_ zone: String) -> (events: String, occupancy: String) {
        zoneTopicCache[zone] ?? (topics.zoneEvents(zone), topics.zoneOccupancy(zone))
    }

    /// Home Assistant discovery for a named device (a `device_tracker`) and each zone's count.
    mutating func discovery(site: Site) -> [MQTTMessage] {
        var out: [MQTTMessage] = []
        let devices = site.devices.filter { $0.name != nil && !$0.id.contains("*") }
        let deviceObjects = Topics.discoveryObjectIDs(devices.map(\.id))
        for device in devices {
            guard let name = device.name, let object = deviceObjects[device.id] else { continue }
            writer.reset()
            writer.objectStart()
            writer.field("name", name)
            writer.field("unique_id", "whereabouts_" + object)
            writer.field("state_topic", topics.deviceRoom(device.id))
            writer.field("json_attributes_topic", topics.deviceState(device.id))
            writer.field("payload_not_home", "away")
            writer.field("source_type", "bluetooth_le")
            availability()
            writer.objectEnd()
            out.append(MQTTMessage(topic: Topics.homeAssistantTracker(objectID: object), payload: writer.bytes, qos: .atLeastOnce, retain: true))
        }
        let zones = Publisher.zoneIds(of: site)
        let zoneObjects = Topics.discoveryObjectIDs(zones)
        for zone in zones {
            guard let object = zoneObjects[zone] else { continue }
            writer.reset()
            writer.objectStart()
            writer.field("name", "\(zoneNames[zone] ?? zone) occupancy")
            writer.field("unique_id", "whereabouts_\(object)_occupancy")
            writer.field("state_topic", topics.zoneOccupancy(zone))
            writer.field("value_template", "{{ value_json.count }}")
            writer.field("state_class", "measurement")
            writer.field("unit_of_measurement", "devices")
            availability()
            writer.objectEnd()
            out.append(MQTTMessage(topic: Topics.homeAssistantOccupancy(objectID: object), payload: writer.bytes, qos: .atLeastOnce, retain: true))
        }
        return out
    }

    private mutating func availability() {
        writer.field("availability_topic", topics.aggregatorStatus)
        writer.field("payload_available", "online")
        writer.field("payload_not_available", "offline")
    }
}

/// A device's room and state as last published (nil: publish with the next update) and its
/// topics; a free record has no `id`.
private struct DeviceTopics {
    var id: String?
    var room: String?
    var published: PublishedState?
    var roomTopic = ""
    var stateTopic = ""
    var statePrefix: [UInt8] = []
}

/// What a consumer of `devices/<id>/state` would notice, as last published for a device.
struct PublishedState {
    var room: String
    var floor: String?
    var zones: [String]
    var nearest: String?
    var proximity: Proximity?
    var x: Double, y: Double
    var confidence: Double
    var t: Double

    /// `room` is the room as published (`away` when the update has none). Keeps references to
    /// the update's strings and zone array: no allocation.
    init(_ u: DeviceUpdate, room: String) {
        self.room = room
        floor = u.floor
        zones = u.zones
        nearest = u.nearest?.node
        proximity = u.nearest?.proximity
        x = u.x; y = u.y
        confidence = u.confidence
        t = u.t
    }
}

/// When a device's state is published again (SPEC §2 fixes no cadence): the deadband of the
/// site's `positioning.state_deadband` and `state_heartbeat`.
///
/// The engine makes an update about every `updateInterval` (0.5 s) for each device it solves,
/// still or not; most tags lie still, and their fixes wander within the positioning's scatter. A state message
/// is QoS 1 and retained, so each costs the broker a store and every subscriber (Home
/// Assistant's recorder writes each attribute change) a message. The policy publishes at once
/// what a consumer acts on (room, away/back, floor, zones, the nearest node's proximity class
/// with hysteresis, a confidence step) and a move of `deadband` metres or more; otherwise only a heartbeat every
/// `heartbeat` seconds of event time keeps `t` fresh. Positions, rooms, zone events and the
/// SQLite tracks do not depend on it: they are made before it, from every update.
struct StatePolicy: Sendable, Equatable {
    /// Metres on the floor plan (x and y; a floor change publishes through `floor`). 0: every update.
    var deadband: Double
    /// Seconds of event time. 0: every update.
    var heartbeat: Double
    /// A change of confidence this large publishes (it is published with two decimals).
    static let confidenceStep = 0.15

    init(deadband: Double, heartbeat: Double) {
        self.deadband = deadband
        self.heartbeat = heartbeat
    }

    init(_ settings: PositioningSettings) {
        self.init(deadband: settings.stateDeadband, heartbeat: settings.stateHeartbeat)
    }

    /// Whether update `u`, whose published room is `room`, is worth a state message after `last`.
    func publishes(_ u: DeviceUpdate, room: String, after last: PublishedState) -> Bool {
        if deadband <= 0 || heartbeat <= 0 { return true }
        // Heartbeat, either way: a clock that stepped back does not silence a device.
        // Comparisons written so that a NaN publishes rather than silences.
        if !(abs(u.t - last.t) < heartbeat) { return true }
        if room != last.room || u.floor != last.floor { return true }
        if (u.nearest?.node != last.nearest || u.nearest?.proximity != last.proximity) && Self.nearestChanged(u.nearest, from: last) {
            return true
        }
        if !(abs(u.confidence - last.confidence) < Self.confidenceStep) { return true }
        let dx = u.x - last.x, dy = u.y - last.y
        if !(dx * dx + dy * dy < deadband * deadband) { return true }
        return u.zones != last.zones
    }

    /// The published proximity class is left at once only this far outside it (distance × or
    /// ÷ 1.25 beyond its bounds: `immediate` from 0.625 m, `near` below 0.4 or from 3.75 m,
    /// `far` below 2.4 m).
    static let proximityMargin = 1.25

    /// Whether the nearest node or its proximity changed enough to publish before the deadband
    /// or the heartbeat would. Both come from the strongest reading of the window (SPEC §2, as
    /// iOS ranging reports it), not from the fix: a tag between two nodes, or 3 m from one,
    /// flips between them on every few dB of noise. So the class is taken as changed only when
    /// the distance lies well outside the class last published, and another node at the same
    /// class waits for the device to move or for the heartbeat; gaining or losing a nearest node,
    /// or its distance becoming unknown, is a change.
    static func nearestChanged(_ nearest: NodeRange?, from last: PublishedState) -> Bool {
        guard let n = nearest, let lastProximity = last.proximity else { return (nearest == nil) != (last.proximity == nil) }
        guard n.proximity != lastProximity else { return false }
        let d = n.distance
        switch lastProximity {
        case .immediate: return !(d < 0.5 * proximityMargin)
        case .near: return !(d >= 0.5 / proximityMargin && d < 3 * proximityMargin)
        case .far: return !(d >= 3 / proximityMargin)
        case .unknown: return true
        }
    }
}
