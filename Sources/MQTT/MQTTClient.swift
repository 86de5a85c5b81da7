internal import CMosquitto
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto wants one `mosquitto_lib_init` per process, before any client exists.
private let libraryReady: Int32 = mosquitto_lib_init()

/// One connection to a broker, owning its libmosquitto handle.
///
/// `start()` connects in the background and keeps the connection: the client's network thread
/// runs libmosquitto's loop and retries every failure with exponential backoff, and this
/// client restores its subscriptions after every (re)connect. Events arrive on `queue`, never
/// on the network thread. `publish` and `subscribe` may be called from any thread.
///
/// The thread is the client's own rather than `mosquitto_loop_start`'s: that one ends for good
/// on errors libmosquitto deems fatal — a failed TLS handshake (a wrong CA, a plain listener
/// on the port), a protocol error, a failed DNS lookup — and the client then stays
/// unconnected, silently, until the process restarts.
///
/// `@unchecked Sendable`: the handle is only used through libmosquitto calls that lock
/// internally once the loop thread runs, and the Swift state is behind a `Mutex`.
public final class MQTTClient: @unchecked Sendable {
    private let handle: OpaquePointer
    private let options: MQTTOptions
    private let queue: DispatchQueue
    private let onEvent: @Sendable (MQTTEvent) -> Void
    private let state = Mutex(State())
    private let pending = Counter()
    /// Runs on libmosquitto's network thread for each received message before it is queued;
    /// its result travels as `MQTTMessage.prepared`. Set before `start()`.
    public let prepare: (@Sendable (String, [UInt8]) -> (any Sendable)?)?
    private let pendingBytes = Counter()
    private let shed = Counter()

    private struct State {
        var connection: ConnectionState = .idle
        var subscriptions: [(filter: String, qos: QoS)] = []
        var looping = false
        var thread: pthread_t?
        /// Set by `disconnect()` and `deinit`: the network thread ends (after sending a
        /// DISCONNECT when `graceful`).
        var stop: (graceful: Bool, deadline: Double)?
        /// Failed attempts since the last connection; each doubles the wait before the next.
        var failures = 0
        /// The failure last reported since the last connection: the same one again is not,
        /// so a broker away for hours costs one log line, not one per attempt.
        var lastFailure: String?
        /// Errors libmosquitto logged during the attempt (OpenSSL's reason for a handshake).
        var attemptErrors: [String] = []
    }

