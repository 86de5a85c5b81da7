#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The aggregator's way into the database: every call returns at once.
///
/// Writes go into a bounded queue that one writer thread (a pthread, not Swift's cooperative
/// pool: SQLite blocks) drains, committing a batch at least every `commitInterval`. Zone
/// events wake the writer at once. A full queue refuses the write and counts it; a failing
/// database (full, read-only, locked) keeps the queue, reports a status and retries.
///
/// To publish a zone event only once it is durable, keep its ticket and publish when
/// `committedTicket` reaches it (the `onCommit` hook says when) — see docs/storage.md.
public final class TrackWriter: Sendable {
    /// The file's path, or the URL of another store (without credentials).
    public let path: String
    private let journal: VisitJournal
    private let openReader: @Sendable () throws -> any TrackQueries
    private let state: WriterState
    private let thread: ThreadHandle
    private let log: @Sendable (String) -> Void

    /// Starts the writer thread on the database at `path` (created and migrated by the thread).
    ///
    /// - Parameters:
    ///   - log: receives one line per status change (failing, resumed, dropping); called on the
    ///     writer thread.
    ///   - onCommit: called on the writer thread after each commit with the last committed ticket.
    public convenience init(path: String, configuration: WriterConfiguration = WriterConfiguration(),
                            log: @escaping @Sendable (String) -> Void = { _ in },
                            onCommit: (@Sendable (UInt64) -> Void)? = nil) {
        self.init(store: path, journal: VisitJournal(database: path), configuration: configuration, log: log,
                  onCommit: onCommit,
                  open: { try BatchWriter(path: path, busyTimeout: configuration.busyTimeout, names: configuration.deviceNames,
                                          retention: configuration.retention) },
                  reader: { try TrackReader(path: path) })
    }

    /// Starts the writer thread on any store: `open` connects (on the writer thread, again after
    /// a failure), `reader` opens a reader of the same store (for `openVisits()`), and the
    /// visit writes a stop cannot store go to `journal`, a local file. The queue, tickets,
    /// retries and journal work as for SQLite.
    ///
    /// - Parameter name: the store in log lines and `path` (never with a password).
    public init(store name: String, journal: VisitJournal, configuration: WriterConfiguration = WriterConfiguration(),
                log: @escaping @Sendable (String) -> Void = { _ in },
                onCommit: (@Sendable (UInt64) -> Void)? = nil,
                open: @escaping @Sendable () throws -> any BatchStore,
                reader: @escaping @Sendable () throws -> any TrackQueries) {
        self.path = name
        self.journal = journal
        self.openReader = reader
        self.log = log
        state = WriterState(configuration)
        let loop = WriterLoop(path: name, journal: journal, configuration: configuration, state: state, log: log,
                              onCommit: onCommit, open: open)
        thread = ThreadHandle(start: loop)
    }

    /// The file where a stop keeps the visit writes it could not store.
    public var journalPath: String { journal.path }

    /// A reader of the store this writer writes (its own connection).
    public func reader() throws -> any TrackQueries { try openReader() }

    deinit { close() }

    /// Queues a track point unless thinning leaves it out.
    @discardableResult
    public func record(_ point: TrackPoint) -> WriteOutcome { state.enqueue(.point(point)) }

    /// Interns a device for `record(_:t:x:y:z:floor:room:confidence:)`: keep the handle with
    /// the device's state and record its points through it (see `TrackedDevice`).
    public func device(_ id: String) -> TrackedDevice { TrackedDevice(id: id) }

    /// Queues a track point of an interned device unless thinning leaves it out. The cheaper
    /// way in for a caller that keeps per-device state: thinning needs no lookup and no lock,
    /// and only a kept point takes the queue's lock.
    @discardableResult
    public func record(_ device: TrackedDevice, t: Double, x: Double, y: Double, z: Double,
                       floor: String?, room: String?, confidence: Double) -> WriteOutcome {
        state.enqueue(TrackPoint(device: device.id, t: t, x: x, y: y, z: z, floor: floor, room: room,
                                 confidence: confidence), of: device)
    }

    /// Queues the row of an `enter` event; committed promptly.
    @discardableResult
    public func openVisit(_ visit: Visit) -> WriteOutcome { state.enqueue(.visitOpened(visit)) }

