import MQTT
import Wire
import SiteModel

/// Home Assistant MQTT discovery: the configs the aggregator publishes (retained) at start.
///
/// Three kinds of Home Assistant device, each named by a `device` block so its entities can be
/// put in an area or removed together:
/// - the aggregator itself (a connectivity `binary_sensor` from `<p>/aggregator/status`), which
///   every other device names as its `via_device`;
/// - the site, holding each room's and zone's occupancy count and `occupied` binary sensor;
/// - each named device of the site file: a `device_tracker` that is `home` or `not_home` (the
///   site is home; `away` is not home), so `person`, `zone.home` and presence automations work;
///   a room sensor whose state is the room's name (or `Away`); a floor sensor on sites of more
///   than one floor; and diagnostic sensors (x, y, z, confidence, nearest node, its distance,
///   room since), disabled until the user enables them.
///
/// The tracker and the room sensor read the retained room topic, which changes only when the
/// room does: Home Assistant records a state change only then. Nothing volatile is an
/// attribute of them (each attribute change is a recorded state change). Presence, rooms and
/// occupancy carry no availability: their retained values stay true across an aggregator
/// restart, and marking them unavailable for it would make a person `unknown` and then `home`
/// again (a false "arrived home"). Whether the figures are current is the aggregator's
/// connectivity sensor's to say; the diagnostic sensors go unavailable with it.
struct Discovery {
    let site: Site
    let topics: Topics
    /// The aggregator's version, for the `device` and `origin` blocks.
    let version: String
    private var writer = JSONWriter(capacity: 1024)

    init(site: Site, topics: Topics, version: String) {
        self.site = site
        self.topics = topics
        self.version = version
    }

    /// Every discovery config, retained, QoS 1.
    mutating func messages() -> [MQTTMessage] {
        var out = [aggregatorStatus()]
        let devices = Self.discoveredDevices(site)
        let objects = Topics.discoveryObjectIDs(devices.map(\.id))
        for device in devices {
            guard let object = objects[device.id] else { continue }
            out += deviceEntities(device, object: object)
        }
        let zones = Publisher.zoneIds(of: site)
        let zoneObjects = Topics.discoveryObjectIDs(zones)
        for zone in zones {
            guard let object = zoneObjects[zone] else { continue }
            out += zoneEntities(zone, object: object)
        }
        return out
    }

    /// The site's devices that get entities: those with a name, not a wildcard.
    static func discoveredDevices(_ site: Site) -> [DeviceConfig] {
        site.devices.filter { $0.name != nil && !$0.id.contains("*") }
    }

    // MARK: - Identifiers

    /// `whereabouts` for the default prefix, else `whereabouts_<prefix slug>`: two aggregators
    /// with their own prefixes on one broker get their own aggregator and site devices.
    private var namespace: String {
        topics.prefix == "whereabouts" ? "whereabouts" : "whereabouts_" + Topics.slug(topics.prefix)
    }
    var aggregatorIdentifier: String { namespace + "_aggregator" }
    var siteIdentifier: String { namespace + "_site" }

    /// What kind of frame a device id names (its `model` in Home Assistant).
    static func model(of id: String) -> String {
        switch id.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "" {
        case "iBeacon": "iBeacon"
        case "altBeacon": "AltBeacon"
        case "eddystone": "Eddystone"
        case "irk": "Phone (resolvable address)"
        case "mac": "Fixed address"
        default: "Bluetooth device"
        }
    }

    // MARK: - Entities

    private mutating func aggregatorStatus() -> MQTTMessage {
        begin(name: "Status", uniqueID: aggregatorIdentifier + "_status")
        writer.field("state_topic", topics.aggregatorStatus)
        writer.field("payload_on", "online")
        writer.field("payload_off", "offline")
        writer.field("device_class", "connectivity")
        writer.field("entity_category", "diagnostic")
        deviceBlock(identifier: aggregatorIdentifier, name: "Whereabouts aggregator", model: "Aggregator", via: nil)
        return end("homeassistant/binary_sensor/\(aggregatorIdentifier)/config")
    }

