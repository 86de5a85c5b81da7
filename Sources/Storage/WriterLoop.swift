/// The body of the writer thread: take queued writes, commit them, retry failures, prune.
///
/// Lives on its own thread; only `WriterState` is shared.
final class WriterLoop {
    /// The store's name in log lines: the file's path, or a URL without credentials.
    private let path: String
    private let open: () throws -> any BatchStore
    private let configuration: WriterConfiguration
    private let state: WriterState
    private let log: @Sendable (String) -> Void
    private let onCommit: (@Sendable (UInt64) -> Void)?
    /// The open connection; `nil` after a failure that calls for reopening.
    private var store: (any BatchStore)?
    /// Taken from the queue but not yet committed (a retried batch stays here).
    private var pending: [Write] = []
    private var pendingLast: UInt64 = 0
    private var nextMaintenance: Double
    private var failingSince: Double?
    private var droppedLogged: UInt64 = 0
    private var dropLoggedAt = -Double.infinity
    private var forgotten: [String] = []
    private let journal: VisitJournal

    init(path: String, journal: VisitJournal, configuration: WriterConfiguration, state: WriterState,
         log: @escaping @Sendable (String) -> Void, onCommit: (@Sendable (UInt64) -> Void)?,
         open: @escaping () throws -> any BatchStore) {
        self.path = path
        self.open = open
        self.configuration = configuration
        self.state = state
        self.log = log
        self.onCommit = onCommit
        self.journal = journal
        nextMaintenance = monotonicNow() + min(configuration.maintenanceInterval, 10)
    }

    func run() {
        var stopAt: Double?
        while true {
            // Straight on when a retry or a retention pass is under way; else gather a batch.
            let wait = pending.isEmpty && store?.maintenanceIdle != false ? configuration.commitInterval : 0
            let (last, stop) = state.take(into: &pending, waitUntil: monotonicNow() + wait)
            pendingLast = last
            if stop && stopAt == nil { stopAt = monotonicNow() + configuration.shutdownGrace }
            if !pending.isEmpty {
                if !commitPending() {
                    if let stopAt, monotonicNow() >= stopAt { break }
                    state.pause(until: monotonicNow() + configuration.retryInterval)
                    continue
                }
            } else if stop {
                break
            }
            evictForgotten()
            // Between commits, also under a steady stream that never leaves the queue empty.
            if !stop { maintainIfDue() }
            logDrops()
        }
        state.takeRemaining(into: &pending)
        let visits = pending.compactMap(\.visit)
        let kept = !visits.isEmpty && keepInJournal(visits)
        if !pending.isEmpty { log("storage: \(path): shutting down with \(pending.count) writes not stored") }
        let journaled = kept ? visits.count : 0
        state.finish(abandoned: pending.count - journaled, journaled: journaled, lost: visits.count - journaled)
        store = nil
    }

    /// Visit writes left at a close: their events are published next (or were already), so
    /// they go to the journal for the next start, added to one nobody resumed yet.
    private func keepInJournal(_ visits: [Visit]) -> Bool {
        do {
            guard let earlier = unresumedJournal() else { return false }
            try journal.replace(with: VisitJournal.merged(earlier + visits))
            log("storage: \(path): \(visits.count) visit writes kept in \(journal.path); the next start stores them")
            return true
        } catch {
            log("storage: \(path): ERROR: \(visits.count) visit writes stored nowhere, their zone events published: \(error)")
            return false
        }
    }

    /// The journal already there, to add to. One that cannot be read is set aside (renamed,
    /// for an operator to look at), never overwritten; nil when even that fails.
    private func unresumedJournal() -> [Visit]? {
        do {
            return try journal.visits()
        } catch {
            do {
                let aside = try journal.setAside(as: "damaged")
                log("storage: \(path): ERROR: \(error); moved it to \(aside) and wrote a new journal")
                return []
            } catch {
                log("storage: \(path): ERROR: \(error)")
                return nil
            }
        }
    }

    /// The journal's visits are committed: the file goes.
    private func removeJournalIfCommitted() {
        guard state.takeJournalCommitted() else { return }
        do {
            try journal.remove()
            log("storage: \(path): the visits kept in \(journal.path) are stored; removed it")
        } catch {
            // Applying it again at the next start changes nothing: opens and closes are idempotent.
            log("storage: \(path): cannot remove \(journal.path) (its visits are stored): \(error)")
        }
    }

    /// The thread never started: report it and mark the queue closed.
    func abandon(reason: String) {
        log("storage: \(path): \(reason)")
        state.requestStop()
        state.finish(abandoned: 0)
    }

    /// One transaction for everything pending; on failure the batch stays for the next try.
    private func commitPending() -> Bool {
        do {
            let writer = try openStore()
            let start = monotonicNow()
            try writer.write(pending)
            let latency = monotonicNow() - start
            if let since = failingSince {
                log("storage: \(path): writes resumed after \(format(monotonicNow() - since)) s, \(pending.count) queued writes stored")
                failingSince = nil
            }
            state.didCommit(through: pendingLast, writes: pending.count, latency: latency)
            pending.removeAll(keepingCapacity: true)
            onCommit?(pendingLast)
            removeJournalIfCommitted()
            return true
        } catch {
            let failure = error as? DatabaseError ?? DatabaseError.misuse("\(error)")
            let before = state.didFail(failure)
            // A lock passes on its own; anything else may need a fresh file handle (a remount,
            // a replaced file), so reopen on the next try.
            store?.cancelMaintenance()
            if failure.kind != .locked { store = nil }
            if failingSince == nil { failingSince = monotonicNow() }
            if before != failure.kind {
                log("storage: \(path): writes failing (\(failure.kind.rawValue)): \(failure); keeping up to "
                    + "\(configuration.capacity) queued writes, retrying every \(format(configuration.retryInterval)) s")
            }
            return false
        }
    }

    private func openStore() throws -> any BatchStore {
        if let store { return store }
        let opened = try open()
        store = opened
        return opened
    }

    /// Drops the cached state of devices forgotten with all their writes committed. Without a
    /// connection there is nothing cached: the next one starts empty.
    private func evictForgotten() {
        if state.takeForgotten(into: &forgotten) { store?.evictAll() }
        store?.evict(forgotten)
        forgotten.removeAll(keepingCapacity: true)
        state.reportCached(store?.cachedDevices ?? 0)
    }

    /// One small step of retention or downsampling when a pass is due; each step is its own
    /// short transaction so queued writes never wait long behind it.
    private func maintainIfDue() {
        guard failingSince == nil, let store else { return }
        if store.maintenanceIdle {
            guard monotonicNow() >= nextMaintenance else { return }
            store.beginMaintenance(now: configuration.clock())
        }
        do {
            let removed = try store.maintenanceStep()
            state.didPrune(removed)
            if store.maintenanceIdle { nextMaintenance = monotonicNow() + configuration.maintenanceInterval }
        } catch {
            log("storage: \(path): retention step failed: \(error)")
            store.cancelMaintenance()
            nextMaintenance = monotonicNow() + configuration.maintenanceInterval
        }
    }

    /// A line at most every 10 s while the queue refuses writes, never one per refused write.
    private func logDrops() {
        guard monotonicNow() - dropLoggedAt >= 10 else { return }
        let dropped = state.statistics.droppedFull
        if dropped > droppedLogged {
            dropLoggedAt = monotonicNow()
            log("storage: \(path): queue full, \(dropped - droppedLogged) writes dropped (\(dropped) in all)")
            droppedLogged = dropped
        }
    }
}

func format(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}
