import Foundation
import PostgresStorage
import Storage
import Testing

/// `--standby`: two aggregators of one shard on a real broker and a private PostgreSQL, the
/// lease a session advisory lock there. The first takes it, the second waits without touching
/// the broker; the first is killed and the second takes over within 10 s (the device's open
/// visit carried over from the store: no exit and no enter at the handover); PostgreSQL
/// restarts and the active, its lease gone, stops at once publishing nothing more, and a third
/// takes over once the server is back. Every event published is in the database at its time,
/// with exactly one exit per enter, across both handovers.
@Suite(.timeLimit(.minutes(5)))
struct StandbyTests {
    @Test func aStandbyTakesOverAndWhatWasPublishedIsStored() async throws {
        let dir = try faultDirectory("standby")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pg = try PostgresCluster()
        try pg.createDatabase("tracks")
        let url = pg.url("tracks")
        let environment = ["PGPASSFILE": pg.passfile.path, "STATE_DIRECTORY": dir.path]
        let broker = try Broker(persistent: true)
        defer { broker.stop() }
        let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/aggregator/status"])
        try await collector.ready()
        let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
        let count = { (type: String, zone: String) in events().filter { $0["type"] as? String == type && $0["zone"] as? String == zone }.count }
        let statuses = { collector.messages.filter { $0.topic.hasSuffix("/aggregator/status") }.map(payloadText) }
        let standby = { (name: String) in
            try AggregatorProcess(broker: broker, db: nil, directory: dir, name: name, extra: ["--standby"],
                                  environment: environment, database: url)
        }

        let first = try standby("first")
        #expect(await poll(timeout: 20) { first.log.contains("took the lease of shard 0/1") }, "\(first.log)")
        let second = try standby("second")
        #expect(await poll(timeout: 20) { second.log.contains("standby: the lease of shard 0/1 is held by") }, "\(second.log)")
        let traffic = try Traffic(broker: broker)
        #expect(await collector.wait(timeout: 20) { _ in count("enter", "west") >= 1 }, "\(first.log)")
        try await Task.sleep(for: .seconds(1.5))
        #expect(!second.log.contains("connected"), "a standby stays off the broker:\n\(second.log)")

        // The active dies; the standby takes the lease, recovers the open visit and is online.
        let onlineBefore = statuses().filter { $0 == "online" }.count
        first.kill9()
        let killed = Date()
        #expect(await collector.wait(timeout: 15) { _ in statuses().filter { $0 == "online" }.count > onlineBefore }, "\(second.log)")
        let takeover = Date().timeIntervalSince(killed)
        print("standby: online \(String(format: "%.1f", takeover)) s after the active was killed")
        #expect(takeover < 10, "\(second.log)")
        #expect(second.log.contains("1 visit(s) left open by an unclean stop: carried over"), "\(second.log)")
        // Seamless: the device stays in its room across the handover, no exit and enter.
        try await Task.sleep(for: .seconds(5))
        #expect(count("exit", "west") == 0 && count("enter", "west") == 1, "\(events())\n\(second.log)")
        traffic.change { $0.position = Reference.east }
        #expect(await collector.wait(timeout: 20) { _ in count("enter", "east") >= 1 }, "\(second.log)")
        #expect(count("exit", "west") == 1, "\(events())")
        try await Task.sleep(for: .seconds(1.5))

        // PostgreSQL restarts: the active's lease is gone with its session, so it stops at once.
        try pg.stop(mode: "fast")
        let published = events().count
        #expect(await poll(timeout: 10) { !second.isRunning }, "\(second.log)")
        #expect(second.process.terminationStatus == 1)
        #expect(second.log.contains("lost the lease of shard 0/1"), "\(second.log)")
        #expect(events().count == published, "published after the lease was lost: \(events().suffix(2))\n\(second.log)")
        let third = try standby("third")
        #expect(await poll(timeout: 20) { third.log.contains("cannot reach the store for the lease") }, "\(third.log)")
        try pg.start()
        #expect(await poll(timeout: 20) { third.log.contains("took the lease of shard 0/1") }, "\(third.log)")
        #expect(await poll(timeout: 20) { third.log.contains("carried over") }, "\(third.log)")
        try await Task.sleep(for: .seconds(5))
        #expect(count("exit", "east") == 0 && count("enter", "east") == 1, "\(events())\n\(third.log)")
        await traffic.stop()
        #expect(await third.stop() == 0, "\(third.log)")
        #expect(await collector.wait { _ in count("exit", "east") >= 1 })

        let all = events()
        #expect(eventsAlternate(all), "\(all)")
        #expect(all.map { "\($0["type"]!) \($0["zone"]!)" } == ["enter west", "exit west", "enter east", "exit east"])
        let reader = try PostgresReader(url: pg.url("tracks", passfile: true))
        let visits = try reader.visits(zone: nil, device: nil, since: nil, until: nil)
        #expect(visits.count == 2 && visits.allSatisfy { $0.exit != nil }, "\(visits)")
        let missing = eventsNotStored(all, in: visits)
        #expect(missing.isEmpty, "published, not in PostgreSQL: \(missing)")
    }