    /// Sets up a client; nothing is sent until `start()`.
    /// - Parameter onEvent: called on `queue` for every event, in order.
    public init(_ options: MQTTOptions, queue: DispatchQueue,
                prepare: (@Sendable (String, [UInt8]) -> (any Sendable)?)? = nil,
                onEvent: @escaping @Sendable (MQTTEvent) -> Void) throws(MQTTError) {
        try check(libraryReady, "library init")
        guard let handle = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw .invalid("create client", "mosquitto_new failed for client id '\(options.clientID)'")
        }
        self.handle = handle
        self.options = options
        self.queue = queue
        self.prepare = prepare
        self.onEvent = onEvent
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        try configure()
    }

    deinit {
        // Stop the network thread before the handle (and this object) go away under it; no
        // DISCONNECT, so the broker fires the will as it would for a crash.
        stopNetwork(graceful: false)
        mosquitto_destroy(handle)
    }

    private func configure() throws(MQTTError) {
        let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
        if let username = options.username {
            let password = try options.password?.resolve()
            try check(mosquitto_username_pw_set(handle, username, password), "username")
        }
        if options.broker.tls { try configureTLS() }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes {
                mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, will.qos.rawValue, will.retain)
            }
            try check(rc, "last will on \(will.topic)")
        }
        try check(mosquitto_max_inflight_messages_set(handle, options.maxInflight), "max inflight")
        mosquitto_connect_callback_set(handle, onConnect)
        mosquitto_disconnect_callback_set(handle, onDisconnect)
        mosquitto_publish_callback_set(handle, onPublish)
        mosquitto_message_callback_set(handle, onMessage)
    }

    private func configureTLS() throws(MQTTError) {
        let tls = options.tls
        if tls.caFile == nil && tls.caPath == nil {
            try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "TLS system certificates")
        } else {
            try check(mosquitto_tls_set(handle, tls.caFile, tls.caPath, tls.certFile, tls.keyFile, nil), "TLS files")
        }
        // 1 = SSL_VERIFY_PEER: the broker's certificate must chain to the CA.
        try check(mosquitto_tls_opts_set(handle, 1, nil, nil), "TLS options")
        try check(mosquitto_tls_insecure_set(handle, false), "TLS host name check")
    }

    /// Connects in the background; a broker that is not there yet, or that fails the TLS
    /// handshake, is retried with backoff and reported as `.disconnected` with the reason.
    public func start() throws(MQTTError) {
        let alreadyLooping = state.withLock { s in
            defer { s.looping = true; s.connection = .connecting }
            return s.looping
        }
        guard !alreadyLooping else { return }
        try check(mosquitto_threaded_set(handle, true), "threaded mode")
        captureErrors(true)
        let rc = mosquitto_connect_async(handle, options.broker.host, Int32(options.broker.port), options.keepalive)
        let errorText = rc == Int32(MOSQ_ERR_ERRNO.rawValue) ? String(cString: strerror(errno)) : nil
        // Only bad arguments are final; anything else the network thread retries.
        if rc == Int32(MOSQ_ERR_INVAL.rawValue) { try check(rc, "connect to \(options.broker)") }
        let context = NetworkStart(client: self, rc: rc, errorText: errorText)
        var id = pthread_t()
        let created = pthread_create(&id, nil, { raw in
            guard let raw else { return nil }
            let start = Unmanaged<NetworkStart>.fromOpaque(raw).takeRetainedValue()
            start.client._withUnsafeGuaranteedRef { $0.runNetwork(first: start.rc, errorText: start.errorText) }
            return nil
        }, Unmanaged.passRetained(context).toOpaque())
        guard created == 0 else {
            Unmanaged.passUnretained(context).release()
            state.withLock { s in s.looping = false; s.connection = .idle }
            throw .invalid("start network thread", "pthread_create failed (\(created))")
        }
        state.withLock { $0.thread = id }
    }

    /// The network thread: libmosquitto's loop while connected or connecting; after a failure,
    /// a report (when the reason is new), a wait and another attempt, until told to stop.
    /// `first` is what starting the first attempt returned.
    private func runNetwork(first: Int32, errorText: String?) {
        let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
        var rc = first, errorText = errorText
        while true {
            if let stop = state.withLock({ $0.stop }) {
                // A graceful stop runs the loop until the DISCONNECT is out (the socket closes).
                guard stop.graceful, rc == success, monotonicSeconds() < stop.deadline else { return }
            }
            if rc == success {
                rc = mosquitto_loop(handle, 1000, 1)
                errorText = rc == Int32(MOSQ_ERR_ERRNO.rawValue) ? String(cString: strerror(errno)) : nil
                continue
            }
            let delay = attemptFailed(rc, errorText: errorText)
            guard sleepUnlessStopped(delay) else { return }
            captureErrors(true)
            rc = mosquitto_reconnect_async(handle)
            errorText = rc == Int32(MOSQ_ERR_ERRNO.rawValue) ? String(cString: strerror(errno)) : nil
        }
    }

    /// Counts a failed attempt or a lost connection, reports it when its reason is new, and
    /// returns the seconds to wait before the next attempt.
    private func attemptFailed(_ rc: Int32, errorText: String?) -> Double {
        let (reason, isNew, failures) = state.withLock { s in
            var reason = errorText ?? describe(rc)
            if !s.attemptErrors.isEmpty { reason += " (" + s.attemptErrors.joined(separator: "; ") + ")" }
            s.attemptErrors.removeAll()
            s.failures += 1
            defer { s.lastFailure = reason }
            return (reason, s.lastFailure != reason, s.failures)
        }
        if isNew { deliver(.disconnected(code: rc, reason: reason)) }
        let first = Double(options.reconnectDelay.lowerBound), last = Double(options.reconnectDelay.upperBound)
        return min(last, first * Double(1 << min(failures - 1, 20)))
    }

    /// Sleeps `seconds` in short steps, so a stop is not kept waiting; `false` when stopped.
    private func sleepUnlessStopped(_ seconds: Double) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if state.withLock({ $0.stop }) != nil { return false }
            usleep(20_000)
        }
        return state.withLock { $0.stop } == nil
    }

    /// libmosquitto says why a TLS handshake failed only through its log callback (OpenSSL's
    /// error queue is drained into it). The callback is set only between connections: it
    /// formats every log line, one per message sent or received, which a connected client
    /// should not pay for.
    private func captureErrors(_ on: Bool) {
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

    /// Ends the network thread and waits for it.
    private func stopNetwork(graceful: Bool) {
        let thread = state.withLock { s in
            s.stop = (graceful, monotonicSeconds() + 2)
            defer { s.thread = nil }
            return s.thread
        }
        if let thread { pthread_join(thread, nil) }
    }

    /// Publishes and returns the message id that a later `.published(mid:)` event names.
    /// Fails with `isNotConnected` while the connection is down (QoS 0), or queues (QoS ≥ 1).
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], qos: QoS = .atMostOnce,
                        retain: Bool = false) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes {
            mosquitto_publish(handle, &mid, topic, Int32($0.count), $0.baseAddress, qos.rawValue, retain)
        }
        try check(rc, "publish to \(topic)")
        return mid
    }

    /// Subscribes now if connected, and again after every reconnect.
    public func subscribe(_ filter: String, qos: QoS = .atMostOnce) throws(MQTTError) {
        guard mosquitto_sub_topic_check(filter) == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            throw .invalid("subscribe", "bad topic filter '\(filter)'")
        }
        let connected = state.withLock { s in
            s.subscriptions.append((filter, qos))
            return s.connection == .connected
        }
        if connected { try sendSubscribe(filter, qos) }
    }

    private func sendSubscribe(_ filter: String, _ qos: QoS) throws(MQTTError) {
        try check(mosquitto_subscribe(handle, nil, filter, qos.rawValue), "subscribe to \(filter)")
    }

    /// The connection as last reported by libmosquitto.
    public var connection: ConnectionState { state.withLock { $0.connection } }

    /// Sends DISCONNECT (the broker does not fire the will) and stops the network thread.
    public func disconnect() {
        let wasLooping = state.withLock { s in
            defer { s.looping = false; s.connection = .idle }
            return s.looping
        }
        guard wasLooping else { return }
        // Without a connection there is no DISCONNECT to send: the thread just ends (leaving
        // its backoff or its attempt).
        let connected = mosquitto_disconnect(handle) == Int32(MOSQ_ERR_SUCCESS.rawValue)
        stopNetwork(graceful: connected)
    }

    // Called from the C callbacks, on the network thread.

    func deliver(_ event: MQTTEvent) {
        let onEvent = self.onEvent
        guard case .message(var m) = event, options.maxPendingMessages != nil || options.maxPendingBytes != nil else {
            if let prepare, case .message(var m) = event {
                m.prepared = prepare(m.topic, m.payload)
                let message = m
                queue.async { onEvent(.message(message)) }
                return
            }
            queue.async { onEvent(event) }
            return
        }
        // Messages waiting for the queue are bounded (in number and in bytes), so a consumer
        // that falls behind sheds load it can count instead of growing without limit.
        let size = m.payload.count
        let count = pending.add(1), bytes = pendingBytes.add(size)
        if count > options.maxPendingMessages ?? .max || (bytes > options.maxPendingBytes ?? .max && count > 1) {
            pending.subtract(1)
            pendingBytes.subtract(size)
            shed.add(1)
            return
        }
        // Only messages that will be handled are prepared: shed load costs no decoding.
        if let prepare { m.prepared = prepare(m.topic, m.payload) }
        let message = m, pending = self.pending, pendingBytes = self.pendingBytes
        queue.async {
            pending.subtract(1)
            pendingBytes.subtract(size)
            onEvent(.message(message))
        }
    }

    /// Messages dropped because `maxPendingMessages` were already waiting.
    public var shedMessages: Int { shed.current }

    func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            deliver(.refused(code: rc, reason: String(cString: mosquitto_connack_string(rc))))
            return
        }
        captureErrors(false)
        let subscriptions = state.withLock { s in
            s.connection = .connected
            s.failures = 0
            s.lastFailure = nil
            return s.subscriptions
        }
        // mosquitto_subscribe only queues a packet, so it is fine on the loop thread.
        for (filter, qos) in subscriptions { try? sendSubscribe(filter, qos) }
        deliver(.connected)
    }

    func didDisconnect(_ rc: Int32) {
        state.withLock { s in if s.connection == .connected { s.connection = s.looping ? .connecting : .idle } }
        // A failure, of a connection or of an attempt (a handshake, a refused TCP connection),
        // is reported by the network thread with its reason; only our own DISCONNECT is here.
        if rc == 0 { deliver(.disconnected(code: 0, reason: "disconnected")) }
    }
}

/// What the network thread starts with. The client is not retained, not even while the thread
/// runs in it: dropping the client's last reference must end the thread (`deinit` does so
/// before the client goes, so the reference never dangles).
private final class NetworkStart {
    let client: Unmanaged<MQTTClient>
    let rc: Int32, errorText: String?
    init(client: MQTTClient, rc: Int32, errorText: String?) {
        (self.client, self.rc, self.errorText) = (Unmanaged.passUnretained(client), rc, errorText)
    }
}

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// A shared atomic count (a class, so the queued closure and the client see one value).
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    /// Adds `n` and returns the new count.
    @discardableResult
    func add(_ n: Int) -> Int { value.add(n, ordering: .relaxed).newValue }
    func subtract(_ n: Int) { value.subtract(n, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}
