import Foundation
import MQTT
import Positioning
import Wire
import SiteModel

/// Turns engine output into the messages of docs/protocol.md#mqtt-topics-and-payloads, aggregator → subscribers.
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
    private let occupancyTopics: Topics
    private let zoneNames: [String: String]
    private let zoneFloors: [String: String]
    /// Every room's and zone's events and occupancy topics, built once.
    private let zoneTopicCache: [String: (events: String, occupancy: String)]
    /// The site's GPS anchor as factors, when it reports positions as coordinates.
    private let gps: GPSProjection?

    /// `occupancyTopics`: where zone occupancy goes (a shard's own share under `<p>/shards/<I>`).
    init(site: Site, topics: Topics, occupancyTopics: Topics? = nil) {
        self.topics = topics
        self.occupancyTopics = occupancyTopics ?? topics
        self.policy = StatePolicy(site.positioning)
        var names: [String: String] = [:], floors: [String: String] = [:]
        for floor in site.floors {
            for room in floor.rooms { names[room.id] = room.name; floors[room.id] = floor.id }
        }
        for zone in site.zones { names[zone.id] = zone.name; floors[zone.id] = zone.floor }
        zoneNames = names
        zoneFloors = floors
        var cache: [String: (events: String, occupancy: String)] = [:]
        for zone in Self.zoneIds(of: site) { cache[zone] = (topics.zoneEvents(zone), self.occupancyTopics.zoneOccupancy(zone)) }
        zoneTopicCache = cache
        gps = site.gps.map(GPSProjection.init)
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
        if records[index].sinceTime != u.since {
            // `since` moves only with the room: formatted then, not at every update.
            records[index].sinceTime = u.since
            records[index].sinceISO = Self.iso8601(u.since)
        }
        let device = records[index]
        writeState(u, room: room, prefix: device.statePrefix, sinceISO: device.sinceISO)
        out.append(MQTTMessage(topic: device.stateTopic, payload: writer.bytes, qos: .atLeastOnce, retain: true))
        return .published
    }

    /// `u`'s state payload into `writer`.
    private mutating func writeState(_ u: DeviceUpdate, room: String, prefix: [UInt8], sinceISO: String) {
        writer.reset()
        // `{"id":…,"name":…,"room":` is the same for every update of a device: kept, not rewritten.
        writer.appendKeyed(prefix)
        writer.value(room)
        writer.key(literal: "floor"); if let floor = u.floor { writer.value(floor) } else { writer.null() }
        writer.key(literal: "zones"); writer.arrayStart(); for z in u.zones { writer.value(z) }; writer.arrayEnd()
        // An away device has no position: its last one, repeated, would read as current.
        let away = u.room == nil
        writer.key(literal: "x"); if away { writer.null() } else { writer.value(u.x, decimals: 2) }
        writer.key(literal: "y"); if away { writer.null() } else { writer.value(u.y, decimals: 2) }
        writer.key(literal: "z"); if away { writer.null() } else { writer.value(u.z, decimals: 2) }
        writer.key(literal: "confidence"); writer.value(u.confidence, decimals: 2)
        writer.key(literal: "fixes"); writer.value(u.fixes)
        writer.key(literal: "t"); writer.time(u.t)
        writer.key(literal: "since"); writer.time(u.since)
        // The same instant for Home Assistant, which shows a timestamp sensor from ISO 8601.
        writer.key(literal: "since_iso"); writer.value(sinceISO)
        if let gps {
            let position = away ? nil : gps.coordinates(x: u.x, y: u.y)
            writer.key(literal: "latitude"); if let p = position { writer.value(p.latitude, decimals: 7) } else { writer.null() }
            writer.key(literal: "longitude"); if let p = position { writer.value(p.longitude, decimals: 7) } else { writer.null() }
        }
        // No node heard it (away): the `unknown` proximity of docs/protocol.md#device-state, as iOS ranging says it.
        writer.key(literal: "nearest")
        writer.objectStart()
        writer.key(literal: "node"); if let n = u.nearest { writer.value(n.node) } else { writer.null() }
        writer.key(literal: "distance"); if let n = u.nearest { writer.value(n.distance, decimals: 2) } else { writer.null() }
        writer.key(literal: "proximity"); writer.value((u.nearest?.proximity ?? .unknown).rawValue)
        writer.objectEnd()
        writer.objectEnd()
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

    /// `2026-12-01T21:30:00Z`: Unix seconds as ISO 8601, in UTC, to the second.
    static func iso8601(_ t: Double) -> String {
        guard t.isFinite, t.magnitude < 1e12 else { return "" }
        return Date(timeIntervalSince1970: t.rounded(.down)).ISO8601Format()
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
    /// `late`: solved by a backfill pass after a broker outage (docs/protocol.md, zone events).
    mutating func event(_ e: ZoneEvent, late: Bool = false) -> MQTTMessage {
        writer.reset()
        writer.objectStart()
        writer.field("type", e.type.rawValue)
        writer.field("device", e.device)
        writer.field("zone", e.zone)
        writer.key("floor"); if let f = e.floor ?? zoneFloors[e.zone] { writer.value(f) } else { writer.null() }
        writer.key("t"); writer.time(e.t)
        writer.field("confidence", e.confidence, decimals: 2)
        if let dwell = e.dwell { writer.field("dwell", dwell, decimals: 1) }
        if late { writer.key("late"); writer.value(true) }
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
        zoneTopicCache[zone] ?? (topics.zoneEvents(zone), occupancyTopics.zoneOccupancy(zone))
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
    /// `since` last formatted, and its ISO 8601 form.
    var sinceTime = Double.nan
    var sinceISO = ""
}

/// Plan metres to GPS degrees near the site's anchor (an equirectangular projection: exact to
/// millimetres over a building), with the trigonometry done once.
struct GPSProjection {
    let latitude: Double, longitude: Double
    /// Metres east and north per plan metre along x and along y.
    let eastX: Double, northX: Double, eastY: Double, northY: Double
    /// Degrees per metre north, and east at the anchor's latitude.
    let degreesNorth: Double, degreesEast: Double

    init(_ anchor: GPSAnchor) {
        latitude = anchor.latitude
        longitude = anchor.longitude
        let r = anchor.rotation * .pi / 180
        // +y points at bearing r, +x 90° clockwise from it.
        eastY = sin(r); northY = cos(r)
        eastX = cos(r); northX = -sin(r)
        let metresPerDegree = 6_378_137 * Double.pi / 180
        degreesNorth = 1 / metresPerDegree
        degreesEast = 1 / (metresPerDegree * max(cos(anchor.latitude * .pi / 180), 1e-6))
    }

    func coordinates(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        let east = x * eastX + y * eastY, north = x * northX + y * northY
        return (latitude + north * degreesNorth, longitude + east * degreesEast)
    }
}
