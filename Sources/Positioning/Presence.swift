import Wire

/// Which room and zones one device is in, with the hysteresis that keeps a still device put.
///
/// A room changes only when another room has held the position, at least `margin` inside
/// it, for `dwell` seconds — longer when the rooms are not joined. Zones are entered after
/// `dwell` seconds clearly inside and left after `dwell` seconds clearly outside. Every enter is paired
/// with exactly one exit, including on `leave` (away or shutdown).
struct Presence: Sendable {
    struct Visit: Sendable {
        var zone: Int
        var inside: Bool
        var enteredAt: Double
        /// When the position first disagreed with `inside`; `nil` while it agrees.
        var pendingSince: Double?
    }

    var room = -1
    var roomSince = 0.0
    var floor = -1
    private var candidate = -1
    private var candidateSince = 0.0
    private(set) var visits: [Visit] = []

    /// One tracked position: may emit exits and enters.
    mutating func observe(_ p: Point2, floor f: Int, confidence: Double, at t: Double, site: SiteGeometry,
                          options: EngineOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        updateRoom(p, floor: f, confidence: confidence, at: t, site: site, options: options, emit: emit)
        updateZones(p, floor: f, at: t, site: site, options: options, emit: emit)
    }

    private mutating func updateRoom(_ p: Point2, floor f: Int, confidence: Double, at t: Double, site: SiteGeometry,
                                     options: EngineOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        guard let (r, depth) = site.room(at: p, floor: f) else { floor = f; return }
        if room < 0 {
            room = r; roomSince = t; floor = f; candidate = -1
            emit(.enter, r, true, nil)
            return
        }
        if r == room { candidate = -1; return }
        guard depth >= options.margin, confidence >= options.minimumConfidence else { return }
        if candidate != r { candidate = r; candidateSince = t }
        let joined = site.mayMove(from: room, to: r) || site.rooms[room].floor != site.rooms[r].floor
        let needed = options.dwell * (joined ? 1 : options.farRoomDwellFactor)
        guard t - candidateSince >= needed else { return }
        emit(.exit, room, true, t - roomSince)
        room = r; roomSince = t; floor = f; candidate = -1
        emit(.enter, r, true, nil)
    }

    private mutating func updateZones(_ p: Point2, floor f: Int, at t: Double, site: SiteGeometry,
                                      options: EngineOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        for z in site.zones.indices {
            let side = Self.side(of: p, in: site.zones[z], floor: f, margin: options.margin)
            if let v = visits.firstIndex(where: { $0.zone == z }) {
                // Near the edge the zone keeps its state: only a clear side starts a change.
                if side == nil || side == visits[v].inside { visits[v].pendingSince = nil; continue }
                let since = visits[v].pendingSince ?? t
                visits[v].pendingSince = since
                guard t - since >= options.dwell else { continue }
                if visits[v].inside {
                    emit(.exit, z, false, t - visits[v].enteredAt)
                    visits.remove(at: v)
                } else {
                    visits[v].inside = true; visits[v].enteredAt = t; visits[v].pendingSince = nil
                    emit(.enter, z, false, nil)
                }
            } else if side == true {
                // Start the clock; the enter comes once the dwell has passed inside.
                visits.append(Visit(zone: z, inside: false, enteredAt: t, pendingSince: t))
                if options.dwell <= 0 { visits[visits.count - 1].inside = true; emit(.enter, z, false, nil) }
            }
        }
        // Forget zones that were only pending and are no longer entered.
        visits.removeAll { !$0.inside && $0.pendingSince == nil }
    }

    /// `true` clearly inside, `false` clearly outside (or on another floor), `nil` within
    /// the margin of the edge. Small zones get a margin of a quarter of their size.
    private static func side(of p: Point2, in zone: SiteGeometry.Area, floor: Int, margin: Double) -> Bool? {
        guard zone.floor == floor else { return false }
        let m = min(margin, zone.size / 4)
        let inside = Polygon.contains(zone.points, p)
        if m <= 0 { return inside }
        return Polygon.distanceToBoundary(zone.points, p) >= m ? inside : nil
    }

    /// The device left (away, or the engine shuts down): close every open visit.
    mutating func leave(at t: Double, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        for v in visits where v.inside { emit(.exit, v.zone, false, t - v.enteredAt) }
        visits.removeAll(keepingCapacity: true)
        if room >= 0 { emit(.exit, room, true, t - roomSince) }
        room = -1; candidate = -1
    }

    /// Zones the device is in now.
    var zonesInside: some Sequence<Int> { visits.lazy.filter(\.inside).map(\.zone) }
}
