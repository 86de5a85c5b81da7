/// Carrying a device's room and zone visits over from the store into a fresh engine: after a
/// standby takes a shard over from a dead active, or a single aggregator starts again after a
/// crash (docs/operations.md, What happens when a part fails). The visits the store holds open
/// stay open: a device heard again goes on in its room with no exit and enter, and one never
/// heard again leaves once, `away_after` after `lastHeard`, back-dated to it, as it would have
/// without the restart.
extension Engine {
    /// Seeds device `id` as present in the visits `open` (zone or room id, enter time), last
    /// heard at `lastHeard`. The id names a room when the site has a room of that id, else a
    /// zone; ids of neither are left out (the site changed). At most one room is taken (the
    /// latest entered). Returns the ids taken, in `open`'s order; none when the engine is full,
    /// already knows the device as present, or no id names a room or zone of the site.
    @discardableResult
    public func resumeDevice(_ id: String, open: [(zone: String, enter: Double)], lastHeard: Double) -> [String] {
        if let d = deviceIndex(id), devices[d].isPresent { return [] }
        var presence = Presence()
        var taken: [String] = []
        var room: (index: Int, enter: Double)?
        for v in open {
            if let r = geometry.rooms.firstIndex(where: { $0.id == v.zone }) {
                if room == nil || v.enter > room!.enter { room = (r, v.enter) }
            } else if let z = geometry.zones.firstIndex(where: { $0.id == v.zone }),
                      !presence.visits.contains(where: { $0.zone == z }) {
                presence.visits.append(Presence.Visit(zone: z, inside: true, enteredAt: v.enter, pendingSince: nil))
            }
        }
        // Zones are only entered from within a room: without one the device starts afresh.
        guard let room else { return [] }
        presence.room = room.index
        presence.roomSince = room.enter
        presence.floor = geometry.rooms[room.index].floor
        guard let d = deviceIndex(id) ?? internAdopted(id) else { return [] }
        devices[d].presence = presence
        devices[d].isPresent = true
        if lastHeard > hot[d].lastReading { hot[d].lastReading = lastHeard }
        for v in open {
            if v.zone == geometry.rooms[room.index].id, v.enter == room.enter { taken.append(v.zone) }
            else if let z = geometry.zones.firstIndex(where: { $0.id == v.zone }),
                    presence.visits.contains(where: { $0.zone == z && $0.enteredAt == v.enter }) { taken.append(v.zone) }
        }
        return taken
    }
}
