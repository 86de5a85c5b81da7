import Foundation
import MQTT
import Testing
import Wire

/// Found by the production audit: one batch with a huge `seq` and a time an hour ahead made
/// every later batch of its node `replayed` (`readings_total{node="sw"}` stopped while
/// `replayed` grew by 40 every 10 s) until that hour passed or the aggregator restarted.
/// Here, with four real nodes' traffic and a real aggregator: that batch is refused as
/// `clock_ahead` and the node's readings go on; a huge `seq` at a plausible time starts a new
/// sequence and counts no lost batches.
@Test(.timeLimit(.minutes(2)))
func oneBadBatchCannotWedgeItsNode() async throws {
    let dir = try faultDirectory("wedge")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/#"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    let traffic = try Traffic(broker: broker)
    let room = "whereabouts/devices/\(Reference.keys)/room"
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "west" } }, "\(aggregator.log)")

    let now = Date().timeIntervalSince1970
    let hostile = Reference.batch("sw", seq: 1_000_000_000_000_000, t: now + 3600, at: Reference.west)
    try collector.client.publish(Reference.readingsTopic("sw"), hostile, qos: .atLeastOnce)
    let refused = try #require(await aggregator.waitForMetrics { $0.rejected("clock_ahead") == 1 }, "\(aggregator.log)")
    #expect(refused.rejected("clock_ahead") == 1, "\(refused)")
    let sw = refused.readings("sw")
    let going = await aggregator.waitForMetrics { $0.readings("sw") >= sw + 20 }
    #expect((going?.readings("sw") ?? 0) >= sw + 20, "sw's readings stopped after the batch from the future\n\(going?.description ?? "")")
    #expect(going?.rejected("replayed") == 0 && going?.rejected("late") == refused.rejected("late"), "\(going?.description ?? "")")

    // A huge seq at the present time: a new sequence; the node's own next batches are not replays.
    try collector.client.publish(Reference.readingsTopic("sw"),
                                 Reference.batch("sw", seq: 1_000_000_000_000_000, t: Date().timeIntervalSince1970, at: Reference.west),
                                 qos: .atLeastOnce)
    let base = try #require(going).readings("sw")
    let after = try #require(await aggregator.waitForMetrics { $0.readings("sw") >= base + 21 })
    #expect(after.rejected("replayed") == 0, "\(after)")
    #expect(after["whereabouts_missed_batches_total{node=\"sw\"}"] < 100, "\(after)")
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}
