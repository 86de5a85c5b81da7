#if canImport(Glibc)
import Glibc
#endif

// The client's lifecycle as states and the transitions between them, not a set of flags.
extension MQTTClientCore {
    /// Where the client is in its life; `start()`, `disconnect()`, the client's end and
    /// libmosquitto's callbacks move it, only through the transitions below (`begin`,
    /// `beginDisconnect`, `requestStop`, `linkUp`, …).
    enum Phase {
        /// Not started, or a start failed.
        case idle
        /// `start()` ran: the network thread connects, is connected, or waits to retry.
        case started(Link)
        /// `disconnect()` or the client's end asked the network thread to end (after sending a
        /// DISCONNECT when `graceful`, by `deadline`); `start()` may begin again once it is joined.
        case stopping(graceful: Bool, deadline: Double)
    }

    enum Link { case connecting, connected }

    /// The network thread, from its creation until it has been joined or, detached, has ended.
    enum NetworkThread {
        case none
        case joinable(pthread_t)
        /// Stopped from inside one of its own callbacks: it cannot be joined, so it is detached
        /// and clears itself as it ends.
        case detached(pthread_t)
    }
}

extension MQTTClientCore.State {
    /// The connection as the client reports it: only a started client has one.
    var connection: ConnectionState {
        switch phase {
        case .idle, .stopping: .idle
        case .started(.connecting): .connecting
        case .started(.connected): .connected
        }
    }

    /// `start()`: idle, or stopped with its thread gone → started (connecting); false when
    /// started already. A thread still running means a `disconnect()` on another thread has
    /// not yet joined it.
    mutating func begin() throws(MQTTError) -> Bool {
        if case .started = phase { return false }
        guard case .none = thread else { throw .invalid("start", "disconnect() still in progress") }
        phase = .started(.connecting)
        return true
    }

    /// A start that failed before its thread ran → idle.
    mutating func abandonStart() { phase = .idle }

    /// `disconnect()`: started → stopping gracefully, within 2 s; false, and nothing changes,
    /// when there is nothing to stop.
    mutating func beginDisconnect() -> Bool {
        guard case .started = phase else { return false }
        phase = .stopping(graceful: true, deadline: monotonicSeconds() + 2)
        return true
    }

    /// `stopNetwork` (a disconnect, or the client's end): any phase → stopping. A stop already
    /// asked for keeps its deadline, and one made forced stays forced.
    mutating func requestStop(graceful: Bool) {
        let earlier = stop
        phase = .stopping(graceful: graceful && earlier?.graceful != false, deadline: earlier?.deadline ?? monotonicSeconds() + 2)
    }

    /// The broker accepted the connection: connecting → connected. A CONNACK that comes after a
    /// stop was asked for does not undo the stop.
    mutating func linkUp() {
        if case .started = phase { phase = .started(.connected) }
    }

    /// The connection ended: connected → connecting, the network thread retrying.
    mutating func linkDown() {
        if case .started(.connected) = phase { phase = .started(.connecting) }
    }

    /// The thread a stop ends and whether it can be joined: not on the thread itself (a stop from
    /// inside one of its callbacks), which is detached instead; nil when none is joinable.
    mutating func threadToStop() -> (pthread_t?, Bool) {
        guard case .joinable(let id) = thread else { return (nil, false) }
        guard pthread_equal(id, pthread_self()) == 0 else {
            thread = .detached(id)
            return (id, false)
        }
        return (id, true)
    }

    /// The stop asked for, nil while the client is idle or started.
    var stop: (graceful: Bool, deadline: Double)? {
        guard case .stopping(let graceful, let deadline) = phase else { return nil }
        return (graceful, deadline)
    }
}
