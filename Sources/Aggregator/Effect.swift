import MQTT
import Positioning

/// What the core asks the service to do after a message or a tick, in order.
enum Effect {
    /// Publish now.
    case publish(MQTTMessage)
    /// A device's state: publish now, or drop it (counted) while the broker has not
    /// acknowledged too many publishes, and then tell the core (`stateShed`), so that the
    /// device's next update is published whatever the state deadband says.
    case state(MQTTMessage, device: String)
    /// A zone event: store it, then publish its messages once it is on disk.
    case event(ZoneEvent, [MQTTMessage])
    /// A position to keep in the track.
    case track(DeviceUpdate)
    /// A position solved by a backfill pass over a broker outage: kept marked backfilled.
    case backfilledTrack(DeviceUpdate)
    /// A zone event of a backfill pass: stored marked backfilled, then its messages (`"late": true`).
    case lateEvent(ZoneEvent, [MQTTMessage])
    /// A node's telemetry or status, for node health.
    case nodeHealth(node: String, t: Double, telemetry: NodeTelemetry?, online: Bool)
    /// A device the engine forgot: the track writer drops what it keeps for it.
    case forget(String)
}

/// A node's counters from `<p>/nodes/<node>/telemetry` (docs/protocol.md#mqtt-topics-and-payloads).
struct NodeTelemetry: Equatable {
    var adverts: Int64?, published: Int64?, dropped: Int64?, buffered: Int64?
}

extension Effect {
    /// A zone event, live or late, with its messages.
    var zoneEvent: (ZoneEvent, [MQTTMessage], late: Bool)? {
        switch self {
        case .event(let e, let messages): (e, messages, false)
        case .lateEvent(let e, let messages): (e, messages, true)
        default: nil
        }
    }
}
