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