    private mutating func deviceEntities(_ device: DeviceConfig, object: String) -> [MQTTMessage] {
        let name = device.name ?? device.id
        let block = (identifier: "whereabouts_" + object, name: name, model: Self.model(of: device.id))
        var out: [MQTTMessage] = []

        begin(name: nil, uniqueID: "whereabouts_" + object)
        writer.field("state_topic", topics.deviceRoom(device.id))
        writer.field("value_template", "{{ 'not_home' if value == 'away' else 'home' }}")
        writer.field("source_type", "bluetooth_le")
        if site.gps != nil {
            // On Home Assistant's map: the position as GPS coordinates, the state still home.
            writer.field("json_attributes_topic", topics.deviceState(device.id))
            writer.field("json_attributes_template",
                         "{{ {'latitude': value_json.latitude, 'longitude': value_json.longitude} | tojson"
                             + " if value_json.latitude is defined and value_json.latitude is not none else '{}' }}")
        }
        deviceBlock(block)
        out.append(end(Topics.homeAssistantTracker(objectID: object)))

        let rooms = roomNames()
        begin(name: "Room", uniqueID: "whereabouts_\(object)_room")
        writer.field("state_topic", topics.deviceRoom(device.id))
        writer.field("value_template", "{% set n = \(Self.dictionary(rooms.byID + [("away", "Away")])) %}{{ n[value] if value in n else 'Unknown' }}")
        writer.field("device_class", "enum")
        // `Unknown`: a room id the site no longer names (retained from before a site change,
        // until the device is placed again); an enum sensor refuses a state outside its options.
        options(Self.unique(rooms.names + ["Away", "Unknown"]))
        writer.field("icon", "mdi:map-marker-radius")
        deviceBlock(block)
        out.append(end(Topics.homeAssistantRoom(objectID: object)))

        if site.floors.count > 1 {
            let floors = site.floors.map { ($0.id, $0.name) }
            begin(name: "Floor", uniqueID: "whereabouts_\(object)_floor")
            writer.field("state_topic", topics.deviceState(device.id))
            writer.field("value_template", "{% set n = \(Self.dictionary(floors)) %}{% set f = value_json.floor %}"
                             + "{{ 'Away' if f is none else (n[f] if f in n else 'Unknown') }}")
            writer.field("device_class", "enum")
            options(Self.unique(floors.map(\.1) + ["Away", "Unknown"]))
            writer.field("icon", "mdi:home-floor-1")
            deviceBlock(block)
            out.append(end("homeassistant/sensor/whereabouts_\(object)_floor/config"))
        }
        for d in Self.diagnostics {
            begin(name: d.name, uniqueID: "whereabouts_\(object)_\(d.key)")
            writer.field("state_topic", topics.deviceState(device.id))
            writer.field("value_template", "{% set v = value_json\(d.path) %}{{ 'None' if v is none else v }}")
            if let unit = d.unit { writer.field("unit_of_measurement", unit) }
            if let deviceClass = d.deviceClass { writer.field("device_class", deviceClass) }
            if d.measurement { writer.field("state_class", "measurement") }
            writer.field("entity_category", "diagnostic")
            writer.field("enabled_by_default", false)
            availability()
            deviceBlock(block)
            out.append(end("homeassistant/sensor/whereabouts_\(object)_\(d.key)/config"))
        }
        return out
    }

    /// A diagnostic sensor of each named device: where in the state payload, and how shown.
    private struct Diagnostic {
        let key: String, name: String, path: String
        var unit: String? = nil
        var deviceClass: String? = nil
        var measurement = true
    }

    private static let diagnostics = [
        Diagnostic(key: "x", name: "X", path: ".x", unit: "m"),
        Diagnostic(key: "y", name: "Y", path: ".y", unit: "m"),
        Diagnostic(key: "z", name: "Z", path: ".z", unit: "m"),
        Diagnostic(key: "confidence", name: "Confidence", path: ".confidence"),
        Diagnostic(key: "nearest", name: "Nearest node", path: ".nearest.node", measurement: false),
        Diagnostic(key: "distance", name: "Nearest node distance", path: ".nearest.distance", unit: "m", deviceClass: "distance"),
        Diagnostic(key: "since", name: "Room since", path: ".since_iso", deviceClass: "timestamp", measurement: false),
    ]

