import Testing
import Wire
import MQTT
@testable import Aggregator

/// Node a beacons; b, c and d hear it and a device for 20 s. The beacon must leave no trace
/// in what the aggregator publishes or stores, only in its own counter.
@Test func aNodeBeaconIsCountedNeverPublished() {
    let beacon = "mac:c2:00:00:00:00:0a", device = "mac:aa:bb:cc:00:00:01"
    var site = twoRoomSite()
    site.nodes[0].beacon = beacon
    let topics = Topics()
    let metrics = AggregatorMetrics()
    let core = AggregatorCore(site: site, topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: metrics)
    var effects: [Effect] = []
    var seq: UInt64 = 0
    for step in 0..<80 {
        let t = 1000 + Double(step) * 0.25
        seq += 1
        for (node, rssi) in [("a", -62), ("b", -75), ("c", -77), ("d", -68)] {
            var readings = [Reading(id: device, rssi: rssi, t: t - 0.02, kind: .mac)]
            if node != "a" { readings.append(Reading(id: beacon, rssi: rssi - 5, t: t - 0.01, kind: .mac)) }
            var w = JSONWriter(capacity: 1024)
            Batch(node: node, seq: seq, t: t, readings: readings).encode(into: &w)
            w.bytes.withUnsafeBytes { core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects) }
        }
    }
    var ids: Set<String> = [], topicsSeen: [String] = []
    for effect in effects {
        switch effect {
        case .publish(let m), .state(let m): topicsSeen.append(m.topic)
        case .event(let e, let messages): ids.insert(e.device); topicsSeen += messages.map(\.topic)
        case .track(let u): ids.insert(u.id)
        case .nodeHealth: break
        }
    }
    #expect(!topicsSeen.isEmpty)
    #expect(!topicsSeen.contains { $0.contains(beacon) })
    #expect(!ids.contains(beacon))
    #expect(ids.contains(device))
    #expect(metrics.beaconReadings.current == 80 * 3)
    #expect(core.engine.beaconLinks.heard.map(\.count) == [80, 80, 80])
    #expect(metrics.registry.render().contains("whereabouts_node_beacon_readings_total 240"))
}
