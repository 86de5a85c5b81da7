import Foundation
import Testing
import Wire
import MQTT
@testable import Aggregator

// Found by the production audit: after a clean stop the retained rooms still named the rooms
// while each room's retained occupancy said 0, and the exits said every visit was closed.

private func batch(node: String, seq: UInt64, t: Double, devices: Int, rssi: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 1 << 16)
    Batch(node: node, seq: seq, t: t, readings: (0..<devices).map { Reading(id: "mac:\($0)", rssi: rssi, t: t - 0.01, kind: .mac) })
        .encode(into: &w)
    return w.bytes
}

private func text(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

@Test func aCleanStopPublishesEveryPlacedDeviceAwayAfterItsExits() throws {
    let topics = Topics()
    let core = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: AggregatorMetrics())
    var effects: [Effect] = []
    for step in 0..<20 {
        let t = 1000 + Double(step) * 0.5
        // Louder in the west: every device is placed there.
        for (node, rssi) in [("a", -55), ("b", -75), ("c", -75), ("d", -55)] {
            batch(node: node, seq: UInt64(step + 1), t: t, devices: 5, rssi: rssi).withUnsafeBytes {
                core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects)
            }
        }
    }
    #expect(core.occupancy.count(of: "west") == 5)
    effects.removeAll()
    core.shutdown(wall: 1011, into: &effects)
    var exited: Set<String> = [], rooms: [String: String] = [:], states: [String: [String: Any]] = [:]
    for effect in effects {
        switch effect {
        case .event(let e, _):
            #expect(e.type == .exit && rooms[e.device] == nil, "the exit comes before the device's away")
            exited.insert(e.device)
        case .publish(let m) where m.topic.hasSuffix("/room"):
            #expect(m.retain)
            rooms[m.topic] = text(m)
        case .publish(let m) where m.topic.hasSuffix("/state"):
            states[m.topic] = try #require(JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any])
        default: break
        }
    }
    #expect(exited == Set((0..<5).map { "mac:\($0)" }))
    #expect(rooms == Dictionary(uniqueKeysWithValues: (0..<5).map { (topics.deviceRoom("mac:\($0)"), "away") }))
    #expect(states.count == 5)
    for state in states.values {
        #expect(state["room"] as? String == "away" && state["floor"] is NSNull && state["x"] is NSNull)
        #expect((state["nearest"] as? [String: Any])?["proximity"] as? String == "unknown")
        #expect((state["since"] as? Double).map { abs($0 - 1011) < 0.01 } == true)
    }
    #expect(core.occupancy.count(of: "west") == 0)
}
