import Foundation
import MQTT
import Storage
import Synchronization
import Testing

/// docs/protocol.md#mqtt-topics-and-payloads, one `exit` per `enter`, across a crash recovery whose start never reached the
/// broker: the recovered close is stored only with its exit published, so the next start
/// (here with a broker) recovers the visit again and publishes its exit. Before, the close
/// went to the journal as if published (the database refused writes, as a `sqlite3` session
/// holding its lock does here) and the next start stored it silently: that enter never got
/// an exit.
@Test(.timeLimit(.minutes(2)))
func aRecoveryThatNeverConnectedLeavesTheExitToTheNextStart() async throws {
    let dir = try faultDirectory("recover-offline")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    // What a crash leaves: keys entered west at 1000, last located at 1010, no exit.
    let crashed = TrackWriter(path: db.path)
    crashed.openVisit(Visit(device: Reference.keys, zone: "west", floor: "main", enter: 1000))
    crashed.record(TrackPoint(device: Reference.keys, t: 1010, x: 1.2, y: 2, z: 1, floor: "main", room: "west", confidence: 1))
    #expect(crashed.flush())
    crashed.close()

    let broker = try Broker()
    defer { broker.stop() }
    broker.stop()   // the broker is unreachable for the first start
    let holder = try Connection(path: db.path)
    try holder.execute("BEGIN IMMEDIATE")
    let offline = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "offline")
    #expect(await poll(timeout: 20) { offline.log.contains("left open by an unclean stop") }, "\(offline.log)")
    #expect(await offline.stop(timeout: 30) == 0, "\(offline.log)")
    try holder.execute("ROLLBACK")

    try broker.start()
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events"])
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let online = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "online")
    #expect(await collector.wait(timeout: 20) { _ in !events().isEmpty }, "\(offline.log)\n\(online.log)")
    try await Task.sleep(for: .seconds(1))   // time for a wrong second exit to arrive
    #expect(await online.stop() == 0, "\(online.log)")
    let all = events()
    #expect(all.map { "\($0["type"] ?? "-") \($0["zone"] ?? "-")" } == ["exit west"], "\(online.log)")
    #expect(all.first?["t"] as? Double == 1010 && all.first?["dwell"] as? Double == 10)
    #expect(try TrackReader(path: db.path).visits() == [Visit(device: Reference.keys, zone: "west", floor: "main", enter: 1000, exit: 1010)])
}

/// A stop while the database already refuses writes publishes its exits only once their
/// closes are in the journal: a `kill -9` in the stop's retry window can then not leave a
/// published exit that the next start, finding the visit open, closes again with a second
/// one. Each exit's arrival checks the journal is there; before, the exits went out at once
/// and the journal came after the writer's retries. This pins `close()` before publishing.
@Test(.timeLimit(.minutes(2)))
func aStopOnAFailingDatabasePublishesItsExitsOnlyOnceJournaled() async throws {
    let dir = try faultDirectory("stop-failing")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let journal = db.path + ".pending"
    let broker = try Broker()
    defer { broker.stop() }
    let journaledAtExit = Mutex<[Bool]>([])
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events"]) { m in
        guard (jsonObject(m))["type"] as? String == "exit" else { return }
        journaledAtExit.withLock { $0.append(FileManager.default.fileExists(atPath: journal)) }
    }
    try await collector.ready()
    let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let traffic = try Traffic(broker: broker)
    let aggregator = try AggregatorProcess(broker: broker, db: db, directory: dir)
    #expect(await collector.wait(timeout: 20) { _ in events().contains { $0["type"] as? String == "enter" } }, "\(aggregator.log)")
    try await Task.sleep(for: .seconds(1))   // the enter reaches the database

    let holder = try Connection(path: db.path)
    try holder.execute("BEGIN IMMEDIATE")
    defer { try? holder.execute("ROLLBACK") }
    // A walk east: its visit writes fail, and their events go out after the commit patience.
    traffic.change { $0.position = Reference.east }
    let failing = await aggregator.waitForMetrics(timeout: 30) { $0["whereabouts_storage_ok"] == 0 }
    #expect(failing?["whereabouts_storage_ok"] == 0, "\(aggregator.log)")
    let east = { events().contains { $0["type"] as? String == "enter" && $0["zone"] as? String == "east" } }
    #expect(await collector.wait(timeout: 20) { _ in east() }, "\(aggregator.log)")
    await traffic.stop()
    let before = journaledAtExit.withLock { $0.count }
    #expect(await aggregator.stop(timeout: 30) == 0, "\(aggregator.log)")
    #expect(await collector.wait { _ in journaledAtExit.withLock { $0.count } > before }, "\(aggregator.log)")
    // The stop's exit (east): out only with the journal there.
    #expect(journaledAtExit.withLock { Array($0[before...]) } == [true], "\(aggregator.log)")
    #expect(aggregator.log.contains("visit writes kept in \(journal)"), "\(aggregator.log)")
}
