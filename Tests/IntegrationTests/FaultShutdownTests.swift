import Foundation
import MQTT
import Storage
import Testing

/// SIGHUP (a closed terminal, an operator expecting a reload) leaves the aggregator running:
/// logged, no exit published; SIGTERM then stops it cleanly with the one exit (before: SIGHUP
/// killed it, exit 129, no exit published, and the will said `offline`).
@Test(.timeLimit(.minutes(2)))
func sighupIsLoggedAndIgnored() async throws {
    let dir = try faultDirectory("sighup")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/aggregator/status"])
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let traffic = try Traffic(broker: broker)
    let aggregator = try AggregatorProcess(broker: broker, db: dir.appendingPathComponent("tracks.db"), directory: dir)
    #expect(await collector.wait(timeout: 20) { _ in events().contains { $0["type"] as? String == "enter" } }, "\(aggregator.log)")
    kill(aggregator.process.processIdentifier, SIGHUP)
    // Without a calibration file there is nothing to reload (CalibrationReloadTests has one).
    #expect(await poll(timeout: 5) { aggregator.log.contains("SIGHUP: no calibration file to reload") }, "\(aggregator.log)")
    try await Task.sleep(for: .seconds(1))
    #expect(aggregator.isRunning)
    #expect(!events().contains { $0["type"] as? String == "exit" })
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
    #expect(await collector.wait { _ in events().contains { $0["type"] as? String == "exit" } })
    #expect(events().map { $0["type"] as? String ?? "-" } == ["enter", "exit"])
    #expect(collector.messages(on: "whereabouts/aggregator/status").map(payloadText).last == "offline")
}

/// docs/protocol.md#mqtt-topics-and-payloads: exactly one `exit` follows every `enter`, also when the aggregator stops cleanly
/// while the database refuses writes (here another connection holds its write lock, as a
/// careless `sqlite3` session would). The stop publishes the exit and keeps its close in
/// `<db>.pending`; the next start stores it at the time published and publishes nothing for
/// it (before: the visit stayed open, and the next start closed it again with a second
/// `exit` at another time).
@Test(.timeLimit(.minutes(2)))
func aCleanStopOnALockedDatabasePublishesOneExitAndTheNextStartStoresIt() async throws {
    let dir = try faultDirectory("stop-locked")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let journal = db.path + ".pending"
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events"])
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let traffic = try Traffic(broker: broker)
    let first = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "first")
    #expect(await collector.wait(timeout: 20) { _ in events().contains { $0["type"] as? String == "enter" } }, "\(first.log)")
    try await Task.sleep(for: .seconds(1))   // the enter reaches the database
    await traffic.stop()

    let holder = try Connection(path: db.path)
    try holder.execute("BEGIN IMMEDIATE")
    #expect(await first.stop(timeout: 20) == 0, "\(first.log)")
    #expect(await collector.wait { _ in events().contains { $0["type"] as? String == "exit" } }, "\(first.log)")
    #expect(FileManager.default.fileExists(atPath: journal), "\(first.log)")
    #expect(first.log.contains("visit writes kept in \(journal)"), "\(first.log)")
    try holder.execute("ROLLBACK")

    let second = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "second")
    #expect(await poll(timeout: 20) { !FileManager.default.fileExists(atPath: journal) }, "\(second.log)")
    try await Task.sleep(for: .seconds(1))   // time for a wrong second exit to arrive
    #expect(await second.stop() == 0, "\(second.log)")
    #expect(second.log.contains("storing 1 visit write(s) the last stop kept in \(journal)"), "\(second.log)")
    #expect(!second.log.contains("left open by an unclean stop"), "\(second.log)")

    let all = events()
    #expect(all.map { "\($0["type"] ?? "-") \($0["zone"] ?? "-")" } == ["enter west", "exit west"])
    let reader = try TrackReader(path: db.path)
    let visits = try reader.visits()
    #expect(visits.count == 1)
    let published = all.last?["t"] as? Double ?? 0
    #expect(abs((visits.first?.exit ?? 0) - published) < 0.0006, "stored \(visits), published exit at \(published)")
    #expect(try reader.openVisits().isEmpty)
}
