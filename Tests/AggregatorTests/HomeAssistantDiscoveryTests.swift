import Foundation
import MQTT
import Testing
import Wire
import SiteModel
@testable import Positioning
@testable import Aggregator

// Home Assistant discovery as `make ha-test` checks it against a real Home Assistant: a tracker
// that is home / not_home, a room sensor by name, a floor sensor on two floors, disabled
// diagnostics, zone sensors on a site device, a device and an origin block on every config.

private let keys = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
private let keysObject = "ibeacon_f7826da6_4fa2_4e98_8024_bc5b71e0893e_1_42"

/// The aggregator tests' two-room floor, an upstairs with one room, a zone, the keys (named),
/// an unnamed tag and a named wildcard (neither of which gets entities).
private func twoFloorSite() -> Site {
    var site = twoRoomSite()
    var upstairs = Floor(id: "up", name: "Upstairs", bounds: (Point3(0, 0, 2.5), Point3(10, 4, 5)))
    upstairs.rooms = [Room(id: "attic", name: "Attic \"A\"", points: [Point2(0, 0), Point2(10, 0), Point2(10, 4), Point2(0, 4)])]
    site.floors.append(upstairs)
    site.zones = [Zone(id: "desk", name: "Desk", floor: "ground", points: [Point2(0, 0), Point2(1, 0), Point2(1, 1), Point2(0, 1)])]
    site.devices = [DeviceConfig(id: keys, name: "Keys"), DeviceConfig(id: "mac:aa:bb:cc:dd:ee:ff"),
                    DeviceConfig(id: "iBeacon:*", name: "Any beacon")]
    return site
}

private func configs(_ site: Site, prefix: String = "whereabouts") throws -> [String: [String: Any]] {
    var discovery = Discovery(site: site, topics: Topics(prefix: prefix), version: "9.8.7")
    var out: [String: [String: Any]] = [:]
    for m in discovery.messages() {
        #expect(m.retain && m.qos == .atLeastOnce, "\(m.topic)")
        #expect(out[m.topic] == nil, "one config per topic: \(m.topic)")
        out[m.topic] = try #require(JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any], "\(m.topic)")
    }
    return out
}

@Test func everyEntityOfTheSiteHasItsTopic() throws {
    let topics = Set(try configs(twoFloorSite()).keys)
    let device = ["device_tracker/whereabouts_\(keysObject)", "sensor/whereabouts_\(keysObject)_room",
                  "sensor/whereabouts_\(keysObject)_floor"]
        + ["x", "y", "z", "confidence", "nearest", "distance", "since"].map { "sensor/whereabouts_\(keysObject)_\($0)" }
    let zones = ["west", "east", "attic", "desk"].flatMap { ["sensor/whereabouts_\($0)_occupancy", "binary_sensor/whereabouts_\($0)_occupied"] }
    let expected = (device + zones + ["binary_sensor/whereabouts_aggregator"]).map { "homeassistant/\($0)/config" }
    #expect(topics == Set(expected))
}

@Test func everyConfigHasADeviceAndAnOrigin() throws {
    for (topic, config) in try configs(twoFloorSite()) {
        let origin = try #require(config["origin"] as? [String: Any], "\(topic)")
        #expect(origin["name"] as? String == "Whereabouts" && origin["sw_version"] as? String == "9.8.7", "\(topic)")
        let device = try #require(config["device"] as? [String: Any], "\(topic)")
        #expect(device["manufacturer"] as? String == "Whereabouts" && device["sw_version"] as? String == "9.8.7", "\(topic)")
        let identifiers = try #require(device["identifiers"] as? [String], "\(topic)")
        #expect(identifiers.count == 1, "\(topic)")
        #expect(config["unique_id"] as? String != nil, "\(topic)")
        if topic.contains("whereabouts_aggregator") {
            #expect(identifiers == ["whereabouts_aggregator"] && device["via_device"] == nil)
        } else {
            #expect(device["via_device"] as? String == "whereabouts_aggregator", "\(topic)")
        }
        if topic.contains(keysObject) {
            #expect(identifiers == ["whereabouts_\(keysObject)"] && device["name"] as? String == "Keys" && device["model"] as? String == "iBeacon")
        } else if !topic.contains("whereabouts_aggregator") {
            #expect(identifiers == ["whereabouts_site"], "\(topic): zones belong to the site")
        }
    }
}

@Test func theTrackerIsHomeOrNotHomeFromTheRoomTopicWithNoAttributes() throws {
    let tracker = try #require(try configs(twoFloorSite())["homeassistant/device_tracker/whereabouts_\(keysObject)/config"])
    #expect(tracker["state_topic"] as? String == "whereabouts/devices/\(keys)/room")
    #expect(tracker["value_template"] as? String == "{{ 'not_home' if value == 'away' else 'home' }}")
    #expect(tracker["name"] is NSNull, "the device's name is the entity's")
    #expect(tracker["unique_id"] as? String == "whereabouts_\(keysObject)", "the old tracker's unique id: the entity is kept")
    #expect(tracker["json_attributes_topic"] == nil, "no recorded attributes that change with every fix")
    #expect(tracker["availability_topic"] == nil, "an aggregator restart does not make the person unknown")
}

@Test func theRoomSensorMapsEveryRoomIdToItsName() throws {
    let room = try #require(try configs(twoFloorSite())["homeassistant/sensor/whereabouts_\(keysObject)_room/config"])
    #expect(room["device_class"] as? String == "enum")
    #expect(room["options"] as? [String] == ["West", "East", "Attic \"A\"", "Away", "Unknown"])
    let template = try #require(room["value_template"] as? String)
    #expect(template == #"{% set n = {"west":"West","east":"East","attic":"Attic \"A\"","away":"Away"} %}{{ n[value] if value in n else 'Unknown' }}"#)
    #expect(room["availability_topic"] == nil)
}

