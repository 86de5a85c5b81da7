import Positioning
import Storage

/// Visits the store holds open, carried over at a start: a standby's takeover of a dead
/// active's shard and a single aggregator's start after a crash alike (one mechanism). The
/// engine keeps them open (`Engine.resumeDevice`), the zones' occupancy counts the device
/// again, and no event is made: the exit comes once, when the device leaves or goes away.
extension AggregatorCore {
    /// Seeds device `id` in the visits `open` (its rows in the store), last heard at `lastHeard`
    /// (its last track point). Returns the visits taken; the others are the caller's to close.
    func resume(_ id: String, open: [Visit], lastHeard: Double, wall: Double) -> [Visit] {
        let taken = engine.resumeDevice(id, open: open.map { ($0.zone, $0.enter) }, lastHeard: lastHeard)
        guard !taken.isEmpty else { return [] }
        let kept = open.filter { taken.contains($0.zone) }
        for v in kept {
            let isRoom = site.floors.contains { $0.rooms.contains { $0.id == v.zone } }
            _ = occupancy.apply(ZoneEvent(.enter, device: id, zone: v.zone, floor: v.floor, t: v.enter, confidence: 0, dwell: nil, isRoom: isRoom))
        }
        // Event time goes on from the last point stored, so that a device never heard again
        // goes away `away_after` later even if no reading at all arrives.
        if (eventClock?.event ?? -.infinity) < lastHeard { eventClock = (lastHeard, wall) }
        return kept
    }
}