    private mutating func zoneEntities(_ zone: String, object: String) -> [MQTTMessage] {
        let name = zoneName(zone)
        let topic = topics.zoneOccupancy(zone)
        begin(name: "\(name) occupancy", uniqueID: "whereabouts_\(object)_occupancy")
        writer.field("state_topic", topic)
        writer.field("value_template", "{{ value_json.count }}")
        writer.field("state_class", "measurement")
        writer.field("unit_of_measurement", "devices")
        writer.field("icon", "mdi:account-multiple")
        // Who is inside, by id and by name; not `t`, which would make every re-publication a
        // recorded change.
        writer.field("json_attributes_topic", topic)
        let names = Self.discoveredDevices(site).map { ($0.id, $0.name ?? $0.id) }
        writer.field("json_attributes_template",
                     "{% set n = \(Self.dictionary(names)) %}{% set ns = namespace(names=[]) %}"
                         + "{% for d in value_json.devices %}{% set ns.names = ns.names + [n.get(d, d)] %}{% endfor %}"
                         + "{{ {'devices': value_json.devices, 'names': ns.names} | tojson }}")
        siteBlock()
        let occupancy = end(Topics.homeAssistantOccupancy(objectID: object))

        begin(name: "\(name) occupied", uniqueID: "whereabouts_\(object)_occupied")
        writer.field("state_topic", topic)
        writer.field("value_template", "{{ 'ON' if value_json.count > 0 else 'OFF' }}")
        writer.field("device_class", "occupancy")
        siteBlock()
        return [occupancy, end(Topics.homeAssistantOccupied(objectID: object))]
    }

    // MARK: - Pieces

    private func zoneName(_ zone: String) -> String {
        for floor in site.floors { if let room = floor.rooms.first(where: { $0.id == zone }) { return room.name } }
        return site.zones.first { $0.id == zone }?.name ?? zone
    }

    /// Every room's id and name, and the names once each, in file order.
    private func roomNames() -> (byID: [(String, String)], names: [String]) {
        let byID = site.floors.flatMap { $0.rooms.map { ($0.id, $0.name) } }
        return (byID, Self.unique(byID.map(\.1)))
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// A Jinja dictionary literal: a JSON object, whose strings Jinja reads the same.
    static func dictionary(_ pairs: [(String, String)]) -> String {
        var w = JSONWriter(capacity: 256)
        w.objectStart()
        for (k, v) in pairs { w.field(k, v) }
        w.objectEnd()
        return w.string
    }

    private mutating func begin(name: String?, uniqueID: String) {
        writer.reset()
        writer.objectStart()
        writer.key("name"); if let name { writer.value(name) } else { writer.null() }
        writer.field("unique_id", uniqueID)
    }

    private mutating func end(_ topic: String) -> MQTTMessage {
        writer.key("origin")
        writer.objectStart()
        writer.field("name", "Whereabouts")
        writer.field("sw_version", version)
        writer.objectEnd()
        writer.objectEnd()
        return MQTTMessage(topic: topic, payload: writer.bytes, qos: .atLeastOnce, retain: true)
    }

    private mutating func options(_ values: [String]) {
        writer.key("options")
        writer.arrayStart()
        for v in values { writer.value(v) }
        writer.arrayEnd()
    }

    private mutating func deviceBlock(_ d: (identifier: String, name: String, model: String)) {
        deviceBlock(identifier: d.identifier, name: d.name, model: d.model, via: aggregatorIdentifier)
    }

    private mutating func siteBlock() {
        deviceBlock(identifier: siteIdentifier, name: "Whereabouts site", model: "Site", via: aggregatorIdentifier)
    }

    private mutating func deviceBlock(identifier: String, name: String, model: String, via: String?) {
        writer.key("device")
        writer.objectStart()
        writer.key("identifiers"); writer.arrayStart(); writer.value(identifier); writer.arrayEnd()
        writer.field("name", name)
        writer.field("manufacturer", "Whereabouts")
        writer.field("model", model)
        writer.field("sw_version", version)
        if let via { writer.field("via_device", via) }
        writer.objectEnd()
    }

    private mutating func availability() {
        writer.field("availability_topic", topics.aggregatorStatus)
        writer.field("payload_available", "online")
        writer.field("payload_not_available", "offline")
    }
}
