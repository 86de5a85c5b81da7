import Dispatch

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
/// This is the front its owners hold; the handle, the state and the network thread are in an
/// `MQTTClientCore`, which the running thread holds too. Dropping the last reference to the
/// client stops the thread without a DISCONNECT (the broker fires the will, as for a crash),
/// from any thread — the network thread included, inside `prepare`: the core, and with it the
/// handle, then goes when the thread has left libmosquitto's loop, not under it.
public final class MQTTClient: Sendable {
    let core: MQTTClientCore

    /// Runs on libmosquitto's network thread for each received message before it is queued,
    /// on libmosquitto's own copy of the payload; its result travels as `MQTTMessage.prepared`.
    public var prepare: (@Sendable (String, UnsafeRawBufferPointer) -> (any PreparedMessage)?)? { core.prepare }

    /// Sets up a client; nothing is sent until `start()`.
    /// - Parameter onEvent: called on `queue` for every event, in order.
    public init(_ options: MQTTOptions, queue: DispatchQueue,
                prepare: (@Sendable (String, UnsafeRawBufferPointer) -> (any PreparedMessage)?)? = nil,
                onEvent: @escaping @Sendable (MQTTEvent) -> Void) throws(MQTTError) {
        core = try MQTTClientCore(options, queue: queue, prepare: prepare, onEvent: onEvent)
    }

    deinit {
        core.stopNetwork(graceful: false)
    }

    /// Connects in the background; a broker that is not there yet, or that fails the TLS
    /// handshake, is retried with backoff and reported as `.disconnected` with the reason.
    /// After `disconnect()` it starts afresh.
    public func start() throws(MQTTError) { try core.start() }

    /// Publishes and returns the message id that a later `.published(mid:)` event names, or,
    /// with `MQTTOptions.deliverAcknowledgements` false, that `takeAcknowledged(into:)` returns
    /// (whose owner must then take them: they are kept until taken).
    /// Fails with `isNotConnected` while the connection is down (QoS 0), or queues (QoS ≥ 1).
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], qos: QoS = .atMostOnce,
                        retain: Bool = false) throws(MQTTError) -> Int32 {
        try core.publish(topic, payload, qos: qos, retain: retain)
    }

    /// Subscribes now if connected, and again after every reconnect.
    public func subscribe(_ filter: String, qos: QoS = .atMostOnce) throws(MQTTError) {
        try core.subscribe(filter, qos: qos)
    }

    /// Unsubscribes now if connected, and no longer after a reconnect.
    public func unsubscribe(_ filter: String) throws(MQTTError) {
        try core.unsubscribe(filter)
    }

    /// The connection as last reported by libmosquitto.
    public var connection: ConnectionState { core.connection }

    /// The broker of `MQTTOptions.brokers` connected to, or being (or last) tried.
    public var currentBroker: BrokerURL { core.currentBroker }

    /// Sends DISCONNECT (the broker does not fire the will) and stops the network thread.
    /// Once it returns, the client has no socket open, unless the DISCONNECT could not go out
    /// within 2 s (a broker that stopped reading): that one closes at the next `start()` or at
    /// the client's end.
    public func disconnect() { core.disconnect() }

    /// Appends the ids of publishes done since the last call to `mids` (those `.published`
    /// would name: written out at QoS 0, acknowledged at QoS ≥ 1), in the order they were done.
    /// Only with `MQTTOptions.deliverAcknowledgements` off; with it on, they are `.published`
    /// events and none are kept here.
    public func takeAcknowledged(into mids: inout [Int32]) {
        core.acknowledgements.withLock { taken in
            mids.append(contentsOf: taken)
            taken.removeAll(keepingCapacity: true)
        }
    }

    /// Messages dropped because `maxPendingMessages` were already waiting.
    public var shedMessages: Int { core.shedMessages }

    /// Times reading was paused because `pauseReadingAtMessages` or `pauseReadingAtBytes`
    /// were waiting, and the seconds it stayed paused in all.
    public var readPauses: (count: Int, seconds: Double) { core.readPauses }
}
