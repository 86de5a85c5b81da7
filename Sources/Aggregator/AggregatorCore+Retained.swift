import MQTT
import Positioning
import Storage
import Wire

/// Messages outside the flow of readings: the subscriptions, the retained occupancy read back
/// at start, what is published again after a reconnect, the exits of visits a crash left open,
/// and a dropped state's repair.
extension AggregatorCore {
    /// The subscriptions the service makes.
    var subscriptions: [String] {
        readingsSubscriptions + [topics.allNodeStatus, topics.allNodeTelemetry] + dialects.map { $0.subscription() }
    }

    /// Where the aggregator reads its own retained occupancy back during the warm-up.
    /// A shard reads its own share back, under `<p>/shards/<I>`.
    var retainedOccupancy: String { "\(occupancyPrefix)/zones/+/occupancy" }
    var occupancyPrefix: String { shard.isWhole ? topics.prefix : topics.shard(shard.index).prefix }

    /// A retained occupancy read back from the broker: what subscribers hold for that zone
    /// (`OccupancyWarmUp`). `true` when `topic` is a zone's occupancy (an echo of our own once warm).
    func readBack(topic: String, payload: UnsafeRawBufferPointer) -> Bool {
        guard let zone = Self.zone(ofOccupancy: topic, prefix: occupancyPrefix) else { return false }
        if warmUp.warming, let devices = Self.occupants(payload) { warmUp.believe(zone: zone, devices: devices) }
        return true
    }

    /// `<prefix>/zones/<zone>/occupancy`'s zone, unescaped.
    static func zone(ofOccupancy topic: String, prefix: String) -> String? {
        let head = prefix + "/zones/", tail = "/occupancy"
        guard topic.hasPrefix(head), topic.hasSuffix(tail), topic.utf8.count > head.utf8.count + tail.utf8.count else { return nil }
        let level = topic.dropFirst(head.count).dropLast(tail.count)
        guard !level.contains("/") else { return nil }
        return Topics.unescape(level)
    }

    /// The `devices` of an occupancy payload; nil when it is not one.
    static func occupants(_ payload: UnsafeRawBufferPointer) -> Set<String>? {
        var scanner = JSONScanner(payload)
        var devices: Set<String>?
        do throws(JSONError) {
            try scanner.object { (s: inout JSONScanner, key) throws(JSONError) in
                if keyEquals(key, "devices") {
                    var ids = Set<String>()
                    try s.array { (s: inout JSONScanner) throws(JSONError) in ids.insert(try s.string()) }
                    devices = ids
                } else {
                    try s.skipValue()
                }
            }
        } catch { return nil }
        return devices
    }

    /// Ends the warm-up when it is due: the zones held back or never published that differ
    /// from what the broker holds are published. `true` when it ended.
    func endWarmUpIfDue(wall: Double, into effects: inout [Effect]) -> Bool {
        let occupancy = occupancy
        guard warmUp.isOver(at: wall, awayAfter: site.positioning.awayAfter, occupants: { occupancy.ids(of: $0) }) else { return false }
        let zones = warmUp.end(zones: Publisher.zoneIds(of: site) + Array(occupancy.zoneIds), occupants: { occupancy.ids(of: $0) })
        var seen = Set<String>(), messages: [MQTTMessage] = []
        // The devices held back first: their rooms, then the zones they are in.
        for id in warmUp.takeHeldDevices() {
            if let u = states[id] { publisher.update(u, into: &messages) }
        }
        for zone in zones where seen.insert(zone).inserted {
            messages.append(publisher.occupancy(zone: zone, count: occupancy.count(of: zone), devices: occupancy.body(of: zone),
                                                t: eventClock.map { $0.event + max(0, wall - $0.wall) } ?? wall))
        }
        for m in messages { effects.append(.publish(m)) }
        return true
    }

    /// The exit event of a visit a crash left open (its row is closed already).
    func recoveredExit(_ visit: Visit, at t: Double) -> MQTTMessage {
        publisher.event(ZoneEvent(.exit, device: visit.device, zone: visit.zone, floor: visit.floor, t: t,
                                  confidence: 0, dwell: t - visit.enter, isRoom: false))
    }

    /// Every device's room and state and every zone's occupancy, to publish again after the
    /// broker may have lost its retained messages.
    func currentStateMessages() -> [MQTTMessage] {
        var out: [MQTTMessage] = []
        publisher.forgetRooms()
        for u in states.values { publisher.update(u, into: &out) }
        // While warming, the zones wait for the warm-up's end, which publishes them.
        guard !warmUp.warming else { return out }
        for zone in occupancy.zoneIds {
            out.append(publisher.occupancy(zone: zone, count: occupancy.count(of: zone), devices: occupancy.body(of: zone), t: eventClock?.event ?? 0))
        }
        return out
    }

    /// The service dropped device `id`'s state message (broker lag): its next update is
    /// published, whatever the state deadband would say, so the retained state catches up.
    func stateShed(_ id: String) { publisher.invalidate(id) }
}
