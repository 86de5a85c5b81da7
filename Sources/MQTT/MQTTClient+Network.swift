internal import CMosquitto
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

// The client's network thread: libmosquitto's loop, the backoff between attempts, and the
// stop that ends it.
extension MQTTClientCore {
    /// Creates the network thread (`start()` holds `lifecycle`, so no `disconnect()` comes
    /// between the first attempt's socket and the thread that owns it). The id is stored under
    /// the state lock: the thread's first look at `stop` waits for it.
    func startNetwork(first rc: Int32, errorText: String?) throws(MQTTError) {
        let context = NetworkStart(core: self, rc: rc, errorText: errorText)
        let created: Int32? = state.withLock { s in
            guard case .started = s.phase else { return nil }
            var id = pthread_t()
            let created = pthread_create(&id, nil, { raw in
                guard let raw else { return nil }
                // The thread's reference to the core goes with `start`, when the loop is left:
                // the core's deinit, if this was the last, frees the handle here, not under it.
                let start = Unmanaged<NetworkStart>.fromOpaque(raw).takeRetainedValue()
                start.core.runNetwork(first: start.rc, errorText: start.errorText)
                start.core.networkEnded()
                return nil
            }, Unmanaged.passRetained(context).toOpaque())
            if created == 0 { s.thread = .joinable(id) }
            return created
        }
        guard let created, created != 0 else { return }
        Unmanaged.passUnretained(context).release()
        throw .invalid("start network thread", "pthread_create failed (\(created))")
    }

    /// The network thread: libmosquitto's loop while connected or connecting; after a failure,
    /// a report (when the reason is new), a wait and another attempt, until told to stop.
    /// `first` is what starting the first attempt returned.
    private func runNetwork(first: Int32, errorText: String?) {
        let success = Int32(MOSQ_ERR_SUCCESS.rawValue), errnoCode = Int32(MOSQ_ERR_ERRNO.rawValue)
        var rc = first, errorText = errorText
        while true {
            if let stop = state.withLock({ $0.stop }) {
                // A graceful stop runs the loop until the DISCONNECT is out and the socket
                // closes (NO_CONN). However the loop ends once a stop is asked for, it is the
                // end asked for: nothing is reported.
                guard stop.graceful, rc == success, monotonicSeconds() < stop.deadline else { return }
            }
            if rc == success {
                rc = loopTurn()
                let error = errno
                errorText = rc == errnoCode ? errnoText(takeLostErrno() ?? error) : nil
                continue
            }
            let delay = attemptFailed(rc, errorText: errorText)
            guard sleepUnlessStopped(delay), let attempt = reconnectUnlessStopped() else { return }
            (rc, errorText) = attempt
        }
    }

    /// Starts another attempt, under `lifecycle` and only while no stop is asked for: a
    /// `disconnect()` either comes first (no socket is opened) or after, when its DISCONNECT
    /// finds the new socket. Blocks on the host name lookup: a stop asked for meanwhile waits.
    private func reconnectUnlessStopped() -> (rc: Int32, errorText: String?)? {
        captureErrors(true)
        return lifecycle.withLock { _ in
            guard let index = state.withLock({ $0.stop == nil ? $0.brokerIndex : nil }) else { return nil }
            // One broker: libmosquitto's own reconnect to it. A list: the broker now in turn,
            // through the same call with its host and port (a connect on a used handle
            // reconnects, keeping the will, the session flag and the credentials).
            let broker = options.brokers[index]
            let rc = options.brokers.count == 1 ? mosquitto_reconnect_async(handle)
                : mosquitto_connect_async(handle, broker.host, Int32(broker.port), options.keepalive)
            let error = errno
            return (rc, rc == Int32(MOSQ_ERR_ERRNO.rawValue) ? errnoText(error) : nil)
        }
    }

    /// errno as the disconnect callback saw it, when the connection ended with one.
    private func takeLostErrno() -> Int32? {
        state.withLock { s in
            defer { s.lostErrno = nil }
            return s.lostErrno
        }
    }

    /// A connection lost this soon (seconds) after it was made did not last: `clashHintAfter`
    /// such in a row earn the hint of another client with the same id.
    static let shortConnection = 10.0
    static let clashHintAfter = 3

    /// Counts a failed attempt or a lost connection, reports it when its reason is new, and
    /// returns the seconds to wait before the next attempt.
    private func attemptFailed(_ rc: Int32, errorText: String?) -> Double {
        let count = options.brokers.count
        let (event, failures) = state.withLock { s in
            let event = failure(rc, errorText: errorText, in: &s)
            s.failures += 1
            s.brokerIndex = (s.brokerIndex + 1) % count
            return (event, s.failures)
        }
        if let event { deliver(event) }
        // With a list, the next broker is tried at once (a node that went away is no reason to
        // wait for the others); the backoff is between rounds, each round doubling it.
        if failures % count != 0 { return 0 }
        let rounds = failures / count
        let first = Double(options.reconnectDelay.lowerBound), last = Double(options.reconnectDelay.upperBound)
        return min(last, first * Double(1 << min(rounds - 1, 20)))
    }

