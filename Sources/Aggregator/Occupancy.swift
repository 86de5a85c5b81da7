import Positioning

/// Who is in each room and zone, kept from the enter and exit events.
struct Occupancy {
    private(set) var devices: [String: [String]] = [:]

    init(zones: [String]) {
        for z in zones { devices[z] = [] }
    }

    /// Applies an event; `true` when the zone's occupants changed.
    ///
    /// The list is changed in place in the dictionary: copying it out and back would copy
    /// every occupant on each event (a ward with thousands of tags).
    mutating func apply(_ e: ZoneEvent) -> Bool {
        switch e.type {
        case .enter:
            guard devices[e.zone]?.contains(e.device) != true else { return false }
            devices[e.zone, default: []].append(e.device)
        case .exit:
            guard let i = devices[e.zone]?.firstIndex(of: e.device) else { return false }
            devices[e.zone]?.remove(at: i)
        }
        return true
    }
}
