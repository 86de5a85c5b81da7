import Testing
import Wire
import SiteModel
import MQTT
@testable import Positioning
@testable import Aggregator

// The state deadband (`StatePolicy`, site `positioning.state_deadband` / `state_heartbeat`):
// a device's `state` is published when something a consumer acts on changed since the state
// last published for it, or when the heartbeat is due; the room topic, zone events and tracks
// are not affected.

private let id = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"

private func still(t: Double, x: Double = 2, y: Double = 1.5, room: String? = "west", zones: [String] = [],
                   confidence: Double = 0.6, nearest: NodeRange? = NodeRange(node: "a", distance: 1.9, proximity: .near)) -> DeviceUpdate {
    DeviceUpdate(id: id, name: "Keys", t: t, x: x, y: y, z: 1.2, floor: room == nil ? nil : "ground", room: room, zones: zones,
                 confidence: confidence, fixes: 4, since: 1000, nearest: nearest)
}

private func publisher(deadband: Double = 0.25, heartbeat: Double = 10) -> Publisher {
    var site = Site()
    site.positioning.stateDeadband = deadband
    site.positioning.stateHeartbeat = heartbeat
    return Publisher(site: site, topics: Topics())
}

private func stateTopics(_ out: [MQTTMessage]) -> Int { out.filter { $0.topic.hasSuffix("/state") }.count }

@Test func theDefaultsAreAQuarterMetreAndTenSeconds() {
    #expect(StatePolicy(PositioningSettings()) == StatePolicy(deadband: 0.25, heartbeat: 10))
}

@Test func aStillDevicePublishesOnceThenOnlyHeartbeats() {
    var p = publisher()
    var published: [Double] = []
    // 30 s of updates every 0.5 s that wander by a few centimetres and confidence points.
    for i in 0..<60 {
        let t = 1000 + Double(i) * 0.5
        let wobble = Double(i % 5) * 0.03
        var out: [MQTTMessage] = []
        if p.update(still(t: t, x: 2 + wobble, y: 1.5 - wobble, confidence: 0.6 + wobble / 2), into: &out) == .published { published.append(t) }
        #expect(stateTopics(out) == (published.last == t ? 1 : 0))
    }
    #expect(published == [1000, 1010, 1020], "\(published)")
}

@Test func aMoveBeyondTheDeadbandPublishesMeasuredFromTheLastPublished() {
    var p = publisher()
    var out: [MQTTMessage] = []
    #expect(p.update(still(t: 1000), into: &out) == .published)
    #expect(p.update(still(t: 1000.5, x: 2.15), into: &out) == .suppressed)       // 0.15 m
    #expect(p.update(still(t: 1001, x: 2.30), into: &out) == .published)         // 0.30 m from the published 2.0
    #expect(p.update(still(t: 1001.5, x: 2.30, y: 1.70), into: &out) == .suppressed) // 0.20 m from (2.30, 1.5)
    #expect(p.update(still(t: 1002, x: 2.30, y: 1.27), into: &out) == .suppressed)  // 0.23 m
    #expect(p.update(still(t: 1002.5, x: 2.12, y: 1.32), into: &out) == .published)  // 0.255 m, diagonally
    // 2-D: the height alone never publishes (a floor change does, through `floor`).
    var q = publisher()
    #expect(q.update(still(t: 1000), into: &out) == .published)
    var high = still(t: 1000.5)
    high.z = 2.4
    #expect(q.update(high, into: &out) == .suppressed)
    // The published payload is the update's (not the last published one's).
    out.removeAll()
    #expect(q.update(still(t: 1001, x: 3.5, y: 1.5), into: &out) == .published)
    #expect(out.count == 1 && String(decoding: out[0].payload, as: UTF8.self).contains(#""x":3.5,"y":1.5"#))
}

