import Testing
import Wire
import SiteModel

@Test func topicsFollowTheSpec() {
    let t = Topics()
    #expect(t.nodeReadings("kitchen") == "whereabouts/nodes/kitchen/readings")
    #expect(t.deviceRoom("iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42")
            == "whereabouts/devices/iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42/room")
    #expect(t.zoneEvents("front-door") == "whereabouts/zones/front-door/events")
    #expect(t.aggregatorStatus == "whereabouts/aggregator/status")
    #expect(Topics.homeAssistantTracker(objectID: Topics.slug("iBeacon:F7-1-42")) == "homeassistant/device_tracker/whereabouts_ibeacon_f7_1_42/config")
}

@Test(arguments: ["a/b", "x+y", "#", "100%", "line\nbreak", "plain:id-1"])
func idsCannotInjectTopicLevelsOrWildcards(id: String) {
    let topic = Topics().deviceState(id)
    let level = topic.split(separator: "/")[2]
    #expect(topic.split(separator: "/").count == 4)
    #expect(!level.contains("+") && !level.contains("#"))
    #expect(Topics.unescape(level) == id)
}

@Test func parsesNodeTopics() {
    let t = Topics(prefix: "site/a")
    #expect(t.parseNodeTopic("site/a/nodes/kit%2Fchen/readings")! == ("kit/chen", "readings"))
    #expect(t.parseNodeTopic("site/a/nodes/x/status")! == ("x", "status"))
    #expect(t.parseNodeTopic("site/b/nodes/x/status") == nil)
    #expect(t.parseNodeTopic("site/a/nodes/x/y/status") == nil)
    #expect(t.parseNodeTopic("site/a/nodes//status") == nil)
    #expect(t.parseNodeTopic("site/a/nodes/%zz/status") == nil)
}

@Test func espresenseMessagesBecomeReadings() throws {
    let payload = Array(#"{"id":"iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-2","rssi@1m":-59,"rssi":-71,"raw":2.1,"distance":2.4,"mac":"aa:bb:cc:dd:ee:ff"}"#.utf8)
    let (node, r) = try Dialect.espresense.reading(
        topic: "espresense/devices/iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-2/office", payload: payload, arrival: 100.5)
    #expect(node == "office")
    #expect(r == Reading(id: "iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-2", mac: "aa:bb:cc:dd:ee:ff",
                         rssi: -71, tx: -59, t: 100.5, kind: .ibeacon))
}

@Test func theengsMessagesBecomeReadings() throws {
    let beacon = Array(#"{"id":"C2:3A:6B:01:02:03","rssi":-80,"txpower":-59,"uuid":"F7826DA6-4FA2-4E98-8024-BC5B71E0893E","major":1,"minor":42,"brand":"GENERIC"}"#.utf8)
    let (node, r) = try Dialect.theengs.reading(topic: "home/TheengsGateway/BTtoMQTT/C23A6B010203", payload: beacon, arrival: 5)
    #expect(node == "TheengsGateway")
    #expect(r.id == "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42")
    #expect(r.kind == .ibeacon && r.rssi == -80 && r.tx == -59 && r.mac == "c2:3a:6b:01:02:03")

    let plain = Array(#"{"id":"AA:BB:CC:DD:EE:FF","rssi":-60}"#.utf8)
    let (_, m) = try Dialect.theengs.reading(topic: "home/OMG/BTtoMQTT/AABBCCDDEEFF", payload: plain, arrival: 5)
    #expect(m.id == "mac:aa:bb:cc:dd:ee:ff" && m.kind == .mac)

    let noRSSI = Array(#"{"id":"AA:BB:CC:DD:EE:FF"}"#.utf8)
    #expect { try Dialect.theengs.reading(topic: "home/OMG/BTtoMQTT/AABBCCDDEEFF", payload: noRSSI, arrival: 5) } throws: {
        ($0 as? PayloadError)?.reason == .badReading
    }
}

/// Ids whose slugs differ keep their slugs (existing Home Assistant entities keep their ids);
/// ids that share one get distinct object ids, the same whatever their order.
@Test func discoveryObjectIDsAreDistinctAndStable() {
    let ids = ["front-door", "front_door", "Hall", "кухня", "спальня", "Living Room"]
    let objects = Topics.discoveryObjectIDs(ids)
    #expect(Set(objects.values).count == ids.count)
    #expect(objects["front_door"] == "front_door" && objects["Living Room"] == "living_room")
    #expect(objects["Hall"] == "hall")
    #expect(objects["front-door"]?.hasPrefix("front_door_") == true && objects["front-door"]?.count == 19)
    #expect(Topics.discoveryObjectIDs(ids.reversed()) == objects)
    #expect(objects.values.allSatisfy { $0.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) } })
}
