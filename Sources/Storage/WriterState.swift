import Synchronization

/// The state shared by callers and the writer thread, all of it behind one lock.
final class WriterState: @unchecked Sendable {
    let lock = ConditionLock()
    private let capacity: Int
    private let eventReserve: Int
    private let batchSize: Int
    // Guarded by `lock`.
    private var incoming: WriteQueue
    private var inFlight = 0
    private var nextTicket: UInt64 = 1
    private var committed: UInt64 = 0
    private var thinner: Thinner
    /// Thinning of interned devices (`TrackedDevice`), applied outside the lock.
    let thinning: ThinningRule
    /// Points of interned devices thinning left out (counted without the lock).
    private let thinnedOutside = Atomic<UInt64>(0)
    private var stats = WriterStatistics()
    /// Forgotten devices, each with the last ticket issued when it was forgotten: the writer
    /// drops its cached state for the device once that ticket is committed, so every write
    /// queued before the forget still finds it.
    private var forgotten: [(id: String, after: UInt64)] = []
    /// Set when more forgotten devices waited than the queue holds writes (a database down for
    /// long under churn): the list is dropped and the writer empties its whole cache once this
    /// ticket is committed instead (a cache is only a cache), so the list stays bounded too.
    private var clearAfter: UInt64?
    /// The writer thread's cached devices, as it last reported them.
    private var writerCached = 0
    /// When the writer's next commit is due.
    private var due = CommitDue.idle
    /// Monotonic time the writer last took a batch (a commit began).
    private var lastTake = -Double.infinity
    private let eventCommitGap: Double
    private var phase = Phase.running
    /// The last ticket of the journal's visits (`resume`): the file goes once it is committed.
    private var journalThrough: UInt64?

    /// The queue's life: it takes writes until a stop is asked for, and releases every waiter
    /// once the writer thread has finished. Each step goes forward only.
    enum Phase: Comparable {
        /// Writes are queued.
        case running
        /// `requestStop()`: writes are refused; the writer commits what it can and exits.
        case stopping
        /// `finish`: the writer thread is gone; waiters for a commit return at once.
        case finished
    }

    /// When a commit is due. `now` wins over `event`: a wake-up for a full batch is not
    /// delayed by a zone event waiting for its gap.
    enum CommitDue {
        /// At the writer's own interval.
        case idle
        /// A zone event is queued: `eventCommitGap` after the last commit began.
        case event
        /// At once: a full batch, a backlog, a flush or a stop.
        case now
    }

    /// Moves `phase` forward to `next`; never back (a stop after `finish` stays finished).
    private func advance(to next: Phase) {
        if next > phase { phase = next }
    }

    init(_ configuration: WriterConfiguration) {
        capacity = configuration.capacity
        eventReserve = configuration.eventReserve
        batchSize = configuration.batchSize
        eventCommitGap = max(0, configuration.eventCommitGap)
        thinner = Thinner(trackInterval: configuration.trackInterval, stillDistance: configuration.stillDistance,
                          stillInterval: configuration.stillInterval)
        incoming = WriteQueue(reserving: min(capacity, 65_536))
        thinning = thinner.rule
    }

    /// Caller side, for an interned device: thinning first, on the caller's thread without the
    /// lock (the handle is the caller's); only a kept point takes the lock. The point is
    /// remembered for thinning only once it is queued, as with `record(_: TrackPoint)`.
    func enqueue(_ point: TrackPoint, of device: TrackedDevice) -> WriteOutcome {
        let write = Write.trackedPoint(device, point)
        // Refused before thinning, so an invalid point is counted as one, never as thinned.
        guard write.isStorable else { return enqueue(write) }
        guard thinning.admits(point, after: device.lastWritten) else {
            thinnedOutside.add(1, ordering: .relaxed)
            return .thinned
        }
        let outcome = enqueue(write)
        if outcome.ticket != nil { device.lastWritten = ThinningRule.Written(point) }
        return outcome
    }

    /// Caller side: never blocks beyond the lock; wakes the writer only when a commit is due.
    func enqueue(_ write: Write) -> WriteOutcome {
        lock.withLock {
            guard phase == .running else { return .closed }
            guard write.isStorable else {
                stats.invalid += 1
                return .invalid
            }
            let limit = write.isEvent ? capacity + eventReserve : capacity
            guard incoming.count + inFlight < limit else {
                stats.droppedFull += 1
                return .droppedFull
            }
            if case .point(let point) = write, !thinner.admit(point) {
                stats.thinned += 1
                return .thinned
            }
            incoming.append(write)
            let ticket = nextTicket
            nextTicket += 1
            stats.enqueued += 1
            // One wake-up per commit at most: the first event since the last take, or a full batch.
            if due != .now {
                if incoming.count >= batchSize {
                    due = .now
                    lock.signalWork()
                } else if write.isEvent && due == .idle {
                    due = .event
                    lock.signalWork()
                }
            }
            return .queued(ticket: ticket)
        }
    }

    /// Caller side, at start: the journal's visit writes, queued ahead of anything else
    /// whatever the queue's bound (the journal holds at most what a queue held).
    func resume(_ writes: [Write]) {
        lock.withLock {
            for write in writes { incoming.append(write) }
            nextTicket += UInt64(writes.count)
            stats.enqueued += UInt64(writes.count)
            journalThrough = nextTicket - 1
            due = .now
            lock.signalWork()
        }
    }