    /// The event a failure is reported by, or nil when its reason was reported already since the
    /// last connection. Every lost connection is reported (its owner learns it is not connected),
    /// the third lost soon after being made in a row with the hint of a client id used twice.
    private func failure(_ rc: Int32, errorText: String?, in s: inout State) -> MQTTEvent? {
        defer { s.attemptErrors.removeAll(); s.refusal = nil }
        if let refusal = s.refusal {
            return s.reported.insert("refused: " + refusal.reason).inserted ? .refused(code: refusal.code, reason: refusal.reason) : nil
        }
        var reason = sentence(errorText ?? describe(rc))
        // With a list, which node failed is part of the reason (each is reported once).
        if options.brokers.count > 1 { reason = "\(options.brokers[s.brokerIndex]): " + reason }
        if !s.attemptErrors.isEmpty { reason += " (" + s.attemptErrors.joined(separator: "; ") + ")" }
        guard let connectedAt = s.connectedAt else {
            return s.reported.insert(reason).inserted ? .disconnected(code: rc, reason: reason) : nil
        }
        s.connectedAt = nil
        s.reported = [reason]
        s.shortConnections = monotonicSeconds() - connectedAt < Self.shortConnection ? s.shortConnections + 1 : 0
        guard s.shortConnections == Self.clashHintAfter else { return .disconnected(code: rc, reason: reason) }
        return .disconnected(code: rc, reason: reason + "; lost \(Self.clashHintAfter) times in a row within "
            + "\(Int(Self.shortConnection)) s of connecting: another client with the id '\(options.clientID)' is likely "
            + "connected to this broker (each connection with an id ends the one before)")
    }

    /// Waits `seconds`, or less when `stopNetwork` signals; `false` when stopped.
    private func sleepUnlessStopped(_ seconds: Double) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while true {
            // A signal left over from an earlier stop only costs one more turn here.
            if state.withLock({ $0.stop }) != nil { return false }
            let left = deadline - monotonicSeconds()
            if left <= 0 { return true }
            _ = wake.wait(timeout: .now() + left)
        }
    }

    /// libmosquitto says why a TLS handshake failed only through its log callback (OpenSSL's
    /// error queue is drained into it). The callback is set only between connections: it
    /// formats every log line, one per message sent or received, which a connected client
    /// should not pay for.
    func captureErrors(_ on: Bool) {
        if on {
            state.withLock { $0.attemptErrors.removeAll() }
            mosquitto_log_callback_set(handle, onLog)
        } else {
            mosquitto_log_callback_set(handle, nil)
        }
    }

    func logged(level: Int32, _ line: String) {
        guard level & Int32(MOSQ_LOG_ERR) != 0 else { return }
        state.withLock { s in if s.attemptErrors.count < 4 { s.attemptErrors.append(line) } }
    }

    /// Ends the network thread and waits for it. A stop already asked for keeps its deadline;
    /// `graceful: false` cuts it short. Asked on the network thread itself (the client dropped
    /// or disconnected inside `prepare`), the thread cannot be joined: it is detached, and it
    /// ends once the callback returns and the loop with it.
    func stopNetwork(graceful: Bool) {
        let (thread, join) = state.withLock { s -> (pthread_t?, Bool) in
            s.requestStop(graceful: graceful)
            return s.threadToStop()
        }
        wake.signal()
        guard let thread else { return }
        guard join else {
            pthread_detach(thread)
            return
        }
        pthread_join(thread, nil)
        state.withLock { $0.thread = .none }
    }

    /// The network thread's last step: a detached thread is nobody's to join, so it clears its
    /// id itself, and only then may `start()` run another.
    fileprivate func networkEnded() {
        state.withLock { s in
            if case .detached = s.thread { s.thread = .none }
        }
    }
}

/// What the network thread starts with, the core among it: the thread holds the core until it
/// ends. The client, which owns the core and stops the thread when it goes, is not held.
private final class NetworkStart {
    let core: MQTTClientCore
    let rc: Int32, errorText: String?
    init(core: MQTTClientCore, rc: Int32, errorText: String?) {
        (self.core, self.rc, self.errorText) = (core, rc, errorText)
    }
}

/// libmosquitto's texts end with a full stop (`The connection was lost.`): a reason is a part
/// of the caller's sentence (`…: The connection was lost; retrying`), so it is dropped.
func sentence(_ text: String) -> String {
    text.hasSuffix(".") ? String(text.dropLast()) : text
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// The C library's text for an errno value. `strerror` is not thread-safe; `strerror_r` is,
/// in one of two kinds: GNU's returns the text (in `buffer` or a static string), XSI's returns
/// 0 and fills `buffer`. The two overloads below take whichever this Glibc declares.
func errnoText(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    return buffer.withUnsafeMutableBufferPointer { b in
        let buffer = b.baseAddress!
        return strerrorText(strerror_r(code, buffer, b.count), buffer, code)
    }
}

private func strerrorText(_ text: UnsafeMutablePointer<CChar>?, _ buffer: UnsafeMutablePointer<CChar>, _ code: Int32) -> String {
    text.map { String(cString: $0) } ?? "errno \(code)"
}

private func strerrorText(_ result: Int32, _ buffer: UnsafeMutablePointer<CChar>, _ code: Int32) -> String {
    result == 0 ? String(cString: buffer) : "errno \(code)"
}