    /// Queues the close of a visit at `exit` (its `exit` event); committed promptly.
    /// Closing a visit whose open never reached the disk stores the whole visit.
    @discardableResult
    public func closeVisit(_ visit: Visit, at exit: Double) -> WriteOutcome {
        var closed = visit
        closed.exit = exit
        return state.enqueue(.visitClosed(closed))
    }

    /// Closes a visit a crash left open, at its device's last track point.
    @discardableResult
    public func closeVisit(_ open: OpenVisit) -> WriteOutcome { closeVisit(open.visit, at: open.closeAt) }

    @discardableResult
    public func recordHealth(_ sample: NodeHealth) -> WriteOutcome { state.enqueue(.health(sample)) }

    /// Drops what the writer keeps for a device (its key, last_seen, last point for thinning)
    /// once the writes already queued for it are committed. Call it when the device is gone
    /// for good, as the aggregator does for a device the engine forgot: else every device
    /// ever seen stays cached. Recording the device again afterwards is fine (through a new
    /// `TrackedDevice`, if it had one): its row is found again and its first point is kept.
    public func forget(_ id: String) { state.forget(id) }

    /// The ticket of the last write committed: every write with a ticket up to it is on disk.
    public var committedTicket: UInt64 { state.committedTicket }

    public var statistics: WriterStatistics { state.statistics }

    /// `statistics.status` without copying every counter (asked once per zone event).
    public var status: StorageStatus { state.status }

    /// `statistics.lastCommitLatency` alone (for a commit-duration histogram in `onCommit`).
    public var lastCommitLatency: Double { state.lastCommitLatency }

    /// Blocks until `ticket` is committed or `timeout` seconds pass; `true` when committed.
    public func waitUntilCommitted(_ ticket: UInt64, timeout: Double) -> Bool {
        state.waitUntilCommitted(ticket, timeout: timeout)
    }

    /// Commits everything queued so far; for tests and shutdown. `false` on timeout.
    @discardableResult
    public func flush(timeout: Double = 10) -> Bool {
        state.waitUntilCommitted(state.lastTicket, timeout: timeout)
    }

    /// Visits a crash left open, each with its device's last track point: close each with
    /// `closeVisit(_:)` and publish its `exit` once committed. Call at start, before new visits.
    public func openVisits() throws -> [OpenVisit] {
        try openReader().openVisits()
    }

    /// Queues the visit writes a clean stop kept in the journal (`VisitJournal`), ahead of
    /// anything else; the file is removed once they are committed, and kept while they are not.
    /// Returns them: their events were published already, so a caller closing the visits a
    /// crash left open (`openVisits()`) must leave the ones closed here alone. Call once, at
    /// start, before new visits. Throws on a journal that cannot be read; one larger than
    /// `VisitJournal.maxBytes` is set aside instead (renamed, logged), so it never stops a start.
    public func resumeJournal() throws(JournalError) -> [Visit] {
        let visits: [Visit]
        do throws(JournalError) {
            visits = try journal.visits()
        } catch where error.tooLarge {
            let aside = try journal.setAside(as: "oversized")
            log("storage: \(path): ERROR: \(error); moved it to \(aside), its visits not stored")
            return []
        }
        if !visits.isEmpty { state.resume(visits.map { $0.exit == nil ? .visitOpened($0) : .visitClosed($0) }) }
        return visits
    }

    /// Commits what is queued (retrying a failing database for up to `shutdownGrace`), keeps
    /// the visit writes it could not store in the journal (`VisitJournal`), then stops the
    /// thread. Later writes return `.closed`.
    public func close() {
        state.requestStop()
        thread.join()
    }
}

/// A joinable pthread running a `WriterLoop`; joined once.
final class ThreadHandle: @unchecked Sendable {
    private let lock = ConditionLock()
    private var thread: pthread_t?

    init(start loop: WriterLoop) {
        let context = Unmanaged.passRetained(loop).toOpaque()
        var id = pthread_t()
        let rc = pthread_create(&id, nil, { context in
            guard let context else { return nil }
            let loop = Unmanaged<WriterLoop>.fromOpaque(context).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        if rc == 0 {
            thread = id
        } else {
            // No thread: run nothing, but leave the queue to report `.closed` on close.
            Unmanaged<WriterLoop>.fromOpaque(context).release()
            loop.abandon(reason: "cannot start the writer thread (error \(rc))")
        }
    }

    func join() {
        let id: pthread_t? = lock.withLock {
            defer { thread = nil }
            return thread
        }
        if let id { pthread_join(id, nil) }
    }
}