@Test func roomZonesNearestProximityFloorAndConfidencePublishAtOnce() {
    var out: [MQTTMessage] = []
    let changes: [(String, DeviceUpdate)] = [
        ("room", still(t: 1000.5, room: "east")),
        ("zones", still(t: 1000.5, zones: ["desk"])),
        ("nearest node and proximity", still(t: 1000.5, nearest: NodeRange(node: "b", distance: 0.3, proximity: .immediate))),
        ("proximity", still(t: 1000.5, nearest: NodeRange(node: "a", distance: 0.3, proximity: .immediate))),
        ("no nearest", still(t: 1000.5, nearest: nil)),
        ("confidence", still(t: 1000.5, confidence: 0.8)),
        ("away", still(t: 1000.5, room: nil)),
    ]
    for (what, change) in changes {
        var p = publisher()
        #expect(p.update(still(t: 1000), into: &out) == .published)
        // Unchanged, then the one change: published at once, 0.5 s after the last.
        #expect(p.update(still(t: 1000.2), into: &out) == .suppressed, "\(what)")
        out.removeAll()
        #expect(p.update(change, into: &out) == .published, "\(what)")
        #expect(out.last?.topic.hasSuffix("/state") == true, "\(what)")
        // A room change still comes with its room topic, before the state.
        if what == "room" || what == "away" { #expect(out.count == 2 && out[0].topic.hasSuffix("/room"), "\(what)") }
        // And not again while it stays so.
        var again = change
        again.t += 0.5
        #expect(p.update(again, into: &out) == .suppressed, "\(what)")
    }
    // A distance change inside the same proximity class is not a change.
    var p = publisher()
    #expect(p.update(still(t: 1000), into: &out) == .published)
    #expect(p.update(still(t: 1000.5, nearest: NodeRange(node: "a", distance: 2.6, proximity: .near)), into: &out) == .suppressed)
    // A confidence change under the step is not either.
    #expect(p.update(still(t: 1001, confidence: 0.7), into: &out) == .suppressed)
}

/// The nearest node and its distance come from the strongest reading, which flips on noise: a
/// still tag between two nodes, or 3 m from one, would otherwise publish at every flip. A class
/// counts as left only well outside the class last published (a factor of 1.25 on its bounds).
@Test func theNearestNodeAndItsProximityHaveHysteresis() {
    var out: [MQTTMessage] = []
    var p = publisher()
    #expect(p.update(still(t: 1000, nearest: NodeRange(node: "a", distance: 2.9, proximity: .near)), into: &out) == .published)
    // Just over the 3 m bound, and another node as loud: noise, not a change.
    #expect(p.update(still(t: 1000.5, nearest: NodeRange(node: "a", distance: 3.1, proximity: .far)), into: &out) == .suppressed)
    #expect(p.update(still(t: 1001, nearest: NodeRange(node: "b", distance: 2.8, proximity: .near)), into: &out) == .suppressed)
    #expect(p.update(still(t: 1001.5, nearest: NodeRange(node: "b", distance: 3.7, proximity: .far)), into: &out) == .suppressed)
    // Well outside `near` (from 3.75 m): a change, at once.
    #expect(p.update(still(t: 1002, nearest: NodeRange(node: "b", distance: 3.8, proximity: .far)), into: &out) == .published)
    // Back from `far` only below 2.4 m; from `near` into `immediate` below 0.4 m.
    #expect(p.update(still(t: 1002.5, nearest: NodeRange(node: "b", distance: 2.5, proximity: .near)), into: &out) == .suppressed)
    #expect(p.update(still(t: 1003, nearest: NodeRange(node: "b", distance: 2.3, proximity: .near)), into: &out) == .published)
    #expect(p.update(still(t: 1003.5, nearest: NodeRange(node: "b", distance: 0.45, proximity: .immediate)), into: &out) == .suppressed)
    #expect(p.update(still(t: 1004, nearest: NodeRange(node: "b", distance: 0.35, proximity: .immediate)), into: &out) == .published)
    // Out of `immediate` from 0.625 m — also straight to `far`, which is well outside it.
    #expect(p.update(still(t: 1004.5, nearest: NodeRange(node: "b", distance: 0.6, proximity: .near)), into: &out) == .suppressed)
    #expect(p.update(still(t: 1005, nearest: NodeRange(node: "b", distance: 3.2, proximity: .far)), into: &out) == .published)
    // Losing the nearest node altogether is a change; so is finding one again.
    #expect(p.update(still(t: 1005.5, nearest: nil), into: &out) == .published)
    #expect(p.update(still(t: 1006, nearest: NodeRange(node: "b", distance: 2.9, proximity: .near)), into: &out) == .published)
    // The heartbeat publishes whatever flickered meanwhile.
    #expect(p.update(still(t: 1016, nearest: NodeRange(node: "a", distance: 3.1, proximity: .far)), into: &out) == .published)
}

/// A NaN (a solve gone wrong upstream) publishes rather than silencing the device until its
/// heartbeat: every comparison of the deadband is written so.
@Test func aNaNPublishes() {
    var out: [MQTTMessage] = []
    var p = publisher()
    #expect(p.update(still(t: 1000), into: &out) == .published)
    #expect(p.update(still(t: 1000.5, x: .nan), into: &out) == .published)
    #expect(p.update(still(t: 1001, confidence: .nan), into: &out) == .published)
}

@Test func zeroPublishesEveryUpdate() {
    for (deadband, heartbeat) in [(0.0, 10.0), (0.25, 0.0)] {
        var p = publisher(deadband: deadband, heartbeat: heartbeat)
        var out: [MQTTMessage] = []
        for i in 0..<20 { #expect(p.update(still(t: 1000 + Double(i) * 0.5), into: &out) == .published) }
        #expect(stateTopics(out) == 20)
    }
}

@Test func forgettingResetsWhatWasPublished() {
    var p = publisher()
    var out: [MQTTMessage] = []
    #expect(p.update(still(t: 1000), into: &out) == .published)
    #expect(p.update(still(t: 1001), into: &out) == .suppressed)
    #expect(p.deviceCount == 1)
    p.forget(id)
    #expect(p.deviceCount == 0)
    out.removeAll()
    // Known afresh: its room topic and state go out again.
    #expect(p.update(still(t: 1002), into: &out) == .published)
    #expect(out.map { $0.topic.hasSuffix("/room") } == [true, false])
    // After the broker may have lost its retained messages, every device's state goes again.
    #expect(p.update(still(t: 1003), into: &out) == .suppressed)
    p.forgetRooms()
    out.removeAll()
    #expect(p.update(still(t: 1003.5), into: &out) == .published)
    #expect(out.count == 2)
}

@Test func aClockThatSteppedBackDoesNotSilenceADevice() {
    var p = publisher()
    var out: [MQTTMessage] = []
    #expect(p.update(still(t: 1000), into: &out) == .published)
    #expect(p.update(still(t: 995), into: &out) == .suppressed)
    #expect(p.update(still(t: 985), into: &out) == .published)
}

// Through the core: the deadband changes the state messages only. Tracks, rooms and events
// are the same with it and without it (0), and the counters add up to the solved updates.

private func batch(node: String, seq: UInt64, t: Double, rssi: Int) -> [UInt8] {
    var w = JSONWriter(capacity: 1024)
    Batch(node: node, seq: seq, t: t, readings: [Reading(id: "mac:aa:bb:cc:00:00:01", rssi: rssi, t: t - 0.01, kind: .mac)]).encode(into: &w)
    return w.bytes
}

private struct Run {
    var states: [Double] = []
    var rooms: [String] = []
    var tracks: [DeviceUpdate] = []
    var events: [ZoneEvent] = []
    var published = 0.0, suppressed = 0.0, solved = 0.0
    /// When the state told to `stateShed` was made (see `shedAfter`).
    var shedAt: Double?
}

/// `shedAfter`: the first state message made after that time is dropped as the service drops
/// one under broker lag (`AggregatorCore.stateShed`), and not counted in `states`.
private func run(deadband: Double, shedAfter: Double? = nil) -> Run {
    var site = twoRoomSite()
    site.positioning.stateDeadband = deadband
    let topics = Topics()
    let metrics = AggregatorMetrics()
    let core = AggregatorCore(site: site, topics: topics, locator: .default, dialects: [], clockMode: .node, metrics: metrics)
    var effects: [Effect] = []
    var result = Run()
    var seq: UInt64 = 0
    // 40 s lying near node a (west) with levels that wobble by a dB or two (so it is solved,
    // not always held), then 10 s walking east.
    for step in 0..<200 {
        let t = 1000 + Double(step) * 0.25
        let walk = max(0, t - 1040) * 1.5
        let wobble = Double([0, 1, 0, -1, 2, 0, -2, 1][step % 8])
        seq += 1
        for (node, rssi) in [("a", -62.0 - 2 * walk + wobble), ("b", -75.0 + 2 * walk), ("c", -77.0 + 2 * walk - wobble), ("d", -68.0 - walk)] {
            batch(node: node, seq: seq, t: t, rssi: Int(rssi)).withUnsafeBytes {
                core.handle(topic: topics.nodeReadings(node), payload: $0, arrival: t, into: &effects)
            }
        }
        for effect in effects {
            switch effect {
            case .state(_, let device) where shedAfter.map({ t > $0 }) == true && result.shedAt == nil:
                core.stateShed(device)
                result.shedAt = t
            case .state: result.states.append(t)
            // A state that comes with a room change is never dropped, so it is a `.publish`.
            case .publish(let m) where m.topic.hasSuffix("/state"): result.states.append(t)
            case .publish(let m) where m.topic.hasSuffix("/room"): result.rooms.append(String(decoding: m.payload, as: UTF8.self))
            case .track(let u): result.tracks.append(u)
            case .event(let e, _): result.events.append(e)
            default: break
            }
        }
        effects.removeAll()
    }
    result.published = Double(metrics.statesPublished.current)
    result.suppressed = Double(metrics.statesSuppressed.current)
    result.solved = Double(metrics.solved.current)
    return result
}

@Test func theDeadbandChangesStateMessagesOnly() {
    let every = run(deadband: 0), deadband = run(deadband: 0.25)
    #expect(deadband.tracks == every.tracks && deadband.rooms == every.rooms && deadband.events == every.events)
    #expect(!every.rooms.isEmpty && every.rooms.last == "east")
    // Every solved update of a placed device is counted once, published or suppressed.
    #expect(every.suppressed == 0 && Double(every.states.count) == every.published)
    #expect(Double(deadband.states.count) == deadband.published)
    #expect(deadband.published + deadband.suppressed == every.published)
    // Still (after the first placement, 1005–1040 s): only heartbeats and whatever the wobble
    // moved by a quarter metre; without the deadband a state per solve.
    let stillEvery = every.states.filter { $0 > 1005 && $0 < 1040 }.count
    let stillDeadband = deadband.states.filter { $0 > 1005 && $0 < 1040 }.count
    #expect(stillEvery >= 10 && stillDeadband * 3 <= stillEvery, "\(stillDeadband) states with the deadband, \(stillEvery) without")
    #expect(stillDeadband >= 3, "heartbeats every 10 s: \(stillDeadband)")
    // Walking: the state follows.
    #expect(deadband.states.filter { $0 > 1042 }.count >= 8)
}


/// A state dropped under broker lag must not leave the retained state stale until the next
/// change or heartbeat (for a device that then goes silent, for good): the next update is
/// published whatever the deadband says.
@Test func aShedStateIsPublishedAgainAtTheNextUpdate() throws {
    let kept = run(deadband: 0.25), shed = run(deadband: 0.25, shedAfter: 1010)
    let at = try #require(shed.shedAt)
    // Without the shed, nothing is due for a while after that state (the device lies still)…
    #expect(!kept.states.contains { $0 > at && $0 <= at + 3.5 }, "\(kept.states)")
    // …with it, the next solved update is published: a still device is solved at least every
    // 3 s (held in between, and a held fix is never published).
    #expect(shed.states.contains { $0 > at && $0 <= at + 3.5 }, "shed at \(at): \(shed.states)")
}