@Test func aFloorSensorOnlyOnSitesOfMoreThanOneFloor() throws {
    let floor = try #require(try configs(twoFloorSite())["homeassistant/sensor/whereabouts_\(keysObject)_floor/config"])
    #expect(floor["options"] as? [String] == ["Ground", "Upstairs", "Away", "Unknown"])
    #expect(floor["state_topic"] as? String == "whereabouts/devices/\(keys)/state")
    var one = twoFloorSite()
    one.floors.removeLast()
    #expect(try configs(one).keys.allSatisfy { !$0.hasSuffix("_floor/config") })
}

@Test func theVolatileFiguresAreDiagnosticsDisabledByDefault() throws {
    let all = try configs(twoFloorSite())
    for key in ["x", "y", "z", "confidence", "nearest", "distance", "since"] {
        let c = try #require(all["homeassistant/sensor/whereabouts_\(keysObject)_\(key)/config"])
        #expect(c["enabled_by_default"] as? Bool == false && c["entity_category"] as? String == "diagnostic", "\(key)")
        #expect(c["state_topic"] as? String == "whereabouts/devices/\(keys)/state", "\(key)")
        #expect(c["availability_topic"] as? String == "whereabouts/aggregator/status", "\(key)")
    }
    #expect(all["homeassistant/sensor/whereabouts_\(keysObject)_since/config"]?["device_class"] as? String == "timestamp")
}

@Test func zonesHaveACountWithWhoIsInsideAndAnOccupiedSensor() throws {
    let all = try configs(twoFloorSite())
    let count = try #require(all["homeassistant/sensor/whereabouts_desk_occupancy/config"])
    #expect(count["name"] as? String == "Desk occupancy" && count["unique_id"] as? String == "whereabouts_desk_occupancy")
    #expect(count["state_topic"] as? String == "whereabouts/zones/desk/occupancy" && count["json_attributes_topic"] as? String == "whereabouts/zones/desk/occupancy")
    let attributes = try #require(count["json_attributes_template"] as? String)
    #expect(attributes.contains(#"{"\#(keys)":"Keys"}"#) && !attributes.contains("value_json.t"), "\(attributes)")
    let occupied = try #require(all["homeassistant/binary_sensor/whereabouts_desk_occupied/config"])
    #expect(occupied["device_class"] as? String == "occupancy")
    #expect(occupied["value_template"] as? String == "{{ 'ON' if value_json.count > 0 else 'OFF' }}")
}

@Test func anotherPrefixGetsItsOwnAggregatorAndSiteDevices() throws {
    let all = try configs(twoFloorSite(), prefix: "flat/2")
    let status = try #require(all["homeassistant/binary_sensor/whereabouts_flat_2_aggregator/config"])
    #expect(status["state_topic"] as? String == "flat/2/aggregator/status")
    let desk = try #require(all["homeassistant/sensor/whereabouts_desk_occupancy/config"]?["device"] as? [String: Any])
    #expect(desk["identifiers"] as? [String] == ["whereabouts_flat_2_site"] && desk["via_device"] as? String == "whereabouts_flat_2_aggregator")
}

@Test func aGPSAnchoredSiteReportsCoordinatesOnTheTrackerAndTheState() throws {
    var site = twoFloorSite()
    // +y points east: 10 m along y is 10 m east of the anchor, 2 m along x is 2 m south.
    site.gps = GPSAnchor(latitude: 52, longitude: 4, rotation: 90)
    let tracker = try #require(try configs(site)["homeassistant/device_tracker/whereabouts_\(keysObject)/config"])
    #expect(tracker["json_attributes_topic"] as? String == "whereabouts/devices/\(keys)/state")
    var publisher = Publisher(site: site, topics: Topics())
    var out: [MQTTMessage] = []
    let u = DeviceUpdate(id: keys, name: "Keys", t: 1000, x: 2, y: 10, z: 1, floor: "ground", room: "west", zones: [], confidence: 0.8,
                         fixes: 3, since: 990, nearest: nil)
    publisher.update(u, into: &out)
    let last = try #require(out.last)
    let state = try #require(JSONSerialization.jsonObject(with: Data(last.payload)) as? [String: Any])
    let metresPerDegree = 6_378_137 * Double.pi / 180
    let latitude = try #require(state["latitude"] as? Double), longitude = try #require(state["longitude"] as? Double)
    #expect(abs((latitude - 52) * metresPerDegree - -2) < 0.02)
    #expect(abs((longitude - 4) * metresPerDegree * cos(52 * Double.pi / 180) - 10) < 0.02)
    #expect(state["since_iso"] as? String == "1970-01-01T00:16:30Z")
}

@Test func withoutAnchorTheStateHasNoCoordinates() throws {
    var publisher = Publisher(site: twoFloorSite(), topics: Topics())
    var out: [MQTTMessage] = []
    publisher.update(DeviceUpdate(id: keys, name: "Keys", t: 1000, x: 2, y: 1, z: 1, floor: "ground", room: "west", zones: [],
                                  confidence: 0.8, fixes: 3, since: 990, nearest: nil), into: &out)
    let last = try #require(out.last)
    let state = try #require(JSONSerialization.jsonObject(with: Data(last.payload)) as? [String: Any])
    #expect(state["latitude"] == nil && state["longitude"] == nil)
}
