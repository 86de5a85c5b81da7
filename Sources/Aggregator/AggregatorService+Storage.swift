import MQTT
import PostgresStorage
import Storage
import Wire
import SiteModel

/// Opening the database at start: its writer lock taken, created and migrated, the visits a
/// clean stop could not store taken from its journal, visits a crash left open found (and
/// closed once connected), the writer's metrics registered. `database` is an SQLite file or
/// a `postgresql://` URL (`StoreLocation`).
extension AggregatorService {
    func openStorage(_ database: String) throws {
        var configuration = WriterConfiguration()
        configuration.retention = RetentionPolicy(retention: settings.site.storage.retention)
        configuration.shutdownGrace = settings.shutdownGrace
        configuration.deviceNames = Self.deviceNames(settings.site)
        let log = self.log
        let commits = metrics.storageCommits
        let box = WriterBox()
        // The writer's lines name themselves (`storage: FILE: …`).
        let onCommit: @Sendable (UInt64) -> Void = { [weak self] ticket in
            // On the writer thread, after the commit: its duration is the latest.
            if let latency = box.writer?.statistics.lastCommitLatency { commits.observe(latency) }
            guard let self else { return }
            self.work.async { self.releasePending(upTo: ticket) }
        }
        let writer: TrackWriter
        // First the lock: a second aggregator on the store would take this one's open visits
        // for a crash's, close them and publish exits for devices still there. Then created
        // and migrated, so a store that cannot be opened stops the start with a clear message,
        // and the recovery below reads a complete schema.
        switch StoreLocation(database) {
        case .file(let path):
            writerLock = try WriterLock(database: path)
            try Schema.prepare(path: path)
            writer = TrackWriter(path: path, configuration: configuration, log: log, onCommit: onCommit)
        case .postgres(let url):
            // A leased aggregator's lock is its shard's lease, taken before it got here; a shard
            // without --standby takes its shard's lease once (the shards share the store), the
            // whole site the store's writer lock.
            if !settings.leased {
                writerLock = settings.shard.isWhole ? try PostgresWriterLock(url: url) : try StandbyLease.takeOnce(url: url, shard: settings.shard)
            }
            try PostgresStore.prepare(url: url)
            writer = PostgresStore.writer(url: url, journal: journalPath, configuration: configuration,
                                          log: log, onCommit: onCommit)
        }
        box.writer = writer
        self.writer = writer
        registerStorageMetrics(writer)
        let journaled = try writer.resumeJournal()
        if !journaled.isEmpty {
            log("storing \(journaled.count) visit write(s) the last stop kept in \(writer.journalPath) (their events were published then)")
        }
        try recoverOpenVisits(writer, journaled: journaled)
    }

    /// Visits a crash left open, found at start: carried over (`resume`), or closed at the first
    /// connection (`closeRecoveredVisits`). A visit the journal closes had its `exit` published by the
    /// stop that kept it: it is left alone. An open the journal holds without its close is as
    /// open as one on disk.
    private func recoverOpenVisits(_ writer: TrackWriter, journaled: [Visit]) throws {
        let closed = Set(journaled.filter { $0.exit != nil }.map(VisitName.init))
        // A shard recovers its own devices' visits only: the others' are their shards', open.
        var open = try writer.openVisits().filter { !closed.contains(VisitName($0.visit)) && owns($0.visit.device) }
        var known = Set(open.map { VisitName($0.visit) })
        let reader = try writer.reader()
        for v in journaled where v.exit == nil && owns(v.device) {
            let name = VisitName(v)
            if closed.contains(name) || known.contains(name) { continue }
            known.insert(name)
            open.append(OpenVisit(visit: v, lastTrackPoint: try reader.lastTrackPoint(device: v.device)))
        }
        guard !open.isEmpty else { return }
        recovering = resume(open, wall: now())
        let resumed = open.count - recovering.count
        if resumed > 0 { log("\(resumed) visit(s) left open by an unclean stop: carried over, still open") }
        if !recovering.isEmpty {
            log("\(recovering.count) visit(s) left open by an unclean stop: closed, and their exits published, once connected")
        }
    }