    /// Writer side: `true` once, when the journal's visits are all committed.
    func takeJournalCommitted() -> Bool {
        lock.withLock {
            guard let ticket = journalThrough, ticket <= committed else { return false }
            journalThrough = nil
            return true
        }
    }

    /// Writer side, at exit: every write still queued, for the journal.
    func takeRemaining(into buffer: inout [Write]) {
        lock.withLock { incoming.take(upTo: incoming.count, into: &buffer) }
    }

    /// Caller side: the device is gone for good (or will start afresh); its per-device state is
    /// dropped, on the writer thread after the writes already queued for it.
    func forget(_ id: String) {
        lock.withLock {
            thinner.forget(id)
            guard forgotten.count < capacity else {
                forgotten.removeAll()
                clearAfter = nextTicket - 1
                return
            }
            forgotten.append((id, nextTicket - 1))
        }
    }

    /// Writer side: moves the forgotten ids whose writes are all committed into `ids`;
    /// `true` when the whole cache is to be emptied first.
    func takeForgotten(into ids: inout [String]) -> Bool {
        lock.withLock {
            var clearAll = false
            if let ticket = clearAfter, ticket <= committed {
                clearAll = true
                clearAfter = nil
            }
            let done = forgotten.prefix { $0.after <= committed }.count
            ids.append(contentsOf: forgotten[..<done].lazy.map(\.id))
            forgotten.removeFirst(done)
            return clearAll
        }
    }

    /// Writer side: how many devices the writer thread keeps state for now.
    func reportCached(_ count: Int) { lock.withLock { writerCached = count } }

    /// Writer side: sleeps until a commit is due or `deadline`, then takes queued writes until
    /// `buffer` holds `batchSize` (a retried batch may already hold more). Returns the ticket of
    /// the last write in `buffer`, and whether the writer should stop.
    func take(into buffer: inout [Write], waitUntil deadline: Double) -> (last: UInt64, stop: Bool) {
        lock.withLock {
            while due != .now && phase == .running {
                // An event makes a commit due `eventCommitGap` after the last one began (at
                // once after a quiet spell), so events coming close together share a commit.
                let wakeAt = due == .event ? min(deadline, lastTake + eventCommitGap) : deadline
                guard monotonicNow() < wakeAt else { break }
                lock.waitForWork(until: wakeAt)
            }
            incoming.take(upTo: max(0, batchSize - buffer.count), into: &buffer)
            if !buffer.isEmpty { lastTake = monotonicNow() }
            // What is left is a backlog: carry on without waiting.
            due = incoming.isEmpty ? .idle : .now
            inFlight = buffer.count
            return (nextTicket - 1 - UInt64(incoming.count), phase != .running)
        }
    }

    /// Writer side: sleeps through a retry pause, waking early only to stop.
    func pause(until deadline: Double) {
        lock.withLock {
            while phase == .running && monotonicNow() < deadline { lock.waitForWork(until: deadline) }
        }
    }

    func didCommit(through ticket: UInt64, writes: Int, latency: Double) {
        lock.withLock {
            committed = max(committed, ticket)
            inFlight = 0
            stats.written += UInt64(writes)
            stats.commits += 1
            stats.lastCommitLatency = latency
            stats.status = .ok
            stats.lastError = nil
            lock.broadcastCommit()
        }
    }

    /// Records a failed commit; returns the status before it, so the caller logs changes only.
    func didFail(_ error: DatabaseError) -> StorageStatus {
        lock.withLock {
            let before = stats.status
            stats.writeErrors += 1
            stats.status = error.kind
            stats.lastError = error
            return before
        }
    }

    func didPrune(_ rows: Int) { lock.withLock { stats.pruned += UInt64(rows) } }

    /// Writer side, at exit: what could not be written counts as dropped; waiters are released.
    func finish(abandoned: Int, journaled: Int = 0, lost: Int = 0) {
        lock.withLock {
            stats.droppedFull += UInt64(abandoned)
            stats.journaled += UInt64(journaled)
            stats.lostVisits += UInt64(lost)
            inFlight = 0
            stats.status = .closed
            advance(to: .finished)
            lock.broadcastCommit()
        }
    }

    func requestStop() {
        lock.withLock {
            advance(to: .stopping)
            lock.signalWork()
        }
    }

    /// Blocks until every write up to `ticket` is committed, or `timeout` passes.
    func waitUntilCommitted(_ ticket: UInt64, timeout: Double) -> Bool {
        let deadline = monotonicNow() + timeout
        return lock.withLock {
            if committed < ticket && due != .now {
                due = .now
                lock.signalWork()
            }
            while committed < ticket && phase != .finished && monotonicNow() < deadline { lock.waitForCommit(until: deadline) }
            return committed >= ticket
        }
    }

    var lastTicket: UInt64 { lock.withLock { nextTicket - 1 } }
    var committedTicket: UInt64 { lock.withLock { committed } }

    var statistics: WriterStatistics {
        let thinnedOutside = thinnedOutside.load(ordering: .relaxed)
        return lock.withLock {
            var snapshot = stats
            snapshot.queueDepth = incoming.count + inFlight
            snapshot.thinned += thinnedOutside
            snapshot.cachedDevices = max(writerCached, thinner.count) + forgotten.count
            return snapshot
        }
    }

    /// The status alone, without copying the counters and the last error.
    var status: StorageStatus { lock.withLock { stats.status } }
    var lastCommitLatency: Double { lock.withLock { stats.lastCommitLatency } }
}
