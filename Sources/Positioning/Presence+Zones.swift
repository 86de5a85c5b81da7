import Wire
import SiteModel

extension Presence {
    /// The zones stage (`ZoneOptions`). Zones may overlap, so each has its own state: entered
    /// after `dwell` seconds clearly inside, left after `dwell` seconds clearly outside.
    mutating func updateZones(_ p: Point2, floor f: Int, at t: Double, site: SiteGeometry,
                              options: ZoneOptions, emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        for z in site.zones.indices {
            let side = Self.side(of: p, in: site.zones[z], floor: f, options: options)
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
    /// the margin of the edge. Small zones get a margin of `smallZoneMargin` of their size.
    private static func side(of p: Point2, in zone: SiteGeometry.Area, floor: Int, options: ZoneOptions) -> Bool? {
        guard zone.floor == floor else { return false }
        let m = min(options.margin, zone.size * options.smallZoneMargin)
        // Clearly outside the zone's box, clearly outside the zone: no outline measured (a
        // device is outside most zones). The box is a lower bound of the distance to the
        // outline, and a point this far from it is not within `Polygon.contains`'s 1e-9.
        if zone.boxDistance(p) > max(m, 0) + RoomTest.roundingMargin { return false }
        let inside = Polygon.contains(zone.points, p)
        if m <= 0 { return inside }
        return Polygon.distanceToBoundary(zone.points, p) >= m ? inside : nil
    }
}
