import Foundation
import MQTT
import Storage
import Testing

/// `kill -9` of the aggregator while the nodes keep publishing, and a new one on the same
/// database: the visit the crash left open is carried over (no `exit` and no `enter` again as
/// the traffic places the device in the same room), and over the whole run every `enter` has exactly one `exit`
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
    // The crash's open east visit is carried over: the device goes on in east.
    #expect(await poll(timeout: 20) { second.log.contains("1 visit(s) left open by an unclean stop: carried over") }, "\(second.log)")
    try await Task.sleep(for: .seconds(5))
    #expect(!entered("east", 2), "\(events())\n\(second.log)")
    traffic.change { $0.position = Reference.west }
    #expect(await collector.wait(timeout: 20) { _ in entered("west", 2) }, "\(second.log)")
    await traffic.stop()
    #expect(await second.stop() == 0, "\(second.log)")
    #expect(await collector.wait { _ in events().filter { $0["type"] as? String == "exit" }.count == 3 })

    let all = events()
    #expect(eventsAlternate(all), "\(all.map { "\($0["type"]!) \($0["zone"]!)" })")
    #expect(all.map { "\($0["type"]!) \($0["zone"]!)" } == ["enter west", "exit west", "enter east", "exit east",
                                                             "enter west", "exit west"])
    let reader = try TrackReader(path: db.path)
    #expect(try reader.integrityCheck() == "ok")
    let visits = try reader.visits()
    #expect(visits.map(\.zone) == ["west", "east", "west"])
    #expect(visits.allSatisfy { $0.exit != nil })
    #expect(try reader.openVisits().isEmpty)
}

