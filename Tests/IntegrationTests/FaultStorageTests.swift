import Foundation
import MQTT
import Storage
import Testing

/// The device walks from the west room to the east room while the database refuses writes
/// for `outage` seconds (`hold` starts the fault, `release` ends it): positions, rooms and
/// the zone events are still published during the fault, /metrics says storage is failing,
/// and once it ends the queued writes land: the visits and the track cover the fault.
private func walkThroughAStorageFault(_ name: String, outage: Double,
                                      hold: (URL) throws -> Void, release: (URL) throws -> Void) async throws {
    let dir = try faultDirectory(name)
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/devices/+/room", "whereabouts/zones/+/events"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: db, directory: dir)
    let traffic = try Traffic(broker: broker)
    let room = "whereabouts/devices/\(Reference.keys)/room"
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "west" } }, "\(aggregator.log)")
    try await Task.sleep(for: .seconds(1))

    try hold(db)
    let faultStart = Date().timeIntervalSince1970
    traffic.change { $0.position = Reference.east }
    let failing = await aggregator.waitForMetrics(timeout: outage) { $0["whereabouts_storage_ok"] == 0 }
    #expect(failing?["whereabouts_storage_ok"] == 0, "storage never reported failing:\n\(aggregator.log)")
    // One prefix, the writer's own (the service once added a second: `storage: storage: …`).
    #expect(await poll(timeout: 5) { aggregator.log.contains("whereabouts-aggregator: storage: \(db.path): writes failing") }, "\(aggregator.log)")
    #expect(!aggregator.log.contains("storage: storage:"), "\(aggregator.log)")
    // Publishing goes on: the room changes and its events come out while the fault lasts.
    #expect(await collector.wait(timeout: outage) { $0.contains { $0.topic == room && payloadText($0) == "east" } }, "\(aggregator.log)")
    #expect(await collector.wait(timeout: outage) { $0.contains { jsonObject($0)["type"] as? String == "enter" && jsonObject($0)["zone"] as? String == "east" } },
            "\(aggregator.log)")
    let waited = Date().timeIntervalSince1970 - faultStart
    if waited < outage { try await Task.sleep(for: .seconds(outage - waited)) }
    try release(db)
    let faultEnd = Date().timeIntervalSince1970

    let resumed = await aggregator.waitForMetrics(timeout: 20) { $0["whereabouts_storage_ok"] == 1 && $0["whereabouts_storage_queue_depth"] == 0 }
    #expect(resumed != nil, "\(aggregator.log)")
    #expect((resumed?["whereabouts_storage_errors_total"] ?? 0) > 0)
    #expect(resumed?["whereabouts_storage_dropped_total"] == 0)
    #expect(resumed?["whereabouts_storage_invalid_total"] == 0)
    await traffic.stop()
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")

    let reader = try TrackReader(path: db.path)
    #expect(try reader.integrityCheck() == "ok")
    #expect(try reader.visits().map(\.zone) == ["west", "east"])
    // The track kept what was positioned during the fault (thinning keeps a still device's
    // points sparse, so this asks for the east room rather than a count).
    var during: [TrackPoint] = []
    try reader.history(device: Reference.keys, since: faultStart, until: faultEnd) { during.append($0) }
    #expect(during.contains { $0.room == "east" }, "track points from the fault: \(during)")
}

/// Another connection holds SQLite's write lock for 6 s (longer than the writer's 2 s busy
/// timeout), as a backup or a careless `sqlite3` session would.
@Test(.timeLimit(.minutes(2)))
func aLockedDatabaseDelaysWritesButNotPositions() async throws {
    var holder: Connection?
    try await walkThroughAStorageFault("locked", outage: 6, hold: { db in
        let c = try Connection(path: db.path)
        try c.execute("BEGIN IMMEDIATE")
        holder = c
    }, release: { _ in
        try holder?.execute("COMMIT")
        holder = nil
    })
}

/// Whether this machine lets the tests make a file immutable (root with CAP_LINUX_IMMUTABLE
/// on a file system with the attribute): the only way to make a file unwritable for root.
private let canMakeImmutable: Bool = {
    let probe = FileManager.default.temporaryDirectory.appendingPathComponent("immutable-probe-\(getpid())")
    FileManager.default.createFile(atPath: probe.path, contents: nil)
    defer { _ = try? runCommand("/usr/bin/chattr", ["-i", probe.path]); try? FileManager.default.removeItem(at: probe) }
    return (try? runCommand("/usr/bin/chattr", ["+i", probe.path]))?.status == 0
}()

/// The database file and its write-ahead log become unwritable (immutable) for 6 s. The
/// `-shm` index stays writable: SQLite maps it into memory, and a store to a mapped page of
/// an unwritable file is a SIGBUS, not an error code (tried: the aggregator died; see
/// docs/reliability.md).
@Test(.timeLimit(.minutes(2)), .enabled(if: canMakeImmutable, "chattr +i is not allowed here"))
func aReadOnlyDatabaseDelaysWritesButNotPositions() async throws {
    let files = { (db: URL) in ["", "-wal"].map { db.path + $0 }.filter { FileManager.default.fileExists(atPath: $0) } }
    try await walkThroughAStorageFault("readonly", outage: 6, hold: { db in
        let result = try runCommand("/usr/bin/chattr", ["+i"] + files(db))
        guard result.status == 0 else { throw HarnessError("chattr +i: \(result)") }
    }, release: { db in
        let result = try runCommand("/usr/bin/chattr", ["-i"] + files(db))
        guard result.status == 0 else { throw HarnessError("chattr -i: \(result)") }
    })
}
