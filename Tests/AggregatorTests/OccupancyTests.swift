import Testing
import Wire
import Positioning
@testable import Aggregator

// `Occupancy` keeps each zone's occupants as the JSON array body of its occupancy message,
// changed at each event. It must be the body a writer makes from the occupants' list, id by id,
// in order of entry, whatever the ids and however enters and exits interleave.

private func event(_ kind: ZoneEvent.Kind, _ device: String, _ zone: String) -> ZoneEvent {
    ZoneEvent(kind, device: device, zone: zone, floor: "ground", t: 1_000, confidence: 0.5, dwell: kind == .exit ? 1 : nil, isRoom: true)
}

/// The body as the occupancy message wrote it before: every id through a writer, in order.
private func written(_ ids: [String]) -> [UInt8] {
    var w = JSONWriter()
    for id in ids { w.value(id) }
    return w.bytes
}

@Test func theKeptBodyIsTheListWrittenIdByIdAfterEveryEvent() {
    // Ids that quote as they are, and ones that need escapes (a quote, a backslash, a control
    // byte), of different lengths, so a cut in the wrong place shows.
    let ids = (0..<40).map { i in
        switch i % 4 {
        case 0: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-\(i)"
        case 1: "mac:\(i)"
        case 2: "odd\"\(i)\\"
        default: "tab\t\(i)\u{1}é"
        }
    }
    var occupancy = Occupancy(zones: ["ward", "hall"])
    var expected: [String: [String]] = ["ward": [], "hall": []]
    // A fixed walk of enters and exits: each step takes a device and a zone by a stride, and
    // flips whether the device is in it (an enter twice or an exit of an absent one included).
    for step in 0..<3_000 {
        let id = ids[(step * 17 + step / 40) % ids.count], zone = step % 3 == 0 ? "hall" : "ward"
        let inside = expected[zone]!.contains(id)
        let kind: ZoneEvent.Kind = (step % 7 == 0) ? (inside ? .enter : .exit) : (inside ? .exit : .enter)
        let changed = occupancy.apply(event(kind, id, zone))
        switch kind {
        case .enter:
            #expect(changed == !inside)
            if !inside { expected[zone]!.append(id) }
        case .exit:
            #expect(changed == inside)
            expected[zone]!.removeAll { $0 == id }
        }
        for z in ["ward", "hall"] {
            #expect(occupancy.body(of: z) == written(expected[z]!), "step \(step), \(z)")
            #expect(occupancy.count(of: z) == expected[z]!.count)
        }
    }
    #expect(occupancy.devices == expected)
}

@Test func emptyingAZoneFromEitherEndLeavesAnEmptyBody() {
    var occupancy = Occupancy(zones: ["z"])
    for id in ["a", "b", "c"] { let changed = occupancy.apply(event(.enter, id, "z")); #expect(changed) }
    for id in ["a", "c", "b"] { let changed = occupancy.apply(event(.exit, id, "z")); #expect(changed) }
    #expect(occupancy.body(of: "z").isEmpty && occupancy.count(of: "z") == 0)
    let again = occupancy.apply(event(.exit, "a", "z"))
    #expect(again == false)
    // A zone the site does not name is kept from its first enter.
    let elsewhere = occupancy.apply(event(.enter, "a", "elsewhere"))
    #expect(elsewhere)
    #expect(String(decoding: occupancy.body(of: "elsewhere"), as: UTF8.self) == #""a""#)
}

@Test func theOccupancyMessageCarriesTheBodyBetweenItsBrackets() {
    var publisher = Publisher(site: twoRoomSite(), topics: Topics())
    var occupancy = Occupancy(zones: ["west"])
    for id in ["x\"1", "y"] { _ = occupancy.apply(event(.enter, id, "west")) }
    let m = publisher.occupancy(zone: "west", count: occupancy.count(of: "west"), devices: occupancy.body(of: "west"), t: 1_764_410_000.25)
    #expect(m.topic == Topics().zoneOccupancy("west") && m.retain)
    #expect(String(decoding: m.payload, as: UTF8.self) == #"{"count":2,"devices":["x\"1","y"],"t":1764410000.250}"#)
    let empty = publisher.occupancy(zone: "elsewhere", count: 0, devices: [], t: 5)
    #expect(empty.topic == Topics().zoneOccupancy("elsewhere"))
    #expect(String(decoding: empty.payload, as: UTF8.self) == #"{"count":0,"devices":[],"t":5.000}"#)
}
