import Foundation
import MQTT
import Testing

/// The reference site with `away_after` short enough for a test.
private func quickAwaySite(in dir: URL) throws -> URL {
    let line = "positioning: { absorption: 2.7, window: 3s, away_after: 120s }"
    let text = try String(contentsOf: Reference.site, encoding: .utf8)
    guard text.contains(line) else { throw HarnessError("reference.yaml changed: no positioning line") }
    let url = dir.appendingPathComponent("site.yaml")
    try text.replacingOccurrences(of: line, with: "positioning: { absorption: 2.7, window: 3s, away_after: 5s }")
        .write(to: url, atomically: true, encoding: .utf8)
    return url
}

/// Found by the production audit: a device that went away got its exit stamped `away_after`
/// after it was last heard; its away state said `"nearest":null` with the old floor and
/// position. With a real broker, real nodes' traffic and a real aggregator: the exit is when
/// the device was last heard, and the away state has no floor or position and proximity
/// `unknown`. A clean stop closes the visits but publishes no room, state or occupancy (`away`
/// or an empty zone at a stop reads as leaving in Home Assistant at every restart): after
/// SIGTERM a new subscriber reads the last room, state and occupancy, and the aggregator `offline`.
@Test(.timeLimit(.minutes(2)))
func awayExitsAtLastHeardAndACleanStopLeavesTheLastRoomStateAndOccupancy() async throws {
    let dir = try faultDirectory("away")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/#", "whereabouts/zones/+/events"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir, site: try quickAwaySite(in: dir))
    let traffic = try Traffic(broker: broker)
    let room = "whereabouts/devices/\(Reference.keys)/room", state = "whereabouts/devices/\(Reference.keys)/state"
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "west" } }, "\(aggregator.log)")

    let all = Set(Reference.nodes.map(\.name))
    traffic.change { $0.silent = all }
    let silenced = Date().timeIntervalSince1970
    #expect(await collector.wait(timeout: 20) { $0.last { $0.topic == room }.map(payloadText) == "away" }, "\(aggregator.log)")
    let exit = try #require(collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject).last)
    let exitTime = try #require(exit["t"] as? Double), enterTime = collector.messages.filter { $0.topic.hasSuffix("/events") }
        .map(jsonObject).first { $0["type"] as? String == "enter" }?["t"] as? Double
    // Last heard just before the silence (a batch in flight, a solve up to an update interval
    // and a tick after its last reading), never `away_after` (5 s) later.
    #expect(exit["type"] as? String == "exit" && exitTime > silenced - 1 && exitTime <= silenced + 1.5, "exit at \(exitTime), silenced at \(silenced)")
    #expect(enterTime.map { abs((exit["dwell"] as? Double ?? 0) - (exitTime - $0)) < 0.1 } == true, "\(exit)")
    let away = jsonObject(try #require(collector.messages(on: state).last))
    #expect(away["room"] as? String == "away" && away["floor"] is NSNull && away["x"] is NSNull && away["y"] is NSNull, "\(away)")
    #expect((away["nearest"] as? [String: Any])?["proximity"] as? String == "unknown", "\(away)")
    #expect((away["since"] as? Double).map { abs($0 - exitTime) < 0.01 } == true, "\(away)")
    #expect((away["t"] as? Double).map { $0 - exitTime >= 4 } == true, "the away state comes at the sweep: \(away)")

    // Back in the west room, then a clean stop.
    traffic.change { $0.silent = [] }
    let placed = collector.messages(on: room).count
    #expect(await collector.wait(timeout: 20) { $0.filter { $0.topic == room }.count > placed && $0.last { $0.topic == room }.map(payloadText) == "west" })
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
    await traffic.stop()

    let after = try Collector(broker: broker, filters: ["whereabouts/devices/+/room", "whereabouts/devices/+/state",
                                                        "whereabouts/zones/+/occupancy", "whereabouts/aggregator/status"])
    try await after.ready()
    // Nothing `away` went out during the stop, and the retained room and state are the last known.
    #expect(collector.messages(on: room).last.map(payloadText) == "west")
    #expect(after.messages(on: room).map(payloadText) == ["west"])
    #expect(after.messages(on: state).map { jsonObject($0)["room"] as? String } == ["west"])
    // The stop publishes no occupancy either: west still holds the device (docs/operations.md,
    // Home Assistant: a stop does not look like people leaving).
    for (zone, count) in [("west", 1), ("east", 0)] {
        #expect(after.messages(on: "whereabouts/zones/\(zone)/occupancy").map { jsonObject($0)["count"] as? Int } == [count], "\(zone)")
    }
    #expect(after.messages(on: "whereabouts/aggregator/status").map(payloadText) == ["offline"])
}
