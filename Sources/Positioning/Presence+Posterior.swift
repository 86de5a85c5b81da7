import Wire
import SiteModel

extension Presence {
    /// Steps the room posterior by one solve (`RoomPosterior.step`): the probabilities every
    /// update publishes. A gap is capped as the solves cap it; the first solve after a start or
    /// an away is a look of its own (nothing before it shares its readings).
    mutating func stepPosterior(_ fix: RoomFix?, floor f: Int, heard: [Double], evidence: RoomEvidence?, at t: Double,
                                site: SiteGeometry, options: RoomPosteriorOptions) {
        guard !site.rooms.isEmpty else { return }
        let fresh = !posteriorStepped.isFinite
        let dt = fresh ? 1 : min(max(t - posteriorStepped, 0), EngineOptions.longestSolveGap)
        posteriorStepped = t
        let believed = room >= 0 ? site.rooms[room].floor : floor
        let look = RoomLook(fix: fix, floor: f, heard: heard, evidence: evidence, share: fresh ? 1 : dt / options.memory,
                            crossing: believed >= 0 && believed != f)
        posterior.step(look, dt: dt, keep: room, site: site, options: options)
    }

    /// The room decided by the posterior (`RoomPosteriorOptions.decides`): the published room
    /// changes when another room's probability reaches `enter` (above one half, so two rooms
    /// cannot take turns on a coin toss), to no room when `away` does.
    mutating func decideByPosterior(_ fix: RoomFix?, floor f: Int, heard: [Double], evidence: RoomEvidence?, at t: Double,
                                    site: SiteGeometry, options: RoomPosteriorOptions,
                                    emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void) {
        guard !site.rooms.isEmpty else { floor = f; return }
        stepPosterior(fix, floor: f, heard: heard, evidence: evidence, at: t, site: site, options: options)
        if room < 0 { floor = f }
        let best = posterior.best
        if posterior.away >= options.enter && posterior.away > best.p {
            if room >= 0 { emit(.exit, room, true, t - roomSince); room = -1 }
            return
        }
        guard best.room >= 0, best.room != room, best.p >= options.enter else { return }
        if room >= 0 { emit(.exit, room, true, t - roomSince) }
        enter(best.room, floor: site.rooms[best.room].floor, at: t, emit: emit)
    }
}

extension Presence {
    /// How likely the device is in room `r` (-1: away), by its posterior.
    func probability(of r: Int, site: SiteGeometry) -> Double {
        posterior.probability(of: r, rooms: site.rooms.count)
    }
}
