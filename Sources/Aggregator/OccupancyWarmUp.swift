/// What subscribers were told of each zone's occupants before this start, and whether the
/// engine has placed them all again.
///
/// At a start the engine knows no device: every zone would read empty until each device's
/// first window of readings placed it again, and publishing those counts told Home Assistant
/// "room empty" (and then "occupied" again) at every restart with nobody moving. So the
/// aggregator reads its own retained occupancy back from the broker (what every subscriber
/// holds, with or without a database, after a clean stop or a crash alike) and, until the warm-up
/// ends, publishes a zone only when none of those occupants is missing from it: a zone may
/// gain occupants at once, never lose one it had. The warm-up ends when every zone holds what
/// it held, or after `away_after` (a device not heard again by then is away, as it would be
/// without a restart); then each zone that differs is published.
///
/// A fresh engine's first fixes of a device come from a window just begun, and may put a tag
/// lying by a wall in the next room for a few seconds (seen in `make ha-test`: the keys in the
/// hall shown in the living room for 20 s after a restart). So while warming, a device the
/// broker holds in one room and the engine places in another is not published (its room and
/// state) and makes no zone gain it: that waits until the engine agrees with the broker or the
/// warm-up ends, when the device's latest state is published. A device that really moved while
/// the aggregator was down thus shows at its new place at most `away_after` after the start.
struct OccupancyWarmUp {
    /// The site's rooms (zones of kind room): a device is in at most one.
    let rooms: Set<String>
    /// Each device's room as the broker holds it (from the rooms' retained occupancy).
    private(set) var believedRoom: [String: String] = [:]
    /// Devices whose room and state were held back.
    private(set) var heldDevices: Set<String> = []
    /// Each zone's occupants as retained on the broker, by zone.
    private(set) var believed: [String: Set<String>] = [:]
    /// Zones whose occupancy was published since the start.
    private(set) var published: Set<String> = []
    /// Zones whose change was held back and not published since.
    private(set) var held: Set<String> = []
    /// Wall time of the first connection (nil: not connected yet).
    private(set) var started: Double?
    /// While true, occupancy waits as described above.
    private(set) var warming = true
    /// Seconds at least spent warming, so the retained messages (delivered on subscription,
    /// milliseconds after the connection) are read before "every zone holds what it held".
    static let minimum = 2.0

    init(rooms: Set<String> = []) { self.rooms = rooms }

    /// The first connection (later ones keep the first time).
    mutating func connected(at wall: Double) { if started == nil { started = wall } }

    /// A retained occupancy read back. Ignored once warm, and for a zone published since the start:
    /// the broker sends the retained message on subscription, before it handles anything we publish
    /// after, so a later one is an echo of our own and taking it would make occupants we only
    /// gained look held by subscribers (held until `away_after`).
    mutating func believe(zone: String, devices: Set<String>) {
        guard warming, !published.contains(zone) else { return }
        believed[zone] = devices
        guard rooms.contains(zone) else { return }
        believedRoom = believedRoom.filter { $0.value != zone }
        for d in devices { believedRoom[d] = zone }
    }

    /// Whether device `id`, placed in `room`, is held back: the broker holds it in another room.
    mutating func holds(_ id: String, room: String) -> Bool {
        guard warming, let believed = believedRoom[id], believed != room else { return false }
        heldDevices.insert(id)
        return true
    }

    /// Whether `zone`, now holding `occupants`, may be published: no occupant the broker holds
    /// in it is missing, and no occupant it gains is one the broker holds in another room than
    /// the engine's (`roomOf`).
    func publishes(zone: String, occupants: [String], roomOf: (String) -> String?) -> Bool {
        guard warming else { return true }
        let before = believed[zone] ?? []
        guard before.isSubset(of: occupants) else { return false }
        return occupants.allSatisfy { d in
            before.contains(d) || believedRoom[d].map { $0 == roomOf(d) } ?? true
        }
    }

    mutating func didPublish(_ zone: String) {
        guard warming else { return }
        published.insert(zone)
        held.remove(zone)
    }

    mutating func hold(_ zone: String) { held.insert(zone) }

    /// Whether the warm-up is over at `wall`: `awayAfter` since the first connection, or every
    /// believed zone holds its occupants again (and `minimum` has passed).
    func isOver(at wall: Double, awayAfter: Double, occupants: (String) -> [String]) -> Bool {
        guard warming, let started else { return false }
        if wall - started >= awayAfter { return true }
        guard wall - started >= Self.minimum else { return false }
        return believed.allSatisfy { $0.value.isSubset(of: occupants($0.key)) }
    }

    /// Ends the warm-up; returns the zones of `zones` to publish now: those whose change was held
    /// back, and those not published during it whose occupants differ from what the broker
    /// holds (or of which it holds nothing).
    /// `heldDevices` stay for the caller to publish (`takeHeldDevices`).
    mutating func end(zones: [String], occupants: (String) -> [String]) -> [String] {
        warming = false
        defer { believed = [:]; published = []; held = []; believedRoom = [:] }
        return zones.filter { zone in
            if held.contains(zone) { return true }
            guard !published.contains(zone) else { return false }
            guard let before = believed[zone] else { return true }
            return before != Set(occupants(zone))
        }
    }

    /// The devices held back, once: their latest states are published at the warm-up's end.
    mutating func takeHeldDevices() -> Set<String> {
        defer { heldDevices = [] }
        return heldDevices
    }
}
