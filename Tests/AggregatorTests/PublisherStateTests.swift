import Testing
import Wire
import SiteModel
import MQTT
@testable import Positioning
@testable import Aggregator

// The state payload keeps its exact bytes (docs/protocol.md#mqtt-topics-and-payloads) now that each device's
// `{"id":…,"name":…,"room":` is written once and kept.

private func update(name: String?, room: String?, nearest: NodeRange?) -> DeviceUpdate {
    DeviceUpdate(id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42", name: name, t: 1764410000.25, x: 1.234, y: -0.5, z: 1.2,
                 floor: room == nil ? nil : "ground", room: room, zones: room == nil ? [] : ["desk", "a\"b"], confidence: 0.756,
                 fixes: 3, since: 1764409990, nearest: nearest)
}

@Test func statePayloadsKeepTheirBytesAcrossUpdates() {
    var publisher = Publisher(site: Site(), topics: Topics())
    let nearest = NodeRange(node: "kitchen", distance: 2.5, proximity: .near)
    var out: [MQTTMessage] = []
    var first = update(name: "Keys \"K\"", room: "west", nearest: nearest)
    // The posterior's likeliest rooms, to hundredths; one that rounds to nothing left out.
    first.rooms = RoomShares([(id: "west", p: 0.934), (id: "hall", p: 0.061), (id: "kitchen", p: 0.004)])
    publisher.update(first, into: &out)
    publisher.update(update(name: "Keys \"K\"", room: "west", nearest: nil), into: &out)
    publisher.update(update(name: "Keys \"K\"", room: nil, nearest: nil), into: &out)
    let texts = out.map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" }
    let id = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
    #expect(texts == [
        "whereabouts/devices/\(id)/room west",
        #"whereabouts/devices/\#(id)/state {"id":"\#(id)","name":"Keys \"K\"","room":"west","floor":"ground","zones":["desk","a\"b"],"x":1.23,"y":-0.5,"z":1.2,"confidence":0.76,"fixes":3,"t":1764410000.250,"since":1764409990.000,"since_iso":"2025-11-29T09:53:10Z","nearest":{"node":"kitchen","distance":2.5,"proximity":"near"},"rooms":{"west":0.93,"hall":0.06}}"#,
        #"whereabouts/devices/\#(id)/state {"id":"\#(id)","name":"Keys \"K\"","room":"west","floor":"ground","zones":["desk","a\"b"],"x":1.23,"y":-0.5,"z":1.2,"confidence":0.76,"fixes":3,"t":1764410000.250,"since":1764409990.000,"since_iso":"2025-11-29T09:53:10Z","nearest":{"node":null,"distance":null,"proximity":"unknown"},"rooms":{}}"#,
        "whereabouts/devices/\(id)/room away",
        #"whereabouts/devices/\#(id)/state {"id":"\#(id)","name":"Keys \"K\"","room":"away","floor":null,"zones":[],"x":null,"y":null,"z":null,"confidence":0.76,"fixes":3,"t":1764410000.250,"since":1764409990.000,"since_iso":"2025-11-29T09:53:10Z","nearest":{"node":null,"distance":null,"proximity":"unknown"},"rooms":{}}"#,
    ])
}

@Test func numbersKeepTheirSpelling() {
    var w = JSONWriter()
    w.arrayStart()
    for v in [0.0, -0.004, 0.005, 12.3456, -7, 1e-7, 123456789.987] { w.value(v, decimals: 2) }
    for v in [0, -1, 1764410000, Int.max, Int.min] { w.value(v) }
    w.time(1764410000.05)
    w.time(0.0004)
    w.arrayEnd()
    #expect(w.string == "[0,0,0.01,12.35,-7,0,123456789.99,0,-1,1764410000,9223372036854775807,-9223372036854775808,1764410000.050,0.000]")
}
