import Synchronization

/// Settings of the track writer; the defaults suit a home or a small office.
public struct WriterConfiguration: Sendable {
    /// Queued writes (track points, visits, health samples) before new ones are dropped.
    public var capacity = 50_000
    /// Extra room kept for zone events, so a flood of track points never crowds one out.
    public var eventReserve = 5_000
    /// Longest time a queued write waits for its commit (events are committed at once).
    public var commitInterval = 0.5
    /// Shortest time between two commits a zone event asks for. An event that comes after a
    /// quiet spell is committed at once; events that follow a commit within this gap are
    /// gathered into one commit at its end, so a stream of events costs at most
    /// 1 / `eventCommitGap` commits a second (each waits at most this long) instead of one
    /// each. 0 commits every event at once.
    public var eventCommitGap = 0.05
    /// Most writes per transaction; this many queued also wakes the writer before
    /// `commitInterval` is up. A backlog is committed in batches of this size, so commits
    /// stay short and an event never waits behind one huge transaction.
    public var batchSize = 5_000
    /// Pause between attempts while the database refuses writes.
    public var retryInterval = 1.0
    /// SQLite's busy timeout for the writer's connection.
    public var busyTimeout = 2.0
    /// Shortest time between two track points of a moving device.
    public var trackInterval = 1.0
    /// A device that moved less than this since its last written point is still.
    public var stillDistance = 0.3
    /// A still device still writes a point this often, so its track shows it was there.
    public var stillInterval = 60.0
    public var retention = RetentionPolicy()
    /// Seconds between retention and downsampling passes.
    public var maintenanceInterval = 300.0
    /// The wall clock retention measures against (injected so tests can move it).
    public var clock: @Sendable () -> Double = wallClockNow

    public init() {}
}

/// Counters of the writer, for metrics: one consistent snapshot.
public struct WriterStatistics: Sendable, Equatable {
    /// Writes accepted into the queue.
    public var enqueued: UInt64 = 0
    /// Writes committed to the database.
    public var written: UInt64 = 0
    /// Track points left out by thinning (not an error).
    public var thinned: UInt64 = 0
    /// Writes refused because the queue was full.
    public var droppedFull: UInt64 = 0
    /// Writes refused because a time, coordinate or confidence was NaN or infinite.
    public var invalid: UInt64 = 0
    /// Commits that failed (each is retried).
    public var writeErrors: UInt64 = 0
    public var commits: UInt64 = 0
    /// Seconds the last successful commit took.
    public var lastCommitLatency: Double = 0
    /// Writes waiting for a commit, including a batch being retried.
    public var queueDepth = 0
    /// Rows removed by retention and downsampling.
    public var pruned: UInt64 = 0
    /// Devices the writer keeps per-device state for (their database key, last_seen, last
    /// point for thinning) as of the last commit — those recorded since they were last
    /// forgotten (`TrackWriter.forget`) — plus forgotten ones waiting for their writes'
    /// commit. Steady under a churn of passers-by, not growing.
    public var cachedDevices = 0
    public var status: StorageStatus = .ok
    /// The last failure, for the log and a status page.
    public var lastError: DatabaseError?
}

/// What became of a write handed to the writer.
public enum WriteOutcome: Sendable, Equatable {
    /// Queued; committed once `committedTicket` reaches the ticket.
    case queued(ticket: UInt64)
    /// A track point thinning left out.
    case thinned
    /// Refused: the queue was full (counted in `droppedFull`).
    case droppedFull
    /// Refused: the writer is closed.
    case closed
    /// Refused: a time, coordinate or confidence that is not a finite number (counted in
    /// `invalid`). SQLite would store a NaN as NULL, which those columns refuse, failing the
    /// whole batch it came in on every retry.
    case invalid

    public var ticket: UInt64? {
        if case .queued(let ticket) = self { return ticket }
        return nil
    }
}

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
    /// A commit is due now: a full batch, a backlog, a flush or a stop.
    private var urgent = false
    /// A zone event is queued: a commit is due `eventCommitGap` after the last one began.
    private var eventWaiting = false
    /// Monotonic time the writer last took a batch (a commit began).
    private var lastTake = -Double.infinity
    private let eventCommitGap: Double
    private var stopping = false
    private var finished = false

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
            guard !stopping else { return .closed }
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
            if !urgent {
                if incoming.count >= batchSize {
                    urgent = true
                    lock.signalWork()
                } else if write.isEvent && !eventWaiting {
                    eventWaiting = true
                    lock.signalWork()
                }
            }
            return .queued(ticket: ticket)
        }
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
            while !urgent && !stopping {
                // An event makes a commit due `eventCommitGap` after the last one began (at
                // once after a quiet spell), so events coming close together share a commit.
                let due = eventWaiting ? min(deadline, lastTake + eventCommitGap) : deadline
                guard monotonicNow() < due else { break }
                lock.waitForWork(until: due)
            }
            eventWaiting = false
            incoming.take(upTo: max(0, batchSize - buffer.count), into: &buffer)
            if !buffer.isEmpty { lastTake = monotonicNow() }
            // What is left is a backlog: carry on without waiting.
            urgent = !incoming.isEmpty
            inFlight = buffer.count
            return (nextTicket - 1 - UInt64(incoming.count), stopping)
        }
    }

    /// Writer side: sleeps through a retry pause, waking early only to stop.
    func pause(until deadline: Double) {
        lock.withLock {
            while !stopping && monotonicNow() < deadline { lock.waitForWork(until: deadline) }
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
    func finish(abandoned: Int) {
        lock.withLock {
            stats.droppedFull += UInt64(abandoned)
            inFlight = 0
            stats.status = .closed
            finished = true
            lock.broadcastCommit()
        }
    }

    func requestStop() {
        lock.withLock {
            stopping = true
            lock.signalWork()
        }
    }

    /// Blocks until every write up to `ticket` is committed, or `timeout` passes.
    func waitUntilCommitted(_ ticket: UInt64, timeout: Double) -> Bool {
        let deadline = monotonicNow() + timeout
        return lock.withLock {
            if committed < ticket && !urgent {
                urgent = true
                lock.signalWork()
            }
            while committed < ticket && !finished && monotonicNow() < deadline { lock.waitForCommit(until: deadline) }
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
