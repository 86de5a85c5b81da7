import Testing
import Wire
import MQTT
@testable import Aggregator

// Years of service in a public building: phones with fixed addresses pass by and are never
// heard again, and anyone on the broker may publish under node names the site does not have.
// None of it may leave per-id state or metric series behind.

private func batch(node: String, seq: UInt64, t: Double, ids: [String], rssi: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 4096)
    Batch(node: node, seq: seq, t: t, readings: ids.map { Reading(id: $0, rssi: rssi, t: t - 0.01, kind: .mac) }).encode(into: &w)
    return w.bytes
}

@Test func passersByAndUnknownNodesLeaveNothingBehind() {
    let topics = Topics()
    let metrics = AggregatorMetrics()
    let core = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [.espresense],
                              clockMode: .node, metrics: metrics)
    var effects: [Effect] = []
    var forgotten = Set<String>(), seen = Set<String>()
    var enters = 0, exits = 0
    func handle(_ topic: String, _ payload: [UInt8], at t: Double) {
        payload.withUnsafeBytes { core.handle(topic: topic, payload: $0, arrival: t, into: &effects) }
    }
    func drain() {
        for effect in effects {
            switch effect {
            case .forget(let id): forgotten.insert(id)
            case .event(let e, _): if e.type == .enter { enters += 1 } else { exits += 1 }
            default: break
            }
        }
        effects.removeAll()
    }
    let rounds = 6, perRound = 40
    var seq: UInt64 = 0
    var mostStates = 0
    for round in 0..<rounds {
        // Rounds 1000 s apart: longer than the engine keeps a silent device (600 s).
        let t0 = 1_000 + Double(round) * 1_000
        let ids = (0..<perRound).map { "mac:02:00:00:00:\(round):\($0)" }
        seen.formUnion(ids)
        for step in 0..<20 {
            let t = t0 + Double(step) * 0.25
            seq += 1
            for (node, rssi) in [("a", -62), ("b", -75), ("c", -77), ("d", -68)] {
                handle(topics.nodeReadings(node), batch(node: node, seq: seq, t: t, ids: ids, rssi: rssi), at: t)
            }
            // A node name nobody configured, new for every message, on every way in.
            let ghost = "ghost-\(round)-\(step)"
            handle(topics.nodeReadings(ghost), batch(node: ghost, seq: 1, t: t, ids: ids, rssi: -60), at: t)
            handle(topics.nodeStatus(ghost), Array("online".utf8), at: t)
            handle(topics.nodeTelemetry(ghost), Array(#"{"adverts":5,"dropped":1,"buffered":2}"#.utf8), at: t)
            handle("espresense/devices/\(ids[step])/\(ghost)", Array(#"{"rssi":-60}"#.utf8), at: t)
            drain()
        }
        mostStates = max(mostStates, core.states.count)
        // Silence until the next round; the wall clock moves event time on.
        for wall in stride(from: t0 + 6, to: t0 + 1_000, by: 5) {
            core.tick(wall: wall, into: &effects)
            drain()
        }
        #expect(core.states.isEmpty, "round \(round): \(core.states.count) states left")
    }
    #expect(mostStates == perRound)
    // Every passer-by was placed, left, and was forgotten by the engine, the core and the writer.
    #expect(forgotten == seen)
    #expect(enters > 0 && enters == exits)
    #expect(core.engine.deviceCount == 0)
    #expect(core.occupancy.devices.values.allSatisfy { $0.isEmpty })
    #expect(core.nodesOnline.isEmpty)
    #expect(Set(core.ingest.nodes.keys).isSubset(of: ["a", "b", "c", "d"]))
    // Counted, but no series of their own.
    #expect(metrics.rejected(.unknownNode).current >= UInt64(rounds * 20 * 4))
    let exposition = metrics.registry.render()
    #expect(!exposition.contains("ghost"))
    #expect(!exposition.contains("mac:"))
}

/// An excluded id is forgotten by the engine at every sweep and interned again at its next
/// reading; having never been placed, it has nothing for the writer or the publisher to forget.
@Test func anExcludedIdHeardForAMinuteIsNeverForgottenDownstream() {
    var site = twoRoomSite()
    site.excludeDevices = ["mac:02:*"]
    let topics = Topics()
    let core = AggregatorCore(site: site, topics: topics, locator: .default, dialects: [],
                              clockMode: .node, metrics: AggregatorMetrics())
    var effects: [Effect] = []
    var forgets: [String] = [], placed = Set<String>()
    var seq: UInt64 = 0
    for step in 0..<240 {
        let t = 1_000 + Double(step) * 0.25
        seq += 1
        for (node, rssi) in [("a", -62), ("b", -75), ("c", -77), ("d", -68)] {
            batch(node: node, seq: seq, t: t, ids: ["mac:02:00:00:00:00:01", "mac:c2:00:00:00:00:01"], rssi: rssi)
                .withUnsafeBytes { core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects) }
        }
        core.tick(wall: t, into: &effects)
        for effect in effects {
            switch effect {
            case .forget(let id): forgets.append(id)
            case .track(let u): placed.insert(u.id)
            default: break
            }
        }
        effects.removeAll()
    }
    #expect(placed == ["mac:c2:00:00:00:00:01"])
    #expect(forgets.isEmpty)
}
