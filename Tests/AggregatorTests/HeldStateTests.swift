import Testing
import Wire
import MQTT
@testable import Aggregator

// A still device heard at steady levels is not solved at every interval (the engine holds its
// last fix); the aggregator publishes state only for solves, so the broker and every subscriber
// get a still device's state every `holdLimit` seconds instead of every `updateInterval`.
// With the state deadband off (`state_deadband: 0`): this is about holds; the deadband, which
// leaves out most of these states too, is StateDeadbandTests'.

private func batch(node: String, seq: UInt64, t: Double, id: String, rssi: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 1024)
    Batch(node: node, seq: seq, t: t, readings: [Reading(id: id, rssi: rssi, t: t - 0.01, kind: .mac)]).encode(into: &w)
    return w.bytes
}

@Test func aStillDevicesStateIsPublishedOnlyWhenItIsSolved() {
    let topics = Topics()
    let metrics = AggregatorMetrics()
    var site = twoRoomSite()
    site.positioning.stateDeadband = 0
    let core = AggregatorCore(site: site, topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: metrics)
    var effects: [Effect] = []
    var states: [(t: Double, payload: String)] = []
    var seq: UInt64 = 0
    // 30 s still near node a (west), heard every 0.25 s at the same levels; then 10 s of
    // levels changing by 3 dB a second (walking east).
    for step in 0..<160 {
        let t = 1000 + Double(step) * 0.25
        let walk = max(0, t - 1030) * 1.5
        seq += 1
        for (node, rssi) in [("a", -62.0 - 2 * walk), ("b", -75.0 + 2 * walk), ("c", -77.0 + 2 * walk), ("d", -68.0 - walk)] {
            batch(node: node, seq: seq, t: t, id: "mac:aa:bb:cc:00:00:01", rssi: Int(rssi)).withUnsafeBytes {
                core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects)
            }
        }
        for effect in effects {
            if case .state(let m, _) = effect { states.append((t, String(decoding: m.payload, as: UTF8.self))) }
        }
        effects.removeAll()
    }
    let holds = Int(metrics.held.current), solves = Int(metrics.solved.current)
    #expect(holds == core.engine.holds && solves == core.engine.solves, "\(holds) \(core.engine.holds) \(solves) \(core.engine.solves)")
    #expect(holds > 20, "held \(holds), solved \(solves)")
    // One state per solve, none per hold.
    #expect(states.count <= solves)
    let still = states.filter { $0.t < 1030 }
    #expect(still.count < 30, "\(still.count) states in 30 s still")
    // While still, the state is refreshed at least every holdLimit seconds (3 s) once placed.
    let gaps = zip(still.dropFirst(), still).map { $0.t - $1.t }
    #expect(gaps.allSatisfy { $0 <= 3.5 }, "\(gaps)")
    #expect(still.last.map { $0.payload.contains(#""room":"west""#) } == true)
    // Walking: 1.5 dB between two intervals, so a solve and a state at least every second one.
    let walking = states.filter { $0.t > 1032 }
    #expect(walking.count >= 8, "\(walking.count) states in 8 s walking")
}