    /// Carries each device's open visits over into the engine (`AggregatorCore.resume`) when it
    /// was last heard within `away_after` of `wall`: heard again, it goes on in its room with no
    /// exit and enter; never heard again, it goes away once, as it would have without the stop.
    /// Returns the visits left to close (a device away by then, a room or zone the site no
    /// longer has): those close at the device's last track point, as the engine's away would.
    private func resume(_ open: [OpenVisit], wall: Double) -> [OpenVisit] {
        let awayAfter = settings.site.positioning.awayAfter
        var left: [OpenVisit] = []
        for (device, visits) in Dictionary(grouping: open, by: \.visit.device) {
            let lastHeard = visits.map(\.closeAt).max() ?? -.infinity
            guard wall - lastHeard <= awayAfter else { left += visits; continue }
            let kept = Set(core.resume(device, open: visits.map(\.visit), lastHeard: lastHeard, wall: wall).map(VisitName.init))
            for v in visits {
                if kept.contains(VisitName(v.visit)) {
                    openVisits[VisitKey(device: device, zone: v.visit.zone)] = v.visit.enter
                } else {
                    left.append(v)
                }
            }
        }
        return left
    }

    /// Closes the visits a crash left open and publishes their exits as any other: once the
    /// close is committed. Only here, at a connection: a start that stops before it ever
    /// connects leaves them open on disk (or journals no close for them), so the next start
    /// recovers them again instead of storing a close whose `exit` nobody published.
    func closeRecoveredVisits() {
        guard let writer, !recovering.isEmpty else { return }
        for visit in recovering {
            hold([core.recoveredExit(visit.visit, at: visit.closeAt)], until: writer.closeVisit(visit).ticket)
        }
        recovering = []
    }

    /// Whether this aggregator's shard owns device `id` (the whole site owns every one).
    private func owns(_ id: String) -> Bool { settings.shard.isWhole || core.owns(id) }

    /// The journal of visit writes a clean stop could not store: one per shard, as the shards
    /// of a host share its state directory.
    private var journalPath: String {
        let path = PostgresStore.defaultJournal()
        guard !settings.shard.isWhole, path.hasSuffix(".pending") else { return path }
        return String(path.dropLast(8)) + "-shard\(settings.shard.index)-\(settings.shard.count).pending"
    }

    /// The name of each device the site names; the first entry of an id counts, as in the engine.
    static func deviceNames(_ site: Site) -> [String: String] {
        var names: [String: String] = [:], seen: Set<String> = []
        for d in site.devices where seen.insert(d.id).inserted {
            if let name = d.name { names[d.id] = name }
        }
        return names
    }

    private func registerStorageMetrics(_ writer: TrackWriter) {
        let r = metrics.registry
        r.collect("whereabouts_storage_queue_depth", "Writes waiting for the database.") { [([], Double(writer.statistics.queueDepth))] }
        r.collect("whereabouts_storage_written_total", "Rows written to the database.", type: .counter) { [([], Double(writer.statistics.written))] }
        r.collect("whereabouts_storage_dropped_total", "Writes refused because the queue was full.", type: .counter) { [([], Double(writer.statistics.droppedFull))] }
        r.collect("whereabouts_storage_invalid_total", "Writes refused because a time, coordinate or confidence was not finite.", type: .counter) {
            [([], Double(writer.statistics.invalid))]
        }
        r.collect("whereabouts_storage_errors_total", "Commits that failed (each is retried).", type: .counter) { [([], Double(writer.statistics.writeErrors))] }
        r.collect("whereabouts_storage_commit_seconds", "Duration of the last commit.") { [([], writer.statistics.lastCommitLatency)] }
        r.collect("whereabouts_storage_journaled_total", "Visit writes a clean stop kept in <db>.pending for the next start.",
                  type: .counter) { [([], Double(writer.statistics.journaled))] }
        r.collect("whereabouts_storage_lost_visits_total", "Visit writes a clean stop could neither store nor journal.",
                  type: .counter) { [([], Double(writer.statistics.lostVisits))] }
        r.collect("whereabouts_storage_ok", "1 while the database accepts writes.") { [([], writer.statistics.status == .ok ? 1 : 0)] }
        r.collect("whereabouts_storage_cached_devices", "Devices the track writer keeps state for (forgotten ones leave).") {
            [([], Double(writer.statistics.cachedDevices))]
        }
    }
}

/// A visit's name in the store: (device, zone, enter time).
private struct VisitName: Hashable {
    let device: String, zone: String, enter: Double
    init(_ v: Visit) { (device, zone, enter) = (v.device, v.zone, v.enter) }
}

/// Lets the writer's commit hook read the writer's statistics without owning it.
private final class WriterBox: @unchecked Sendable {
    weak var writer: TrackWriter?
}
