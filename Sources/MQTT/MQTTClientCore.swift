internal import CMosquitto
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// libmosquitto wants one `mosquitto_lib_init` per process, before any client exists.
private let libraryReady: Int32 = mosquitto_lib_init()

/// An `MQTTClient`'s handle, state and network thread. The running thread holds a reference,
/// so the core outlives every libmosquitto callback; its `deinit` frees the handle once neither
/// the client nor a thread has it, never under the loop.
///
/// `@unchecked Sendable`: the handle is only used through libmosquitto calls that lock
/// internally once the loop thread runs, and the Swift state is behind a `Mutex`.
final class MQTTClientCore: @unchecked Sendable {
    let handle: OpaquePointer
    let options: MQTTOptions
    private let queue: DispatchQueue
    private let onEvent: @Sendable (MQTTEvent) -> Void
    let state = Mutex(State())
    let pending = Counter()
    let prepare: (@Sendable (String, UnsafeRawBufferPointer) -> (any PreparedMessage)?)?
    let pendingBytes = Counter()
    /// Reading paused for the event queue (`MQTTClientCore+Backpressure.swift`).
    let backpressure = Backpressure()
    private let shed = Counter()
    /// Ids of publishes done and not yet taken, when `options.deliverAcknowledgements` is off.
    let acknowledgements = Mutex<[Int32]>([])

    struct State {
        var phase = Phase.idle
        var subscriptions: [(filter: String, qos: QoS)] = []
        var thread = NetworkThread.none
        /// Failed attempts since the last connection; each doubles the wait before the next.
        var failures = 0
        /// The failures reported since the last connection: the same one again is not, so a
        /// broker away for hours, or refusing a password at every attempt, costs one log line,
        /// not one per attempt. A handful at most (one per reason libmosquitto or the broker gives).
        var reported: Set<String> = []
        /// When the current connection was made (monotonic seconds); nil while not connected.
        var connectedAt: Double?
        /// Connections in a row lost within `shortConnection` of being made.
        var shortConnections = 0
        /// The broker's refusal of the last attempt (its CONNACK), reported when the attempt ends.
        var refusal: (code: Int32, reason: String)?
        /// Errors libmosquitto logged during the attempt (OpenSSL's reason for a handshake).
        var attemptErrors: [String] = []
        /// errno as the disconnect callback found it when a connection ended with
        /// `MOSQ_ERR_ERRNO`: by the time `mosquitto_loop` returns, closing the socket and the
        /// callback itself may have changed it.
        var lostErrno: Int32?
        /// The broker of the current or last attempt, an index into `options.brokers`: the next
        /// one after each failure (`MQTTClientCore+Network.swift`).
        var brokerIndex = 0
    }
    /// Signalled by `stopNetwork`: wakes the network thread from its wait between attempts.
    let wake = DispatchSemaphore(value: 0)
    /// Held by whatever opens a socket or stops the client — `start()`, the network thread
    /// around each new attempt, `disconnect()` while it asks for the stop — so a stop either
    /// comes first (no socket is opened after it) or finds the socket to send DISCONNECT on
    /// and the thread to close it. Never held by a libmosquitto callback, nor while joining.
    let lifecycle = Mutex(())

    init(_ options: MQTTOptions, queue: DispatchQueue,
         prepare: (@Sendable (String, UnsafeRawBufferPointer) -> (any PreparedMessage)?)?,
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
        // No thread has the core any more (a running one holds a reference): nothing is
        // inside libmosquitto's loop. A socket still open closes without DISCONNECT.
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

    func start() throws(MQTTError) {
        try lifecycle.withLock { _ throws(MQTTError) in try startLocked() }
    }

    private func startLocked() throws(MQTTError) {
        let starting = try state.withLock { s throws(MQTTError) -> Bool in
            guard try s.begin() else { return false }
            s.failures = 0
            s.reported.removeAll()
            s.connectedAt = nil
            s.shortConnections = 0
            s.refusal = nil
            s.lostErrno = nil
            s.brokerIndex = 0
            return true
        }
        guard starting else { return }
        do {
            try check(mosquitto_threaded_set(handle, true), "threaded mode")
            captureErrors(true)
            let broker = options.brokers[0]
            let rc = mosquitto_connect_async(handle, broker.host, Int32(broker.port), options.keepalive)
            let error = errno
            let errorText = rc == Int32(MOSQ_ERR_ERRNO.rawValue) ? errnoText(error) : nil
            // Only bad arguments are final; anything else the network thread retries.
            if rc == Int32(MOSQ_ERR_INVAL.rawValue) { try check(rc, "connect to \(options.broker)") }
            try startNetwork(first: rc, errorText: errorText)
        } catch {
            // Not started: a later start() must not find this one half done.
            captureErrors(false)
            state.withLock { s in s.abandonStart() }
            throw error
        }
    }

    func publish(_ topic: String, _ payload: [UInt8], qos: QoS, retain: Bool) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes {
            mosquitto_publish(handle, &mid, topic, Int32($0.count), $0.baseAddress, qos.rawValue, retain)
        }
        try check(rc, "publish to \(topic)")
        return mid
    }