/// The durability bar (docs/reliability.md), under a steady stream (24 devices walking, so track points keep
/// coming): two `kill -9`s and restarts on the same file, each checked against what a plain
/// subscriber got. The test above covers the restart's events (one `exit` per `enter`, no
/// duplicate `enter`); this one checks what the database holds.
///
/// 1. The walkers pace inside their rooms, so no zone event is due and the writer commits on
///    its timer alone; the aggregator is killed at a moment that has nothing to do with a
///    commit. The track must lose at most the last second (see `firstUnstored`).
/// 2. The walkers cross between the rooms, so events come every few tenths of a second, and
///    the subscriber's own MQTT callback kills the aggregator the moment an event arrives: an
///    event published before its commit would die with its commit still to come. Commits
///    take a millisecond, less than a publish takes to reach the subscriber, so another
///    connection holds the write lock most of the time (`LockPulses`): an event published
///    before its commit would then reach the subscriber long before the commit can (tried:
///    with the hold taken out of AggregatorService, six runs of six failed here). Every zone
///    event published before either kill must be in the database at its own time: an `enter`
///    as a visit entered then, an `exit` as that visit's exit (a close recovered after the kill
///    would be timed at the device's last track point instead).
///
/// After each kill: the visits it left open are carried over by the next aggregator (no `exit`
/// published for them at the start); the last one's clean stop closes every visit.
/// At the end the file is intact.
@Test(.timeLimit(.minutes(3)))
func aKill9UnderASteadyStreamLosesNoPublishedEventAndAtMostTheLastSecondOfTrack() async throws {
    let dir = try faultDirectory("durability")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let broker = try Broker()
    defer { broker.stop() }
    let victim = Shared<Int32?>(nil)
    let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/devices/+/state"]) { m in
        // Armed: the first event to arrive kills the aggregator, from the client's own thread.
        if m.topic.hasSuffix("/events"), let pid = victim.current { kill(pid, SIGKILL) }
    }
    try await collector.ready()
    let events = { (messages: ArraySlice<MQTTMessage>) in messages.filter { $0.topic.hasSuffix("/events") }.map(jsonObject) }
    let walkers = (0..<24).map { pacer($0, of: 24, crossing: false) }
    let traffic = try Traffic(broker: broker, settings: Traffic.Settings(walkers: walkers))

    /// After a kill: what the subscriber got from the killed aggregator (the messages it handed
    /// the broker may still be on their way, hence the wait), the visits left open, and a new
    /// aggregator that must carry them over, publishing no exit for them at its start.
    func restart(after killed: AggregatorProcess, name: String) async throws -> (life: ArraySlice<MQTTMessage>, started: Double, next: AggregatorProcess) {
        try await Task.sleep(for: .seconds(1))
        let life = collector.messages[...]
        let leftOpen = try TrackReader(path: db.path).openVisits()
        #expect(!leftOpen.isEmpty, "the kill left no visit open: nothing for \(name) to recover")
        let started = Date().timeIntervalSince1970
        let next = try AggregatorProcess(broker: broker, db: db, directory: dir, name: name)
        let recoveredExit = { (e: [String: Any], v: OpenVisit) -> Bool in
            e["type"] as? String == "exit" && e["device"] as? String == v.visit.device && e["zone"] as? String == v.visit.zone
                && abs((e["t"] as? Double ?? 0) - v.closeAt) < 0.0006
        }
        #expect(await poll(timeout: 20) { next.log.contains("\(leftOpen.count) visit(s) left open by an unclean stop: carried over") },
                "\(name) did not carry \(leftOpen.count) visits over:\n\(next.log)")
        try await Task.sleep(for: .seconds(3))
        let after = events(collector.messages.dropFirst(life.count))
        #expect(!leftOpen.contains { v in after.contains { recoveredExit($0, v) } }, "\(name) closed a visit it should carry over:\n\(next.log)")
        return (life, started, next)
    }

    // 1. Walking inside the rooms; a kill at no particular moment.
    let first = try AggregatorProcess(broker: broker, db: db, directory: dir, name: "first")
    #expect(await collector.wait(timeout: 30) { _ in events(collector.messages[...]).count >= walkers.count + 1 }, "\(first.log)")
    try await Task.sleep(for: .seconds(8))
    first.kill9()
    let (firstLife, secondStarted, second) = try await restart(after: first, name: "second")

    // 2. Crossing between the rooms; a kill the moment an event arrives, while another
    // connection keeps taking the write lock so that commits wait.
    traffic.change { $0.walkers = (0..<24).map { pacer($0, of: 24, crossing: true) } }
    #expect(await collector.wait(timeout: 30) { all in events(all.dropFirst(firstLife.count)).count >= 60 }, "\(second.log)")
    let locks = LockPulses(path: db.path)
    #expect(await poll(timeout: 10) { locks.pulses >= 2 })
    victim.update { $0 = second.process.processIdentifier }
    #expect(await poll(timeout: 20) { !second.isRunning }, "no zone event arrived to kill on:\n\(second.log)")
    second.kill9()
    victim.update { $0 = nil }
    #expect(await locks.stop())
    await traffic.stop()
    let (bothLives, _, third) = try await restart(after: second, name: "third")
    // The third's clean stop closes the visits it carried over.
    #expect(await third.stop() == 0, "\(third.log)")
    #expect(try TrackReader(path: db.path).openVisits().isEmpty)

    let reader = try TrackReader(path: db.path)
    #expect(try reader.integrityCheck() == "ok")
    let visits = try reader.visits()
    #expect(visits.allSatisfy { $0.exit != nil })

    // Every event published before either kill is in the database, at its time.
    let published = events(bothLives)
    #expect(published.count >= walkers.count + 60)
    let missing = published.filter { e in
        let t = e["t"] as? Double ?? -1, device = e["device"] as? String, zone = e["zone"] as? String
        return !visits.contains { v in
            guard v.device == device && v.zone == zone else { return false }
            switch e["type"] as? String {
            case "enter": return abs(v.enter - t) < 0.0006
            case "exit": return v.exit.map { abs($0 - t) < 0.0006 } ?? false
            default: return false
            }
        }
    }
    #expect(missing.isEmpty, "published before a kill, not in the database: \(missing)")

    // At most the last second of track, device by device, in the first life (the track points
    // of later lives are all newer than its kill).
    let states = Dictionary(grouping: firstLife.filter { $0.topic.hasSuffix("/state") }.compactMap(SeenState.init), by: \.id)
    #expect(states.count == walkers.count + 1)
    var lost: [String] = []
    var worst = 0.0, points = 0
    for (id, seen) in states {
        var stored: [TrackPoint] = []
        try reader.history(device: id, until: secondStarted) { stored.append($0) }
        points += stored.count
        if walkers.contains(where: { $0.id == id }) {
            // Walking 1 m/s for 8 s and more: a point most seconds, or the check below means little.
            #expect(stored.count >= 4, "\(id): \(stored.count) track points")
        }
        guard let newest = seen.last, let gap = firstUnstored(after: stored.last, in: seen) else { continue }
        worst = max(worst, newest.t - gap.t)
        if gap.t < newest.t - 1 {
            lost.append("\(id): the point thinning kept at \(gap.t) is missing (newest stored: "
                        + "\(stored.last.map { "\($0.t)" } ?? "none"), \(newest.t - gap.t) s before the last state at \(newest.t)")
        }
    }
    #expect(lost.isEmpty, "more than the last second of track lost:\n\(lost.joined(separator: "\n"))")
    print("durability: \(published.count) events published before the kills, \(missing.count) of them not stored; \(points) "
          + "track points before the first kill, at most the last \(worst) s of track lost; \(locks.pulses) write locks taken")
}

