import Foundation
import MQTT
import Testing
import Wire

// The state deadband end to end: two aggregators on one broker take the same readings, one
// with the defaults (prefix `whereabouts`), one with `state_deadband: 0` (prefix `every`,
// a state for every solved update, as before the deadband). A device lies still in the west
// room, walks through the door and lies still in the east room. The room topics and zone
// events are the same; the still device's state comes far less often with the defaults.

private let nodes: [(name: String, x: Double, y: Double, z: Double)] = [
    ("sw", 0.1, 0.1, 1.2), ("se", 5.9, 0.1, 1.2), ("ne", 5.9, 3.9, 2.2), ("nw", 0.1, 3.9, 2.2),
]
private let keys = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"

/// Readings as the reference site's model predicts them, with a wobble of ±1–2 dB so that a
/// still device is solved now and then, not always held.
private func payload(_ node: (name: String, x: Double, y: Double, z: Double), at p: (x: Double, y: Double), t: Double,
                     seq: UInt64, wobble: Int) -> [UInt8] {
    let d = max(0.1, ((p.x - node.x) * (p.x - node.x) + (p.y - node.y) * (p.y - node.y) + (1 - node.z) * (1 - node.z)).squareRoot())
    let wall = (p.x < 3) != (node.x < 3) ? 4.0 : 0
    let rssi = Int((-59 - 27 * log10(d) - wall).rounded()) + wobble
    var w = JSONWriter()
    Batch(node: node.name, seq: seq, t: t, readings: [Reading(id: keys, rssi: rssi, tx: -59, t: t, kind: .ibeacon)]).encode(into: &w)
    return w.bytes
}

private func text(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }
private func json(_ m: MQTTMessage) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(m.payload))) as? [String: Any] ?? [:]
}

@Test(.timeLimit(.minutes(3)))
func theDeadbandThinsAStillDevicesStateAndLeavesRoomsAndEventsAlone() async throws {
    let broker = try Broker()
    try broker.start()
    defer { broker.stop() }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("deadband-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // The same site with the deadband off, under its own prefix.
    let reference = try String(contentsOf: packageRoot.appendingPathComponent("tools/sites/reference.yaml"), encoding: .utf8)
    let everyText = reference.replacingOccurrences(of: "positioning: { absorption: 2.7, window: 3s, away_after: 120s }",
                                                   with: "positioning: { absorption: 2.7, window: 3s, away_after: 120s, state_deadband: 0 }")
        + "\nmqtt: { prefix: every }\n"
    #expect(everyText.contains("state_deadband: 0"))
    let everySite = dir.appendingPathComponent("every.yaml")
    try everyText.write(to: everySite, atomically: true, encoding: .utf8)

    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/#", "every/devices/#", "+/zones/+/events",
                                                            "+/aggregator/status"])
    try await collector.ready()
    let defaults = try AggregatorProcess(broker: broker, db: nil, directory: dir, name: "defaults",
                                         site: packageRoot.appendingPathComponent("tools/sites/reference.yaml"),
                                         extra: ["--client-id", "agg-defaults"])
    let every = try AggregatorProcess(broker: broker, db: nil, directory: dir, name: "every", site: everySite,
                                      extra: ["--client-id", "agg-every"])
    #expect(await collector.wait { m in ["whereabouts", "every"].allSatisfy { p in m.contains { $0.topic == "\(p)/aggregator/status" && text($0) == "online" } } },
            "\(defaults.log)\n\(every.log)")

    // 4 batches a second per prefix: 8 s still west, 3 s through the door, 20 s still east.
    let wobbles = [0, 1, 0, -1, 2, 0, -2, 1, 0, -1, 1, 0]
    let path: [(x: Double, y: Double)] = Array(repeating: (1.2, 2.0), count: 32)
        + (0..<12).map { i in (1.2 + 3.6 * Double(i) / 11, 2.0) } + Array(repeating: (4.8, 2.0), count: 80)
    var eastStillFrom = 0.0
    for (i, p) in path.enumerated() {
        let t = Date().timeIntervalSince1970
        if i == 44 + 8 { eastStillFrom = t }   // 2 s into the east stay: the room has settled
        for (n, node) in nodes.enumerated() {
            let body = payload(node, at: p, t: t, seq: UInt64(i + 1), wobble: wobbles[(i + 3 * n) % wobbles.count])
            for prefix in ["whereabouts", "every"] {
                try collector.client.publish("\(prefix)/nodes/\(node.name)/readings", body, qos: .atLeastOnce)
            }
        }
        try await Task.sleep(for: .milliseconds(250))
    }
    let end = Date().timeIntervalSince1970
    for prefix in ["whereabouts", "every"] {
        #expect(await collector.wait { $0.filter { $0.topic == "\(prefix)/devices/\(keys)/room" }.map(text).last == "east" },
                "\(prefix): \(defaults.log)\n\(every.log)")
    }
    try await Task.sleep(for: .milliseconds(500))

    // Rooms and events: the same with and without the deadband.
    let rooms = { (prefix: String) in collector.messages(on: "\(prefix)/devices/\(keys)/room").map(text) }
    #expect(rooms("whereabouts") == ["west", "east"])
    #expect(rooms("every") == rooms("whereabouts"))
    let events = { (prefix: String) in
        collector.messages.filter { $0.topic.hasPrefix("\(prefix)/zones/") && $0.topic.hasSuffix("/events") }.map(json)
            .map { "\($0["type"]!) \($0["zone"]!)" }
    }
    #expect(events("whereabouts") == ["enter west", "exit west", "enter east"])
    #expect(events("every") == events("whereabouts"))

    // States received while still in the east room (by the state's own `t`).
    let stillStates = { (prefix: String) in
        collector.messages(on: "\(prefix)/devices/\(keys)/state").map(json)
            .filter { (($0["t"] as? Double) ?? 0) >= eastStillFrom && (($0["t"] as? Double) ?? 0) <= end }
    }
    let withDeadband = stillStates("whereabouts"), without = stillStates("every")
    print("state deadband end to end: \(withDeadband.count) states still in the east room with the defaults, \(without.count) without")
    // 18 s still: a state per solve without the deadband (at least every holdLimit, 3 s), a
    // heartbeat every 10 s (and any quarter-metre move of the wobbling fix) with it.
    #expect(without.count >= 6, "without the deadband: \(without.count) states")
    #expect(withDeadband.count >= 1 && withDeadband.count * 2 <= without.count,
            "with the deadband \(withDeadband.count), without \(without.count)")
    // The last state still says where the device is.
    let last = try #require(collector.messages(on: "whereabouts/devices/\(keys)/state").last.map(json))
    #expect(last["room"] as? String == "east")
    // And the counters say so. A last solve may come up to a tick after the last batch, so the
    // count and the messages are compared once they agree or after 5 s, not at one instant.
    var metrics = try #require(await defaults.metrics())
    for _ in 0..<20 where metrics[#"whereabouts_states_total{result="published"}"#]
        != Double(collector.messages(on: "whereabouts/devices/\(keys)/state").count) {
        try await Task.sleep(nanoseconds: 250_000_000)
        metrics = try #require(await defaults.metrics())
    }
    #expect(metrics[#"whereabouts_states_total{result="suppressed"}"#] > 0, "\(metrics)")
    #expect(metrics[#"whereabouts_states_total{result="published"}"#] == Double(collector.messages(on: "whereabouts/devices/\(keys)/state").count))
    let everyMetrics = try #require(await every.metrics())
    #expect(everyMetrics[#"whereabouts_states_total{result="suppressed"}"#] == 0)
    #expect(await defaults.stop() == 0)
    #expect(await every.stop() == 0)
}
