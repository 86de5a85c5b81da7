import Foundation
import MQTT
import Storage
import Testing

/// `kill -9` of the aggregator while the nodes keep publishing, and a new one on the same
/// database: the visit the crash left open is closed with one `exit`, the device's room is
/// found again from the traffic, and over the whole run every `enter` has exactly one `exit`
/// (no duplicate `enter`), in the events published and in the database.
@Test(.timeLimit(.minutes(3)))
func aKilledAggregatorUnderTrafficRebuildsItsStateWithoutDuplicateEnters() async throws {
    let dir = try faultDirectory("restart")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/devices/+/room"])
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let entered = { (zone: String, count: Int) in events().filter { $0["type"] as? String == "enter" && $0["zone"] as? String == zone }.count >= count }
    let traffic = try Traffic(broker: broker)

    let first = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "first")
    #expect(await collector.wait(timeout: 20) { _ in entered("west", 1) }, "\(first.log)")
    traffic.change { $0.position = Reference.east }
    #expect(await collector.wait(timeout: 20) { _ in entered("east", 1) }, "\(first.log)")
    try await Task.sleep(for: .seconds(1.5))   // the east visit reaches the database
    first.kill9()
    try await Task.sleep(for: .seconds(1))     // traffic nobody hears

    let second = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "second")
    // The crash's open east visit is closed, then the traffic puts the device back in east.
    #expect(await collector.wait(timeout: 20) { _ in entered("east", 2) }, "\(second.log)")
    traffic.change { $0.position = Reference.west }
    #expect(await collector.wait(timeout: 20) { _ in entered("west", 2) }, "\(second.log)")
    await traffic.stop()
    #expect(await second.stop() == 0, "\(second.log)")
    #expect(await collector.wait { _ in events().filter { $0["type"] as? String == "exit" }.count == 4 })

    let all = events()
    #expect(eventsAlternate(all), "\(all.map { "\($0["type"]!) \($0["zone"]!)" })")
    #expect(all.map { "\($0["type"]!) \($0["zone"]!)" } == ["enter west", "exit west", "enter east", "exit east",
                                                             "enter east", "exit east", "enter west", "exit west"])
    let reader = try TrackReader(path: db.path)
    #expect(try reader.integrityCheck() == "ok")
    let visits = try reader.visits()
    #expect(visits.map(\.zone) == ["west", "east", "east", "west"])
    #expect(visits.allSatisfy { $0.exit != nil })
    #expect(try reader.openVisits().isEmpty)
}