/// Another connection takes SQLite's write lock for 1 s of every 1.2 s, as a `sqlite3`
/// session would: the writer's commits wait for it, within their 2 s busy timeout, so storage
/// stays ok and events are held for their commit. The aggregator's patience is 2 s: an event
/// whose commit takes longer is published anyway (a failing disk must not stop publishing),
/// and a kill in that window loses it. That trade is deliberate (docs/storage.md); what this
/// shows is the hold for commits delayed up to a second.
private final class LockPulses: Sendable {
    private let state = Shared((running: true, stopped: false, pulses: 0))

    init(path: String) {
        let thread = Thread { [state] in
            if let c = try? Connection(path: path) {
                while state.current.running {
                    if (try? c.execute("BEGIN IMMEDIATE")) != nil {
                        state.update { $0.pulses += 1 }
                        usleep(1_000_000)
                        try? c.execute("COMMIT")
                    }
                    usleep(200_000)
                }
            }
            state.update { $0.stopped = true }
        }
        thread.start()
    }

    var pulses: Int { state.current.pulses }

    /// Stops taking the lock; true once the lock is let go.
    func stop() async -> Bool {
        state.update { $0.running = false }
        return await poll(timeout: 5) { self.state.current.stopped }
    }
}

/// Walker `i` of `n` paces on a line of its own: `crossing` from wall to wall of the whole site
/// at 1.2 m/s (an 8 s round, each walker a fraction of a round behind the one before, so
/// rooms change, and events come, every few tenths of a second across the walkers), or inside
/// its room (every other walker in the west, the rest in the east) along the room's 4 m at
/// 1 m/s, so that its position moves on by more than thinning's 0.3 m in most seconds even
/// after the engine's 3 s smoothing.
private func pacer(_ i: Int, of n: Int, crossing: Bool) -> Traffic.Walker {
    Traffic.Walker(id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-2-\(i)") { t in
        let (span, speed) = crossing ? (4.8, 1.2) : (3.2, 1.0)
        let phase = (t / (2 * span / speed) + Double(i) / Double(n)).truncatingRemainder(dividingBy: 1)
        let along = span * (phase < 0.5 ? 2 * phase : 2 - 2 * phase)
        let lane = Double(i % 6) / 5
        return crossing ? (x: 0.6 + along, y: 0.6 + 2.8 * lane)
                        : (x: (i % 2 == 0 ? 0.6 : 3.6) + 1.8 * lane, y: 0.4 + along)
    }
}

/// A `devices/<id>/state` message as a subscriber reads it.
private struct SeenState {
    var id: String, t: Double, x: Double, y: Double, z: Double
    var room: String?, floor: String?

    init?(_ m: MQTTMessage) {
        let s = jsonObject(m)
        guard let id = s["id"] as? String, let t = s["t"] as? Double, let x = s["x"] as? Double,
              let y = s["y"] as? Double, let z = s["z"] as? Double else { return nil }
        (self.id, self.t, self.x, self.y, self.z) = (id, t, x, y, z)
        room = (s["room"] as? String).flatMap { $0 == "away" ? nil : $0 }
        floor = s["floor"] as? String
    }
}

/// The first position after `stored` (the device's newest track point in the database) that
/// the writer's thinning must have kept, or nil when none had to be.
///
/// What "at most the last second of track" means with thinning: a moving device writes a
/// point at most every `trackInterval` (1 s), a still one every `stillInterval` (60 s), so
/// the newest stored point may rightly be more than a second older than the last state, and
/// comparing those two times would either pass a real loss or fail a still device. Instead the
/// thinning rule is replayed over the states the subscriber saw (each state with a room is one
/// position offered to the track, with the same time): from the stored point on, the first
/// state that moved on by `stillDistance` at least `trackInterval` later, changed room or
/// floor, or came `stillInterval` later was written, and since it is not in the database it
/// was lost, with everything after it. The bar holds when that first loss is within a second
/// of the device's last state. A writer that commits late, drops points or loses a backlog to
/// the kill fails it (tried: with `commitInterval` 3 s instead of 0.5 s, two runs of two
/// failed, every walker missing 1–1.5 s; with 0.5 s nothing thinning kept was missing). States carry positions to 0.01 m and times to 1 ms, so a state counts
/// only when it is clearly past the thresholds (2 cm, 1 ms): rounding can make this lenient by
/// one state, never fail a track that lost nothing.
private func firstUnstored(after stored: TrackPoint?, in states: [SeenState],
                           rule: WriterConfiguration = WriterConfiguration()) -> SeenState? {
    for s in states where s.room != nil {
        guard let p = stored else { return s }
        let dt = s.t - p.t
        guard dt > 0.001 else { continue }
        if s.room != p.room || s.floor != p.floor || dt > rule.stillInterval + 0.001 { return s }
        let moved = ((s.x - p.x) * (s.x - p.x) + (s.y - p.y) * (s.y - p.y) + (s.z - p.z) * (s.z - p.z)).squareRoot()
        if dt > rule.trackInterval + 0.001 && moved > rule.stillDistance + 0.02 { return s }
    }
    return nil
}