    /// A device that falls silent as the active dies: the standby carries its visit over and,
    /// `away_after` (120 s on the reference site) after its last stored point, it exits once,
    /// stamped at that point; it never enters again.
    @Test func aSilentDeviceExitsOnceAfterATakeover() async throws {
        let dir = try faultDirectory("standby-silent")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pg = try PostgresCluster()
        try pg.createDatabase("tracks")
        let environment = ["PGPASSFILE": pg.passfile.path, "STATE_DIRECTORY": dir.path]
        let broker = try Broker(persistent: true)
        defer { broker.stop() }
        let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events"])
        try await collector.ready()
        let events = { collector.messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
        let standby = { (name: String) in
            try AggregatorProcess(broker: broker, db: nil, directory: dir, name: name, extra: ["--standby"],
                                  environment: environment, database: pg.url("tracks"))
        }
        let first = try standby("first")
        #expect(await poll(timeout: 20) { first.log.contains("took the lease of shard 0/1") }, "\(first.log)")
        let second = try standby("second")
        let traffic = try Traffic(broker: broker)
        #expect(await collector.wait(timeout: 20) { _ in !events().isEmpty }, "\(first.log)")
        try await Task.sleep(for: .seconds(1.5))
        await traffic.stop()
        first.kill9()
        #expect(await poll(timeout: 15) { second.log.contains("1 visit(s) left open by an unclean stop: carried over") }, "\(second.log)")
        #expect(await collector.wait(timeout: 150) { _ in events().count >= 2 }, "\(second.log)")
        try await Task.sleep(for: .seconds(2))   // time for a wrong second event to arrive
        let all = events()
        #expect(all.map { "\($0["type"] ?? "-") \($0["zone"] ?? "-")" } == ["enter west", "exit west"], "\(all)\n\(second.log)")
        #expect(await second.stop() == 0, "\(second.log)")
        let reader = try PostgresReader(url: pg.url("tracks", passfile: true))
        let visits = try reader.visits(zone: nil, device: nil, since: nil, until: nil)
        #expect(visits.count == 1 && visits.first?.exit.map { abs($0 - (all.last?["t"] as? Double ?? 0)) < 0.0006 } == true, "\(visits)")
    }

    /// The lease itself: one session holds a shard's lock, another shard's is apart, a restart
    /// ends the holder's (it says so), and the lock is free for the next once the server is back.
    @Test func theLeaseIsOneSessionsAndARestartEndsIt() async throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("lease")
        setenv("PGPASSFILE", pg.passfile.path, 1)
        let url = pg.url("lease")
        let a = PostgresLease(url: url, shard: (0, 2)), b = PostgresLease(url: url, shard: (0, 2))
        let other = PostgresLease(url: url, shard: (1, 2))
        #expect(try a.take())
        #expect(try !b.take())
        #expect(b.holder()?.contains("pid") == true, "\(b.holder() ?? "none")")
        #expect(try other.take(), "another shard's lease is its own")
        #expect(a.isHeld() && other.isHeld() && !b.isHeld())
        try pg.stop(mode: "fast")
        #expect(!a.isHeld(), "a restart ends the session and its lock")
        #expect(throws: DatabaseError.self) { try b.take() }
        try pg.start()
        #expect(!a.isHeld(), "a lost lease stays lost until taken again")
        #expect(try b.take())
        #expect(try !a.take())
        // Released when the session ends: the server's backend exits a moment after the close.
        b.release()
        #expect(await poll(timeout: 5) { (try? a.take()) == true })
    }

    @Test func standbyNeedsAPostgresStore() throws {
        let result = try runCommand(executable("whereabouts-aggregator").path,
                                    ["--site", Reference.site.path, "--standby", "--db", "none", "--http", "none"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.contains("--standby: needs a postgresql:// --db"), "\(result)")
    }
}