    func subscribe(_ filter: String, qos: QoS) throws(MQTTError) {
        guard mosquitto_sub_topic_check(filter) == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            throw .invalid("subscribe", "bad topic filter '\(filter)'")
        }
        let connected = state.withLock { s in
            s.subscriptions.append((filter, qos))
            return s.connection == .connected
        }
        if connected { try sendSubscribe(filter, qos) }
    }

    func unsubscribe(_ filter: String) throws(MQTTError) {
        let connected = state.withLock { s in
            s.subscriptions.removeAll { $0.filter == filter }
            return s.connection == .connected
        }
        if connected { try check(mosquitto_unsubscribe(handle, nil, filter), "unsubscribe from \(filter)") }
    }

    private func sendSubscribe(_ filter: String, _ qos: QoS) throws(MQTTError) {
        try check(mosquitto_subscribe(handle, nil, filter, qos.rawValue), "subscribe to \(filter)")
    }

    var connection: ConnectionState { state.withLock { $0.connection } }

    /// The broker of the current connection, or of the attempt under way or last made.
    var currentBroker: BrokerURL { options.brokers[state.withLock { $0.brokerIndex }] }

    func disconnect() {
        // `stop` is set before the DISCONNECT goes out, so the network thread takes the socket
        // closing after it (NO_CONN) for the end it was asked for, not for a lost connection.
        // Under `lifecycle`, no socket is being opened meanwhile: none means none to come.
        let connected: Bool? = lifecycle.withLock { _ in
            let wasStarted = state.withLock { s in s.beginDisconnect() }
            guard wasStarted else { return nil }
            // Without a connection there is no DISCONNECT to send: the thread just ends
            // (leaving its backoff or its attempt).
            return mosquitto_disconnect(handle) == Int32(MOSQ_ERR_SUCCESS.rawValue)
        }
        guard let connected else { return }
        stopNetwork(graceful: connected)
    }

    // Called from the C callbacks, on the network thread.

    func deliver(_ event: MQTTEvent) {
        let onEvent = self.onEvent
        queue.async { onEvent(event) }
    }

    /// A received message, its payload still in libmosquitto's buffer (valid for this call).
    func deliver(topic: String, payload bytes: UnsafeRawBufferPointer, qos: QoS, retain: Bool) {
        let onEvent = self.onEvent
        // Messages waiting for the queue are bounded (in number and in bytes), so a consumer
        // that falls behind sheds load it can count instead of growing without limit. The
        // bytes counted are the payload's, whatever `prepare` keeps of it.
        let size = bytes.count
        let bounded = options.maxPendingMessages != nil || options.maxPendingBytes != nil || pausesReading
        if bounded {
            let count = pending.add(1), total = pendingBytes.add(size)
            if count > options.maxPendingMessages ?? .max || (total > options.maxPendingBytes ?? .max && count > 1) {
                pending.subtract(1)
                pendingBytes.subtract(size)
                shed.add(1)
                return
            }
        }
        // Only messages that will be handled are prepared: shed load costs no decoding.
        let prepared = prepare?(topic, bytes)
        var m = MQTTMessage(topic: topic, payload: prepared?.needsPayload == false ? [] : Array(bytes), qos: qos, retain: retain)
        m.prepared = prepared
        let message = m
        guard bounded else {
            queue.async { onEvent(.message(message)) }
            return
        }
        queue.async { [self] in
            pending.subtract(1)
            pendingBytes.subtract(size)
            onEvent(.message(message))
            resumeReadingIfDrained()
        }
    }

    var shedMessages: Int { shed.current }

    /// Publish `mid` is done: an event, or kept for `takeAcknowledged`.
    func acknowledged(_ mid: Int32) {
        guard options.deliverAcknowledgements else {
            acknowledgements.withLock { $0.append(mid) }
            return
        }
        deliver(.published(mid: mid))
    }

    func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            // Reported by the network thread when the attempt ends, once per reason.
            let reason = sentence(String(cString: mosquitto_connack_string(rc)))
            state.withLock { $0.refusal = (rc, reason) }
            return
        }
        captureErrors(false)
        let subscriptions = state.withLock { s in
            s.linkUp()
            s.failures = 0
            s.connectedAt = monotonicSeconds()
            return s.subscriptions
        }
        // mosquitto_subscribe only queues a packet, so it is fine on the loop thread.
        for (filter, qos) in subscriptions { try? sendSubscribe(filter, qos) }
        deliver(.connected)
    }

    func didDisconnect(_ rc: Int32, errno error: Int32) {
        state.withLock { s in
            s.linkDown()
            if rc == Int32(MOSQ_ERR_ERRNO.rawValue) { s.lostErrno = error }
        }
        // A failure, of a connection or of an attempt (a handshake, a refused TCP connection),
        // is reported by the network thread with its reason; only our own DISCONNECT is here.
        if rc == 0 { deliver(.disconnected(code: 0, reason: "disconnected")) }
    }
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
