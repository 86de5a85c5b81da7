import Foundation
import MQTT
import Testing
import Wire

/// The reference site with a fifth node, `attic`, that only the test speaks for, so the four
/// corner nodes keep their own traffic (and sequence numbers) undisturbed.
private func siteWithAttic(in dir: URL) throws -> URL {
    let text = try String(contentsOf: Reference.site, encoding: .utf8)
        .replacingOccurrences(of: "  - { name: nw, point: [0.1, 3.9, 2.2], floors: [main] }",
                              with: "  - { name: nw, point: [0.1, 3.9, 2.2], floors: [main] }\n  - { name: attic, point: [3.0, 2.0, 2.4], floors: [main] }")
    guard text.contains("attic") else { throw HarnessError("reference.yaml changed: no nw node line") }
    let url = dir.appendingPathComponent("site.yaml")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
}

private func attic(seq: Int, t: Double, readings: String) -> [UInt8] {
    Array(#"{"v":1,"node":"attic","seq":\#(seq),"t":\#(t),"readings":[\#(readings)]}"#.utf8)
}

private func reading(rssi: String = "-70", t: Double, extra: String = "") -> String {
    #"{"id":"\#(Reference.keys)","rssi":\#(rssi),"tx":-59,"t":\#(t),"kind":"ibeacon"\#(extra)}"#
}

/// Every kind of bad payload docs/protocol.md#mqtt-topics-and-payloads names, sent while four nodes keep a device in the west
/// room: each is refused and counted under its reason, the good readings around them are
/// accepted, and the device's room never moves.
@Test(.timeLimit(.minutes(2)))
func badPayloadsAreRefusedAndCountedByReasonWhileTrafficFlows() async throws {
    let dir = try faultDirectory("payload")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/#", "whereabouts/zones/+/events"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir, site: try siteWithAttic(in: dir))
    let traffic = try Traffic(broker: broker)
    let room = "whereabouts/devices/\(Reference.keys)/room"
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "west" } }, "\(aggregator.log)")
    let before = try #require(await aggregator.metrics())

    let now = Date().timeIntervalSince1970
    let topic = Reference.readingsTopic("attic")
    let good = attic(seq: 10, t: now, readings: reading(t: now))
    let faults: [(String, [UInt8])] = [
        ("oversized", Array(repeating: UInt8(ascii: " "), count: Batch.maxPayloadBytes + 1)),
        ("truncated", Array(good.prefix(good.count / 2))),
        ("wrong type", attic(seq: 11, t: now, readings: reading(rssi: "\"-70\"", t: now))),
        ("seq as text", Array(#"{"v":1,"node":"attic","seq":"12","t":\#(now),"readings":[]}"#.utf8)),
        ("NaN", Array(#"{"v":1,"node":"attic","seq":13,"t":NaN,"readings":[]}"#.utf8)),
        ("not JSON", Array("\u{FF}\u{FE}garbage".utf8)),
        ("version", Array(#"{"v":2,"node":"attic","seq":14,"t":\#(now),"readings":[]}"#.utf8)),
        ("mismatch", Array(#"{"v":1,"node":"sw","seq":99999,"t":\#(now),"readings":[\#(reading(t: now))]}"#.utf8)),
    ]
    for (_, payload) in faults { try collector.client.publish(topic, payload, qos: .atLeastOnce) }
    // A node the site does not name, a status that is neither online nor offline.
    try collector.client.publish(Reference.readingsTopic("mallory"),
                                 Array(#"{"v":1,"node":"mallory","seq":1,"t":\#(now),"readings":[\#(reading(t: now))]}"#.utf8), qos: .atLeastOnce)
    try collector.client.publish("whereabouts/nodes/sw/status", Array("maybe".utf8), qos: .atLeastOnce)
    // Accepted batches: unknown fields are skipped; one absurd RSSI costs only its reading.
    let t1 = now + 0.1, t2 = now + 0.2
    try collector.client.publish(topic, attic(seq: 20, t: t1, readings: reading(t: t1, extra: #","firmware":{"x":[1,2]}"#)
                                               + "," + reading(rssi: "500", t: t1)), qos: .atLeastOnce)
    let seq21 = Array(#"{"v":1,"node":"attic","seq":21,"t":\#(t2),"site":"x","readings":[\#(reading(t: t2))]}"#.utf8)
    try collector.client.publish(topic, seq21, qos: .atLeastOnce)
    // That batch again (a redelivery): the same seq and time. The same seq with another time is
    // not a copy of it and is judged as any batch (docs/operations.md#which-batches-and-readings-are-refused).
    try collector.client.publish(topic, seq21, qos: .atLeastOnce)

    let expected: [String: Double] = ["oversized": 1, "malformed": 6, "version": 1, "node_mismatch": 1,
                                      "unknown_node": 1, "bad_reading": 1, "replayed": 1]
    let after = await aggregator.waitForMetrics { m in
        expected.allSatisfy { m.rejected($0.key) - before.rejected($0.key) == $0.value } && m.readings("attic") >= 2
    }
    let m = try #require(after)
    for (reason, count) in expected { #expect(m.rejected(reason) - before.rejected(reason) == count, "\(reason)\n\(m)") }
    #expect(m.rejected("late") == before.rejected("late"))
    #expect(m.readings("attic") == 2, "the two good attic readings, nothing from the bad payloads")

    // Nothing else disturbed: the corner nodes' readings keep coming, the room stays west.
    let sw = m.readings("sw")
    #expect(await aggregator.waitForMetrics { $0.readings("sw") >= sw + 8 } != nil)
    await traffic.stop()
    #expect(aggregator.isRunning)
    // The first update may say "away" until enough nodes are heard; then only "west".
    #expect(collector.messages(on: room).map(payloadText).drop { $0 == "away" } == ["west"])
    #expect(collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject).allSatisfy { $0["zone"] as? String == "west" })
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}
