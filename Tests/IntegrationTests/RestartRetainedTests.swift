import Foundation
import MQTT
import Testing

// What a subscriber (Home Assistant) sees of the retained topics across an aggregator restart
// while the keys lie still in the west room: before, a clean stop published west 1 -> 0 and
// then `offline`, the next start 0 again at once (every zone's empty count) and 1 once the keys
// were placed; a kill -9 restart 1 -> 0 -> 1. Now: a clean stop says `offline` before anything
// else and publishes no occupancy or room; a start, clean or after a crash, publishes no
// occupancy without the keys in it, and the room never reads `away`.

private let west = "whereabouts/zones/west/occupancy"
private let status = "whereabouts/aggregator/status"
private let room = "whereabouts/devices/\(Reference.keys)/room"

/// The west occupancy's device lists among `messages`.
private func westOccupants(_ messages: ArraySlice<MQTTMessage>) -> [[String]] {
    messages.filter { $0.topic == west }.map { jsonObject($0)["devices"] as? [String] ?? ["<malformed>"] }
}

private func shown(_ messages: ArraySlice<MQTTMessage>) -> String {
    messages.map { "\($0.topic) \(payloadText($0))" }.joined(separator: "\n")
}

/// One aggregator life after another on one database and broker, traffic throughout; `end`
/// ends the first one (clean stop or kill -9). Returns the messages from the end of the first
/// life on, once the second has published the keys in west again.
private func restart(_ name: String, end: (AggregatorProcess) async -> Void) async throws -> ArraySlice<MQTTMessage> {
    let dir = try faultDirectory(name)
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/occupancy", status, room])
    try await collector.ready()
    let traffic = try Traffic(broker: broker)
    defer { Task { await traffic.stop() } }

    let first = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "first")
    #expect(await collector.wait(timeout: 30) { westOccupants($0[...]).last == [Reference.keys] }, "\(first.log)")
    // Its warm-up over (the east zone published empty), so the retained state is complete.
    #expect(await collector.wait(timeout: 30) { $0.contains { $0.topic.hasSuffix("/east/occupancy") } }, "\(first.log)")
    let mark = collector.messages.count
    await end(first)
    try await Task.sleep(for: .seconds(2))
    let second = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "second")
    // Placed again: west's occupancy published with the keys, or (a crash's open visit carried
    // over, the occupancy unchanged and not published again) their room.
    #expect(await collector.wait(timeout: 30) { m in
        let after = m.dropFirst(mark)
        return westOccupants(after).contains([Reference.keys]) || after.contains { $0.topic == room && payloadText($0) == "west" }
    }, "the second life never placed the keys in west:\n\(shown(collector.messages.dropFirst(mark)))\n\(second.log)")
    try await Task.sleep(for: .seconds(3))
    // What a subscriber arriving now reads: the keys in west.
    let late = try Collector(broker: broker, filters: [west])
    try await late.ready()
    #expect(await late.wait(timeout: 10) { westOccupants($0[...]).last == [Reference.keys] }, "\(shown(late.messages[...]))")
    #expect(await second.stop() == 0, "\(second.log)")
    return collector.messages.dropFirst(mark)
}

@Test(.timeLimit(.minutes(3)))
func aCleanRestartSaysOfflineFirstAndNeverEmptiesTheOccupiedZone() async throws {
    let after = try await restart("restart-clean") { first in
        #expect(await first.stop() == 0, "\(first.log)")
    }
    // Up to the second life's `online`: the first's `offline`, and nothing else.
    let online = after.firstIndex { $0.topic == status && payloadText($0) == "online" } ?? after.endIndex
    let stopping = after[..<online]
    #expect(stopping.map { "\($0.topic) \(payloadText($0))" } == ["\(status) offline"], "\(shown(after))")
    #expect(westOccupants(after).allSatisfy { $0 == [Reference.keys] }, "\(shown(after))")
    #expect(!after.contains { $0.topic == room && payloadText($0) == "away" }, "\(shown(after))")
}

@Test(.timeLimit(.minutes(3)))
func aCrashRestartNeverEmptiesTheOccupiedZone() async throws {
    let after = try await restart("restart-kill") { first in first.kill9() }
    // The broker's last will says `offline`; the second life publishes no empty west.
    #expect(after.contains { $0.topic == status && payloadText($0) == "offline" }, "\(shown(after))")
    #expect(westOccupants(after).allSatisfy { $0 == [Reference.keys] }, "\(shown(after))")
    #expect(!after.contains { $0.topic == room && payloadText($0) == "away" }, "\(shown(after))")
}

/// Discovery an earlier run retained for an entity this site no longer has (here the old
/// tracker of a device since taken out of the site file) is cleared at start, with an empty
/// retained payload, so Home Assistant removes the entity; another prefix's config, and this
/// run's own, stay.
@Test(.timeLimit(.minutes(2)))
func staleDiscoveryOfOursIsClearedAndOthersAreLeft() async throws {
    let dir = try faultDirectory("stale-discovery")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let gone = "homeassistant/device_tracker/whereabouts_gone/config"
    let foreign = "homeassistant/device_tracker/whereabouts_elsewhere/config"
    let seeder = try Collector(broker: broker, filters: [])
    try await seeder.ready()
    for (topic, state) in [(gone, "whereabouts/devices/gone/room"), (foreign, "flat/devices/x/room")] {
        try seeder.client.publish(topic, Array(#"{"name":"old","state_topic":"\#(state)"}"#.utf8), qos: .atLeastOnce, retain: true)
    }
    let collector = try Collector(broker: broker, filters: ["homeassistant/#"])
    try await collector.ready()
    #expect(await collector.wait(timeout: 10) { $0.contains { $0.topic == foreign } })
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == gone && $0.payload.isEmpty } }, "\(aggregator.log)")
    try await Task.sleep(for: .seconds(2))
    #expect(!collector.messages.contains { $0.topic == foreign && $0.payload.isEmpty })
    #expect(!collector.messages.contains { $0.topic.contains("whereabouts_west_occupancy") && $0.payload.isEmpty })
    #expect(aggregator.log.contains("clearing Home Assistant discovery \(gone)"), "\(aggregator.log)")
    #expect(await aggregator.stop() == 0)
}
