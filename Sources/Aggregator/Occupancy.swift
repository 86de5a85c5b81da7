import Positioning

/// Who is in each room and zone, kept from the enter and exit events.
struct Occupancy {
    private(set) var devices: [String: [String]] = [:]

    init(zones: [String]) {
        for z in zones { devices[z] = [] }
    }

    /// Applies an event; `true` when the zone's occupants changed.
    mutating func apply(_ e: ZoneEvent) -> Bool {
        var list = devices[e.zone] ?? []
        switch e.type {
        case .enter:
            guard !list.contains(e.device) else { return false }
            list.append(e.device)
        case .exit:
            guard let i = list.firstIndex(of: e.device) else { return false }
            list.remove(at: i)
        }
        devices[e.zone] = list
        return true
    }
}
