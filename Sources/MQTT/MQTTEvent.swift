/// A message received on a subscription, copied out of libmosquitto's buffers.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: QoS
    public var retain: Bool
    /// What the client's `prepare` made of a received message on the network thread (work
    /// moved off the consumer's queue); not part of equality.
    public var prepared: (any PreparedMessage)?

    public init(topic: String, payload: [UInt8], qos: QoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic; self.payload = payload; self.qos = qos; self.retain = retain
    }

    public static func == (a: MQTTMessage, b: MQTTMessage) -> Bool {
        a.topic == b.topic && a.payload == b.payload && a.qos == b.qos && a.retain == b.retain
    }
}

/// What a client's `prepare` makes of a received message on libmosquitto's network thread.
public protocol PreparedMessage: Sendable {
    /// False when this value carries all its consumer needs of the payload: the payload is then
    /// not copied out of libmosquitto's buffer (`MQTTMessage.payload` stays empty). A readings
    /// batch is tens of kilobytes, and that copy was a tenth of the network thread's work.
    var needsPayload: Bool { get }
}

/// What the client reports, in the order libmosquitto saw it, on the client's queue.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection; subscriptions have been sent again.
    case connected
    /// The broker refused the connection (bad credentials, protocol); the client retries.
    /// A refusal for a reason already reported since the last connection is not reported again.
    case refused(code: Int32, reason: String)
    /// The connection ended, or an attempt to connect failed (a refused TCP connection, a
    /// failed TLS handshake); `reason` says why, with OpenSSL's words for a handshake, and no
    /// full stop at its end. An attempt failing for a reason already reported since the last
    /// connection is not reported again; every lost connection is. The third connection in a
    /// row lost within 10 s of being made says, once, that another client likely uses the same
    /// client id. `code` 0 means this client asked for it.
    case disconnected(code: Int32, reason: String)
    /// The publish with this message id is done: written out (QoS 0) or acknowledged by
    /// the broker (QoS 1 PUBACK, QoS 2 PUBCOMP).
    case published(mid: Int32)
    case message(MQTTMessage)
}

/// The client's connection as last reported by libmosquitto.
public enum ConnectionState: Sendable, Equatable {
    /// Not started, or stopped.
    case idle
    /// Connecting or waiting to reconnect after a failure.
    case connecting
    case connected
}
