import Foundation
import Options
import PostgresStorage
import Storage
import Wire

/// `--standby`: an aggregator of a shard that waits for the shard's lease in the shared
/// PostgreSQL (`PostgresLease`) before it does anything else, and keeps checking that it still
/// holds it once active. Every instance of a shard runs with `--standby`; whichever holds the
/// lease is the active one, the others wait without connecting to the broker (they would take
/// the active's MQTT session, whose client id they share).
///
/// An active that loses the lease (PostgreSQL restarted, or its connection to it lost) stops at
/// once, publishing nothing more: not its open visits' exits, which the next holder publishes
/// when it recovers them from the store. Its supervisor (systemd's `Restart=always`) starts it
/// again, as a standby.
public final class StandbyLease: @unchecked Sendable {
    let lease: PostgresLease
    let log: @Sendable (String) -> Void
    /// Seconds between attempts while waiting, and between checks while active: a takeover
    /// comes at most this long after the active's session ended, and an active that lost the
    /// lease stops within it (before an event could wait `commitPatience` for its write).
    public static let interval = 0.5

    public init(url: String, shard: (index: Int, count: Int), log: @escaping @Sendable (String) -> Void) {
        lease = PostgresLease(url: url, shard: shard)
        self.log = log
    }

    /// The `postgresql://` URL of `database`, where a lease can live; nil for an SQLite file or none.
    public static func storeURL(_ database: String?) -> String? {
        guard let database, case .postgres(let url) = StoreLocation(database) else { return nil }
        return url
    }

    /// A shard run without `--standby` on a shared store: its lease taken once, as the store's
    /// writer lock is for the whole site (a second instance of the shard exits 1), and held until
    /// the process ends. Nothing watches it: such a shard goes on across a PostgreSQL restart.
    public static func takeOnce(url: String, shard: Shard) throws -> AnyObject {
        let lease = PostgresLease(url: url, shard: (shard.index, shard.count))
        guard try lease.take() else {
            throw LeaseHeld(message: "\(url): shard \(shard) already runs on this database (session \(lease.holder() ?? "unknown")); "
                            + "run every instance of a shard with --standby")
        }
        return lease
    }

    var name: String { "shard \(lease.shard.index)/\(lease.shard.count)" }

    /// Waits until the lease is taken (true) or SIGTERM or SIGINT arrives (false). The server
    /// being away is waited out as another holder is; each new reason is logged once.
    public func waitForLease() -> Bool {
        var said = ""
        while true {
            let why: String
            do {
                if try lease.take() {
                    log("took the lease of \(name)" + (said.isEmpty ? "" : " (was: \(said))"))
                    return true
                }
                why = "the lease of \(name) is held by " + (lease.holder() ?? "another session")
            } catch {
                why = "cannot reach the store for the lease of \(name): \(error.message)"
            }
            if why != said { log("standby: \(why); waiting") }
            said = why
            if TerminationSignal.wait(seconds: Self.interval) != nil { return false }
        }
    }

    /// Checks the lease every `interval` on a thread of its own; `onLost` once it is gone.
    public func watch(onLost: @escaping @Sendable (String) -> Void) {
        let lease = self.lease, name = self.name
        Thread.detachNewThread {
            while lease.isHeld() { Thread.sleep(forTimeInterval: Self.interval) }
            onLost("lost the lease of \(name) (PostgreSQL restarted or unreachable)")
        }
    }
}

/// Another instance holds the shard's lease.
struct LeaseHeld: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
