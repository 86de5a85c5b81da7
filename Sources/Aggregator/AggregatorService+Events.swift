import MQTT
import Positioning
import Storage

/// Zone events and track points into the database; an event's messages published once its
/// write is committed (a `kill -9` never loses a published event), or sooner when the
/// database refuses writes, so a broken disk never stops positioning.
extension AggregatorService {
    /// `backfilled`: an event of a backfill pass (the visit is marked).
    func store(_ e: ZoneEvent, then messages: [MQTTMessage], backfilled: Bool = false) {
        let key = VisitKey(device: e.device, zone: e.zone)
        let outcome: WriteOutcome?
        switch e.type {
        case .enter:
            openVisits[key] = e.t
            outcome = writer?.openVisit(Visit(device: e.device, zone: e.zone, floor: e.floor, enter: e.t, backfilled: backfilled))
        case .exit:
            let enter = openVisits.removeValue(forKey: key) ?? (e.t - (e.dwell ?? 0))
            outcome = writer?.closeVisit(Visit(device: e.device, zone: e.zone, floor: e.floor, enter: enter, backfilled: backfilled), at: e.t)
        }
        hold(messages, until: outcome?.ticket)
    }

    /// Publishes `messages` once write `ticket` is committed, or at once while the database
    /// refuses writes. While stopping they always wait: `stop()` publishes them only after
    /// `close()` stored their writes or kept them in the journal, so a `kill -9` in its retry
    /// window cannot leave an exit published with no record of it (the next start would
    /// close that visit again, with a second exit).
    func hold(_ messages: [MQTTMessage], until ticket: UInt64?) {
        guard let ticket, stopping || writer?.status == .ok else {
            for m in messages { publish(m) }
            return
        }
        pending.append((ticket, now(), messages))
    }

    func record(_ u: DeviceUpdate, backfilled: Bool = false) {
        guard let writer else { return }
        writer.record(TrackPoint(device: u.id, t: u.t, x: u.x, y: u.y, z: u.z, floor: u.floor, room: u.room, confidence: u.confidence,
                                 backfilled: backfilled))
    }

    /// Publishes held events whose ticket is committed (or all up to `ticket` when forced).
    func releasePending(upTo ticket: UInt64) {
        var released = 0
        for entry in pending where entry.ticket <= ticket {
            for m in entry.messages { publish(m) }
            released += 1
        }
        pending.removeFirst(released)
    }
}
