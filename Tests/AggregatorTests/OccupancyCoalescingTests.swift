import Testing
import Foundation
import Wire
import SiteModel
import MQTT
@testable import Aggregator

// A zone's occupancy payload lists every occupant, so the core makes one per zone per
// message or tick, with the last of that zone's events, not one per event. (A clean stop
// makes none: the retained occupancy stays as it was, ShutdownTests.)

private func site() -> Site {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 4, 2.5)))
    floor.rooms = [Room(id: "hall", name: "Hall", points: [Point2(0, 0), Point2(10, 0), Point2(10, 4), Point2(0, 4)])]
    site.floors = [floor]
    site.zones = [Zone(id: "all", name: "All", floor: "ground", points: [Point2(0, 0), Point2(10, 0), Point2(10, 4), Point2(0, 4)])]
    site.nodes = [Node(name: "a", point: Point3(0.3, 0.3, 2)), Node(name: "b", point: Point3(9.7, 0.3, 2)),
                  Node(name: "c", point: Point3(9.7, 3.7, 2)), Node(name: "d", point: Point3(0.3, 3.7, 2))]
    site.positioning.txRefDefault = -59
    return site
}

private func batch(node: String, seq: UInt64, t: Double, devices: Int, rssi: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 1 << 16)
    Batch(node: node, seq: seq, t: t, readings: (0..<devices).map { Reading(id: "mac:\($0)", rssi: rssi, t: t - 0.01, kind: .mac) })
        .encode(into: &w)
    return w.bytes
}

@Test func everyZoneGetsOneOccupancyMessageWithItsLastEvent() {
    let topics = Topics()
    let core = AggregatorCore(site: site(), topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: AggregatorMetrics())
    var effects: [Effect] = []
    var seq: UInt64 = 0
    for step in 0..<20 {
        let t = 1000 + Double(step) * 0.5
        seq += 1
        for (node, rssi) in [("a", -60), ("b", -62), ("c", -64), ("d", -61)] {
            batch(node: node, seq: seq, t: t, devices: 50, rssi: rssi).withUnsafeBytes {
                core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects)
            }
        }
    }
    let occupied = core.occupancy.devices.filter { !$0.value.isEmpty }
    #expect(occupied["all"]?.count == 50)
    effects.removeAll()
    // Silence past away_after: every device leaves every zone in one tick.
    core.tick(wall: 1011 + 2 * site().positioning.awayAfter, into: &effects)
    var events = 0
    var occupancy: [String: [MQTTMessage]] = [:]
    var lastEventIndex: [String: Int] = [:]
    for (i, effect) in effects.enumerated() {
        guard case .event(let e, let messages) = effect else { continue }
        events += 1
        lastEventIndex[e.zone] = i
        for m in messages where m.topic.hasSuffix("/occupancy") { occupancy[e.zone, default: []].append(m); #expect(lastEventIndex[e.zone] == i) }
    }
    #expect(events == occupied.values.map(\.count).reduce(0, +), "an exit per device and zone")
    #expect(occupancy.keys.sorted() == occupied.keys.sorted())
    for (zone, messages) in occupancy {
        #expect(messages.count == 1, "\(zone)")
        #expect(messages.first.map { String(decoding: $0.payload, as: UTF8.self).hasPrefix(#"{"count":0,"devices":[]"#) } == true)
        // With the zone's last event.
        if case .event(let e, let m) = effects[lastEventIndex[zone]!] { #expect(e.zone == zone && m.count == 2) }
    }
}

@Test func aRoomsOccupancyCarriesTheExpectedCountOfItsDevicesProbabilities() throws {
    let topics = Topics()
    let core = AggregatorCore(site: site(), topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: AggregatorMetrics())
    var effects: [Effect] = []
    for step in 0..<20 {
        let t = 1000 + Double(step) * 0.5
        for (node, rssi) in [("a", -60), ("b", -62), ("c", -64), ("d", -61)] {
            batch(node: node, seq: UInt64(step + 1), t: t, devices: 20, rssi: rssi).withUnsafeBytes {
                core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects)
            }
        }
    }
    func occupancy(_ zone: String) -> [[String: Any]] {
        effects.flatMap { effect -> [[String: Any]] in
            guard case .event(_, let messages) = effect else { return [] }
            return messages.filter { $0.topic == topics.zoneOccupancy(zone) }.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
            }
        }
    }
    // One room: every device heard is surely in it, so the expected count is every device heard,
    // also those the room test has not named yet (it waits for solves that agree).
    #expect(abs((core.occupancy.expected(of: "hall") ?? 0) - 20) < 0.5)
    #expect(core.occupancy.count(of: "hall") <= 20)
    let hall = try #require(occupancy("hall").last)
    #expect((hall["expected"] as? Double ?? -1) >= Double(hall["count"] as? Int ?? 99) - 0.5, "\(hall)")
    // A zone that is not a room has no expected count.
    #expect(occupancy("all").last.map { $0["expected"] == nil } == true)
    effects.removeAll()
    core.tick(wall: 1011 + 2 * site().positioning.awayAfter, into: &effects)
    let gone = try #require(occupancy("hall").last)
    #expect(gone["count"] as? Int == 0 && gone["expected"] as? Double == 0, "\(gone)")
}
