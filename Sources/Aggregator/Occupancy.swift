import Positioning
import Wire

/// Who is in each room and zone, kept from the enter and exit events, in order of entry.
///
/// A zone's occupancy message lists every occupant (docs/protocol.md#mqtt-topics-and-payloads), and a hospital ward holds
/// thousands of tags: looking an occupant up by comparing ids, and quoting every id into each
/// message, made occupancy most of the aggregator's cost at 50,000 devices (docs/benchmarks.md).
/// So each zone keeps its occupants' JSON array body (`"a","b"`) as it changes: an enter appends
/// one quoted id, an exit cuts one out, and a message copies the body whole.
struct Occupancy {
    private var zones: [String: Occupants] = [:]
    /// Quotes ids exactly as the occupancy message's writer would (reused).
    private var quoter = JSONWriter(capacity: 128)

    /// Per room: the sum over devices of their probability of being in it (`DeviceUpdate.rooms`),
    /// the expected count of the room's occupancy; only rooms have one.
    private var expected: [String: Double] = [:]

    init(zones: [String], rooms: [String] = []) {
        for z in zones { self.zones[z] = Occupants() }
        for r in rooms { expected[r] = 0 }
    }

    /// A device's room probabilities went from `old` (its previous update's; empty when it had
    /// none) to `new` (empty when it is forgotten).
    mutating func expect(from old: RoomShares, to new: RoomShares) {
        for r in old { expected[r.id]? -= r.p }
        for r in new { expected[r.id]? += r.p }
    }

    /// The room's expected count, rounded to hundredths (sums drift by rounding); nil for a zone
    /// that is not a room.
    func expected(of zone: String) -> Double? {
        expected[zone].map { (max($0, 0) * 100).rounded() / 100 }
    }

    /// Applies an event; `true` when the zone's occupants changed.
    mutating func apply(_ e: ZoneEvent) -> Bool {
        switch e.type {
        case .enter:
            guard zones[e.zone]?.contains(e.device) != true else { return false }
            quoter.reset()
            quoter.value(e.device)
            zones[e.zone, default: Occupants()].append(e.device, quoted: quoter.bytes)
            return true
        case .exit:
            // In place in the dictionary: a copy out and back would copy every occupant.
            return zones[e.zone]?.remove(e.device) ?? false
        }
    }

    /// How many devices are in `zone`.
    func count(of zone: String) -> Int { zones[zone]?.count ?? 0 }

    /// The zone's occupants' ids, in order of entry.
    func ids(of zone: String) -> [String] { zones[zone]?.ids ?? [] }

    /// The zone's occupants as a JSON array body (`"a","b"`, no brackets), in order of entry.
    func body(of zone: String) -> [UInt8] { zones[zone]?.body ?? [] }

    /// Every zone the site names or an event entered, occupied or not.
    var zoneIds: Dictionary<String, Occupants>.Keys { zones.keys }

    /// Occupants of every zone, in order of entry (tests and snapshots; not on a hot path).
    var devices: [String: [String]] { zones.mapValues(\.ids) }
}

/// One zone's occupants: their ids in order of entry, and the same list as JSON.
struct Occupants {
    /// Ids in order of entry.
    private(set) var ids: [String] = []
    /// `"a","b"`: each occupant's quoted id, comma-separated, in the order of `ids`.
    private(set) var body: [UInt8] = []
    /// Per occupant (same order): where its quoted id starts in `body`.
    private var starts: [Int] = []
    /// Per occupant (same order): its entry number, ascending, so an exit finds its place by
    /// bisection instead of comparing ids.
    private var entries: [UInt64] = []
    /// Each occupant's entry number.
    private var members: [String: UInt64] = [:]
    private var nextEntry: UInt64 = 0

    var count: Int { ids.count }

    func contains(_ id: String) -> Bool { members[id] != nil }

    /// Adds an occupant that is not in yet; `quoted` is its id as JSON.
    mutating func append(_ id: String, quoted: [UInt8]) {
        members[id] = nextEntry
        entries.append(nextEntry)
        nextEntry += 1
        ids.append(id)
        if !body.isEmpty { body.append(UInt8(ascii: ",")) }
        starts.append(body.count)
        body.append(contentsOf: quoted)
    }

    /// Removes an occupant; `false` when it was not in.
    mutating func remove(_ id: String) -> Bool {
        guard let entry = members[id] else { return false }
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid] < entry { low = mid + 1 } else { high = mid }
        }
        guard low < entries.count, entries[low] == entry else { return false }
        members.removeValue(forKey: id)
        // The quoted id and the comma after it; the last one takes the comma before it.
        let cut: Range<Int>
        if low + 1 < starts.count {
            cut = starts[low]..<starts[low + 1]
        } else {
            cut = max(starts[low] - 1, 0)..<body.count
        }
        body.removeSubrange(cut)
        let width = cut.count
        for i in (low + 1)..<starts.count { starts[i] -= width }
        starts.remove(at: low)
        entries.remove(at: low)
        ids.remove(at: low)
        return true
    }
}
