import Foundation
import MQTT
import Testing

/// The broker goes away for a few seconds and comes back empty (no persistence: every
/// retained message is gone). The aggregator reconnects, subscribes again, publishes the
/// retained room, state and occupancy again for a subscriber that arrives afterwards, and
/// goes on following the device. (The edge side of a broker outage, buffering and loss, is
/// EdgeReplayTests' `brokerOutageMidReplayLosesNothingAndDuplicatesNothing`.)
@Test(.timeLimit(.minutes(2)))
func aRestartedBrokerGetsTheRetainedStateBackAndTrafficResumes() async throws {
    let dir = try faultDirectory("broker")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let before = try Collector(broker: broker, filters: ["whereabouts/devices/#", "whereabouts/zones/+/occupancy"])
    try await before.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    let traffic = try Traffic(broker: broker)
    let room = "whereabouts/devices/\(Reference.keys)/room"
    #expect(await before.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "west" } }, "\(aggregator.log)")

    broker.stop()
    try await Task.sleep(for: .seconds(3))
    try broker.start()

    // Once the aggregator is back, a newcomer hears the device's room and state and the west
    // room's occupancy as retained messages, though nothing about the device has changed.
    let reconnected = await aggregator.waitForMetrics(timeout: 30) { $0["whereabouts_mqtt_reconnects_total"] == 1 }
    let m = try #require(reconnected)
    #expect(m["whereabouts_mqtt_reconnects_total"] == 1, "\(m)")
    try await Task.sleep(for: .seconds(1))
    let after = try Collector(broker: broker, filters: ["whereabouts/devices/#", "whereabouts/zones/+/occupancy"])
    try await after.ready()
    let retained = after.messages.filter(\.retain)
    #expect(retained.contains { $0.topic == room && payloadText($0) == "west" }, "\(retained.map(\.topic))")
    #expect(retained.contains { $0.topic == room.replacingOccurrences(of: "/room", with: "/state") && jsonObject($0)["room"] as? String == "west" })
    #expect(retained.contains { $0.topic == "whereabouts/zones/west/occupancy" && (jsonObject($0)["count"] as? Int) == 1 })

    // Subscribed again: the readings are heard and the device is followed to the east room.
    let readings = m.total("whereabouts_readings_total")
    traffic.change { $0.position = Reference.east }
    #expect(await after.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "east" } }, "\(aggregator.log)")
    #expect(try #require(await aggregator.metrics()).total("whereabouts_readings_total") > readings)
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

/// The whole chain through a broker restart: a real edge replays the golden capture (412
/// events, timed now) through a persistent broker (as deployed) that stops for 4 s mid-replay;
/// every reading the edge took reaches the aggregator and is counted there, accepted or
/// refused under a reason, none silently lost between the two.
@Test(.timeLimit(.minutes(2)))
func aBrokerRestartLosesNoReadingBetweenEdgeAndAggregator() async throws {
    let dir = try faultDirectory("broker-edge")
    defer { try? FileManager.default.removeItem(at: dir) }
    let expected = try goldenReadings()
    let broker = try Broker(persistent: true)
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/nodes/sw/status"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    #expect(await aggregator.waitForMetrics { _ in true } != nil)
    let capture = try goldenCapture()
    defer { try? FileManager.default.removeItem(at: capture) }
    let edge = try EdgeProcess(["--node", "sw", "--broker", broker.url, "--replay", capture.path, "--speed", "1", "--retime",
                                "--qos", "1", "--reconnect-max", "2s", "--flush-timeout", "30s"])
    // Accepted or refused per reading; a batch the broker delivered twice (QoS 1) is refused
    // once more as `replayed`, which is not a reading of its own.
    let counted = { (m: Metrics) in m.readings("sw") + m.total("whereabouts_rejected_total") - m.rejected("replayed") }
    #expect(await aggregator.waitForMetrics(timeout: 20) { counted($0) >= 50 } != nil, "\(aggregator.log)")
    broker.stop()
    try await Task.sleep(for: .seconds(4))
    try broker.start()
    #expect(await edge.exitStatus(timeout: 60) == 0, "\(edge.stderr)")
    let m = await aggregator.waitForMetrics(timeout: 10) { counted($0) >= Double(expected.count) }
    let seen = m.map(counted) ?? 0
    print("broker restart, edge to aggregator: \(expected.count) readings taken, \(Int(seen)) counted by the aggregator "
          + "(\(Int(m?.readings("sw") ?? 0)) accepted, \(Int(m?.rejected("late") ?? 0)) late, "
          + "\(Int(m?.rejected("bad_reading") ?? 0)) bad, \(Int(m?.rejected("replayed") ?? 0)) batches again)")
    #expect(seen == Double(expected.count), "\(m?.description ?? "")\n\(edge.stderr)\n\(aggregator.log)")
    // The edge says when it connects, when the connection drops and when it is back, once each.
    let log = edge.stderr.split(separator: "\n")
    #expect(log.filter { $0.hasSuffix("connected to \(broker.url)") && !$0.contains("reconnected") }.count == 1, "\(edge.stderr)")
    #expect(log.filter { $0.contains("broker connection lost") }.count == 1, "\(edge.stderr)")
    #expect(log.filter { $0.hasSuffix("reconnected to \(broker.url)") }.count == 1, "\(edge.stderr)")
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}
