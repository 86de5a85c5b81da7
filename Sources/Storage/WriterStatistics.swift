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
    /// Visit writes a clean stop could not store, kept in the journal (`VisitJournal`) for
    /// the next start.
    public var journaled: UInt64 = 0
    /// Visit writes a clean stop could neither store nor keep in the journal: their events
    /// were published, the database will not have them.
    public var lostVisits: UInt64 = 0
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
