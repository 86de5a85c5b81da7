import Foundation
import Testing
import Wire
import MQTT
import Positioning
@testable import Aggregator

// A clean stop closes every visit (one exit per enter, docs/protocol.md) but publishes no room,
// state or occupancy: the aggregator says `offline` first, and an `away` or an empty room
// published at a stop read as everyone leaving, undone at the next start (Home Assistant saw
// "room empty" and "left home" at every restart). The retained topics keep what was last known.

private func batch(node: String, seq: UInt64, t: Double, devices: Int, rssi: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 1 << 16)
    Batch(node: node, seq: seq, t: t, readings: (0..<devices).map { Reading(id: "mac:\($0)", rssi: rssi, t: t - 0.01, kind: .mac) })
        .encode(into: &w)
    return w.bytes
}

private func text(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

/// A core with 5 devices placed in the west room by 10 s of batches from 1000 (wall = event time).
private func coreWithFiveInTheWest(_ topics: Topics) -> AggregatorCore {
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
    return core
}

/// The occupancy messages of `zone` in `effects`, in order.
private func occupancies(_ effects: [Effect], _ zone: String, _ topics: Topics) throws -> [[String: Any]] {
    try effects.flatMap { effect -> [[String: Any]] in
        guard case .event(_, let messages) = effect else { return [] }
        return try messages.filter { $0.topic == topics.zoneOccupancy(zone) }.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])
        }
    }
}

@Test func aCleanStopClosesEveryVisitAndLeavesRoomsStatesAndOccupancy() throws {
    let topics = Topics()
    let core = coreWithFiveInTheWest(topics)
    #expect(core.occupancy.count(of: "west") == 5)
    var effects: [Effect] = []
    core.shutdown(wall: 1011, into: &effects)
    var exited: Set<String> = []
    for effect in effects {
        switch effect {
        case .event(let e, let messages):
            #expect(e.type == .exit)
            exited.insert(e.device)
            #expect(messages.allSatisfy { $0.topic == topics.zoneEvents(e.zone) }, "\(messages.map(\.topic))")
        case .publish(let m), .state(let m, _):
            Issue.record("a clean stop published \(m.topic) \(text(m))")
        default: break
        }
    }
    #expect(exited == Set((0..<5).map { "mac:\($0)" }))
    #expect(try occupancies(effects, "west", topics).isEmpty, "the retained occupancy stays as it was")
}

// Found by the review: an away sweep back-dates its exits to when each device was last heard,
// and the occupancy took the last exit's time, so its `t` went back by `away_after`.

@Test func occupancyAfterAnAwaySweepIsStampedNowNotAtTheBackDatedExit() throws {
    let topics = Topics()
    let core = coreWithFiveInTheWest(topics)
    var effects: [Effect] = []
    // Every node silent: the wall clock moves event time past away_after (120 s).
    for second in stride(from: 1010.0, through: 1140, by: 1) { core.tick(wall: second, into: &effects) }
    let west = try occupancies(effects, "west", topics)
    #expect(west.count == 1 && west.first?["count"] as? Int == 0)
    let exits = effects.compactMap { effect -> ZoneEvent? in if case .event(let e, _) = effect { e } else { nil } }
    #expect(exits.count == 5 && exits.allSatisfy { $0.type == .exit && $0.t < 1010 })
    let t = try #require(west.first?["t"] as? Double)
    // Stamped at the sweep (away_after after the last reading), never before an earlier message.
    #expect(t - (exits.map(\.t).max() ?? t) > 119 && t <= core.engine.watermark, "\(t) \(exits.map(\.t))")
}

// Found by the review: /api/devices gave an away device's last x, y, z while its MQTT state
// said null.

@Test func anAwayDeviceHasNoPositionInApiDevicesAsInItsState() throws {
    let topics = Topics()
    let core = coreWithFiveInTheWest(topics)
    var effects: [Effect] = []
    for second in stride(from: 1010.0, through: 1135, by: 1) { core.tick(wall: second, into: &effects) }
    let states = effects.compactMap { effect -> [String: Any]? in
        guard case .publish(let m) = effect, m.topic == topics.deviceState("mac:0") else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any]
    }
    #expect(states.last?["room"] as? String == "away" && states.last?["x"] is NSNull)
    let api = try #require(JSONSerialization.jsonObject(with: Data(HTTPEndpoints.devicesJSON(core.states))) as? [[String: Any]])
    #expect(api.count == 5)
    for device in api {
        #expect(device["room"] as? String == "away")
        #expect(device["x"] is NSNull && device["y"] is NSNull && device["z"] is NSNull)
    }
}
