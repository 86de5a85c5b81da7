import Foundation
import MQTT
import Wire
import SiteModel
import YAML
@testable import Positioning
@testable import Aggregator
@testable import Edge

/// The aggregator's payloads: what its writers produce for the example's own values.
extension ProtocolExampleTests {
    // MARK: aggregator → subscribers

    /// The state the product writes for the example's own values equals the example.
    static func checkState(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        let n = j["nearest"] as? [String: Any] ?? [:]
        let update = DeviceUpdate(id: try string(j, "id"), name: j["name"] as? String, t: try number(j, "t"),
                                  x: try number(j, "x"), y: try number(j, "y"), z: try number(j, "z"),
                                  floor: j["floor"] as? String, room: try string(j, "room"), zones: j["zones"] as? [String] ?? [],
                                  confidence: try number(j, "confidence"), fixes: Int(try number(j, "fixes")), since: try number(j, "since"),
                                  nearest: NodeRange(node: try string(n, "node"), distance: try number(n, "distance"),
                                                     proximity: Proximity(rawValue: try string(n, "proximity")) ?? .unknown))
        var publisher = Publisher(site: Site(), topics: Topics())
        var out: [MQTTMessage] = []
        publisher.update(update, into: &out)
        guard let state = out.first(where: { $0.topic.hasSuffix("/state") }) else { throw DocError("no state published") }
        try require(state.topic == Topics().deviceState(update.id) && state.retain && state.qos == .atLeastOnce, "published as \(state.topic)")
        try require(JSONShape.equal(try JSONShape.parse(state.payload), j), "the aggregator writes \(String(decoding: state.payload, as: UTF8.self))")
        try checkTable(e, doc)
    }

    static func checkOccupancy(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        let devices = j["devices"] as? [String] ?? []
        // The occupants as the aggregator keeps them: entered one by one.
        var occupancy = Occupancy(zones: ["kitchen"])
        for d in devices {
            _ = occupancy.apply(ZoneEvent(.enter, device: d, zone: "kitchen", floor: "ground", t: try number(j, "t"), confidence: 1,
                                          dwell: nil, isRoom: true))
        }
        try require(occupancy.count(of: "kitchen") == Int(try number(j, "count")), "count is not the number of devices")
        var publisher = Publisher(site: Site(), topics: Topics())
        let m = publisher.occupancy(zone: "kitchen", count: occupancy.count(of: "kitchen"), devices: occupancy.body(of: "kitchen"),
                                    t: try number(j, "t"))
        try require(m.retain && m.qos == .atLeastOnce, "occupancy not retained at QoS 1")
        try require(JSONShape.equal(try JSONShape.parse(m.payload), j), "the aggregator writes \(String(decoding: m.payload, as: UTF8.self))")
        try checkTable(e, doc)
    }

    static func checkEvent(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        guard let kind = ZoneEvent.Kind(rawValue: try string(j, "type")) else { throw DocError("type is not enter or exit") }
        let event = ZoneEvent(kind, device: try string(j, "device"), zone: try string(j, "zone"), floor: j["floor"] as? String,
                              t: try number(j, "t"), confidence: try number(j, "confidence"),
                              dwell: (j["dwell"] as? NSNumber)?.doubleValue, isRoom: true)
        var publisher = Publisher(site: Site(), topics: Topics())
        let m = publisher.event(event, late: (j["late"] as? Bool) ?? false)
        try require(!m.retain && m.qos == .atLeastOnce && m.topic == Topics().zoneEvents(event.zone), "event published as \(m.topic)")
        try require(JSONShape.equal(try JSONShape.parse(m.payload), j), "the aggregator writes \(String(decoding: m.payload, as: UTF8.self))")
        try checkTable(e, doc)
    }

    /// The discovery message the product publishes for the document's site example, on the
    /// topic the example's `state_topic` leads to, equals the example.
    static func checkDiscovery(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        let site = try documentSite(doc)
        // The version the document's examples show in their device and origin blocks.
        var discovery = Discovery(site: site, topics: Topics(prefix: site.mqtt.prefix), version: "0.1.0")
        let messages = discovery.messages()
        let uniqueID = try string(j, "unique_id")
        let match = try messages.first { try string(object(String(decoding: $0.payload, as: UTF8.self)), "unique_id") == uniqueID }
        guard let m = match else { throw DocError("the aggregator publishes no discovery with unique_id \(uniqueID) for the site example") }
        let expectedPrefix = e.kind == "discovery-tracker" ? "homeassistant/device_tracker/whereabouts_" : "homeassistant/sensor/whereabouts_"
        try require(m.topic.hasPrefix(expectedPrefix) && m.topic.hasSuffix("/config") && m.retain && m.qos == .atLeastOnce,
                    "published on \(m.topic)")
        try require(JSONShape.equal(try JSONShape.parse(m.payload), j), "the aggregator writes \(String(decoding: m.payload, as: UTF8.self))")
    }
}
