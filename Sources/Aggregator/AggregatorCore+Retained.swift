import MQTT
import Positioning
import Storage
import Wire

/// Messages outside the flow of readings: the subscriptions, what is published at start and
/// again after a reconnect, the exits of visits a crash left open, and a dropped state's repair.
extension AggregatorCore {
    /// The subscriptions the service makes.
    var subscriptions: [String] {
        [topics.allNodeReadings, topics.allNodeStatus, topics.allNodeTelemetry] + dialects.map { $0.subscription() }
    }

    /// Retained messages published at start: discovery and every zone's (empty) occupancy.
    func startMessages(wall: Double) -> [MQTTMessage] {
        var out = publisher.discovery(site: site)
        for zone in Publisher.zoneIds(of: site) {
            out.append(publisher.occupancy(zone: zone, count: occupancy.count(of: zone), devices: occupancy.body(of: zone), t: wall))
        }
        return out
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
        for zone in occupancy.zoneIds {
            out.append(publisher.occupancy(zone: zone, count: occupancy.count(of: zone), devices: occupancy.body(of: zone), t: eventClock?.event ?? 0))
        }
        return out
    }

    /// The service dropped device `id`'s state message (broker lag): its next update is
    /// published, whatever the state deadband would say, so the retained state catches up.
    func stateShed(_ id: String) { publisher.invalidate(id) }
}
