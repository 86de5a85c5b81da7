/// How close a device is to its nearest node, in the classes iOS ranging reports.
public enum Proximity: String, Sendable {
    case immediate, near, far, unknown

    /// `immediate` below 0.5 m, `near` below 3 m, `far` beyond, `unknown` without a distance.
    public init(distance: Double?) {
        guard let d = distance, d.isFinite else { self = .unknown; return }
        self = d < 0.5 ? .immediate : d < 3 ? .near : .far
    }
}

/// The node that hears a device best, and how far the model puts it.
public struct NodeRange: Sendable, Equatable {
    public var node: String
    public var distance: Double
    public var proximity: Proximity
}

/// A device's tracked state after a solve (docs/protocol.md#mqtt-topics-and-payloads `state`).
public struct DeviceUpdate: Sendable, Equatable {
    public var id: String
    public var name: String?
    /// Unix seconds: the event time the update stands for.
    public var t: Double
    public var x: Double
    public var y: Double
    public var z: Double
    public var floor: String?
    /// The room id, `nil` when the device is away.
    public var room: String?
    /// Non-room zones the device is in.
    public var zones: [String]
    public var confidence: Double
    /// Nodes used for the fix.
    public var fixes: Int
    /// When the device entered its current room (Unix seconds).
    public var since: Double
    public var nearest: NodeRange?
    /// The fix's mean robust cost per node (the locator's units; lower fits better).
    public var residual: Double = 0
    /// The last fix held, not a new solve: the device is still and nothing it is heard by
    /// changed (`EngineOptions.holdLimit`). Position, room and zones are those of the last solve.
    public var isHeld = false
    /// The engine's index of the device: the same for every update of it while the engine keeps
    /// it, handed to another device once the engine forgets it (`Engine.takeForgotten`). An owner
    /// may keep per-device state in an array by it (checking `id`) instead of hashing the id;
    /// -1 for an update no engine made.
    public var device = -1
    /// The likeliest rooms by the device's room posterior, with their probabilities
    /// (`RoomShares.most` at most, likeliest first); empty while away.
    public var rooms = RoomShares()
}

/// A device entering or leaving a room or zone (docs/protocol.md#mqtt-topics-and-payloads `events`).
public struct ZoneEvent: Sendable, Equatable {
    public enum Kind: String, Sendable { case enter, exit }
    public var type: Kind
    public var device: String
    public var zone: String
    public var floor: String?
    public var t: Double
    public var confidence: Double
    /// Seconds since the matching enter; on exits only.
    public var dwell: Double?
    /// Whether the zone is a room (rooms partition a floor; other zones may overlap).
    public var isRoom: Bool
}

/// What `Engine.advance` emits, in event-time order per device.
public enum EngineOutput: Sendable, Equatable {
    case update(DeviceUpdate)
    case event(ZoneEvent)
}
