import Positioning
import Wire
import SiteModel

/// What a consumer of `devices/<id>/state` would notice, as last published for a device.
struct PublishedState {
    var room: String
    var floor: String?
    var zones: [String]
    var nearest: String?
    var proximity: Proximity?
    var x: Double, y: Double
    var confidence: Double
    var t: Double

    /// `room` is the room as published (`away` when the update has none). Keeps references to
    /// the update's strings and zone array: no allocation.
    init(_ u: DeviceUpdate, room: String) {
        self.room = room
        floor = u.floor
        zones = u.zones
        nearest = u.nearest?.node
        proximity = u.nearest?.proximity
        x = u.x; y = u.y
        confidence = u.confidence
        t = u.t
    }
}

/// When a device's state is published again (docs/protocol.md#mqtt-topics-and-payloads fixes no cadence): the deadband of the
/// site's `positioning.state_deadband` and `state_heartbeat`.
///
/// The engine makes an update about every `updateInterval` (0.5 s) for each device it solves,
/// still or not; most tags lie still, and their fixes wander within the positioning's scatter. A state message
/// is QoS 1 and retained, so each costs the broker a store and every subscriber (Home
/// Assistant's recorder writes each attribute change) a message. The policy publishes at once
/// what a consumer acts on (room, away/back, floor, zones, the nearest node's proximity class
/// with hysteresis, a confidence step) and a move of `deadband` metres or more; otherwise only a heartbeat every
/// `heartbeat` seconds of event time keeps `t` fresh. Positions, rooms, zone events and the
/// SQLite tracks do not depend on it: they are made before it, from every update.
struct StatePolicy: Sendable, Equatable {
    /// Metres on the floor plan (x and y; a floor change publishes through `floor`). 0: every update.
    var deadband: Double
    /// Seconds of event time. 0: every update.
    var heartbeat: Double
    /// A change of confidence this large publishes (it is published with two decimals).
    static let confidenceStep = 0.15

    init(deadband: Double, heartbeat: Double) {
        self.deadband = deadband
        self.heartbeat = heartbeat
    }

    init(_ settings: PositioningSettings) {
        self.init(deadband: settings.stateDeadband, heartbeat: settings.stateHeartbeat)
    }

    /// Whether update `u`, whose published room is `room`, is worth a state message after `last`.
    func publishes(_ u: DeviceUpdate, room: String, after last: PublishedState) -> Bool {
        if deadband <= 0 || heartbeat <= 0 { return true }
        // Heartbeat, either way: a clock that stepped back does not silence a device.
        // Comparisons written so that a NaN publishes rather than silences.
        if !(abs(u.t - last.t) < heartbeat) { return true }
        if room != last.room || u.floor != last.floor { return true }
        if (u.nearest?.node != last.nearest || u.nearest?.proximity != last.proximity) && Self.nearestChanged(u.nearest, from: last) {
            return true
        }
        if !(abs(u.confidence - last.confidence) < Self.confidenceStep) { return true }
        let dx = u.x - last.x, dy = u.y - last.y
        // Without a floor plan neither has a position (both not numbers): nothing moved.
        let unplaced = u.x.isNaN && last.x.isNaN
        if !unplaced && !(dx * dx + dy * dy < deadband * deadband) { return true }
        return u.zones != last.zones
    }

    /// The published proximity class is left at once only this far outside it (distance × or
    /// ÷ 1.25 beyond its bounds: `immediate` from 0.625 m, `near` below 0.4 or from 3.75 m,
    /// `far` below 2.4 m).
    static let proximityMargin = 1.25

    /// Whether the nearest node or its proximity changed enough to publish before the deadband
    /// or the heartbeat would. Both come from the strongest reading of the window (docs/protocol.md#mqtt-topics-and-payloads, as
    /// iOS ranging reports it), not from the fix: a tag between two nodes, or 3 m from one,
    /// flips between them on every few dB of noise. So the class is taken as changed only when
    /// the distance lies well outside the class last published, and another node at the same
    /// class waits for the device to move or for the heartbeat; gaining or losing a nearest node,
    /// or its distance becoming unknown, is a change.
    static func nearestChanged(_ nearest: NodeRange?, from last: PublishedState) -> Bool {
        guard let n = nearest, let lastProximity = last.proximity else { return (nearest == nil) != (last.proximity == nil) }
        guard n.proximity != lastProximity else { return false }
        let d = n.distance
        switch lastProximity {
        case .immediate: return !(d < 0.5 * proximityMargin)
        case .near: return !(d >= 0.5 / proximityMargin && d < 3 * proximityMargin)
        case .far: return !(d >= 3 / proximityMargin)
        case .unknown: return true
        }
    }
}
