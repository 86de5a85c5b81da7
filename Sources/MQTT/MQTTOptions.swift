#if canImport(Glibc)
import Glibc
#endif

/// MQTT delivery guarantee of a publish or subscription.
public enum QoS: Int32, Sendable, Comparable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2

    public static func < (a: QoS, b: QoS) -> Bool { a.rawValue < b.rawValue }
}

/// The MQTT protocol spoken to the broker.
public enum ProtocolVersion: String, Sendable {
    case v311 = "3.1.1"
    case v5 = "5"
}

/// Where the password comes from; never the command line, where `ps` would show it.
public enum PasswordSource: Sendable, Equatable {
    /// A file whose content (without a trailing newline) is the password.
    case file(String)
    /// An environment variable holding the password.
    case environment(String)

    /// Reads the password now.
    public func resolve() throws(MQTTError) -> String {
        switch self {
        case .environment(let name):
            guard let value = getenv(name) else {
                throw .invalid("password", "environment variable \(name) is not set")
            }
            return String(cString: value)
        case .file(let path):
            guard let text = readSmallFile(path) else {
                throw .invalid("password", "cannot read password file \(path)")
            }
            var password = Substring(text)
            while password.last == "\n" || password.last == "\r" { password = password.dropLast() }
            return String(password)
        }
    }
}

/// TLS material: the CA that signs the broker's certificate, and optionally a client
/// certificate and key. The broker's certificate and host name are always verified.
public struct TLSOptions: Sendable, Equatable {
    public var caFile: String?
    public var caPath: String?
    public var certFile: String?
    public var keyFile: String?

    public init(caFile: String? = nil, caPath: String? = nil, certFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile; self.caPath = caPath; self.certFile = certFile; self.keyFile = keyFile
    }
}

/// A message the broker publishes for this client when it goes away without disconnecting.
public struct Will: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: QoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic; self.payload = payload; self.qos = qos; self.retain = retain
    }
}

/// Everything needed to connect a client.
public struct MQTTOptions: Sendable {
    /// The brokers, tried in turn: the first at `start()`, the next after each failed attempt or
    /// lost connection (nodes of one cluster). Never empty.
    public var brokers: [BrokerURL]
    /// The first broker; setting it leaves a one-broker list.
    public var broker: BrokerURL {
        get { brokers[0] }
        set { brokers = [newValue] }
    }
    public var clientID: String
    public var username: String?
    public var password: PasswordSource?
    /// Used for `mqtts://`; without a CA, the system's trusted certificates are used.
    public var tls: TLSOptions
    public var protocolVersion: ProtocolVersion
    /// Seconds between PINGREQs when idle; the broker fires the will after 1.5 × this.
    public var keepalive: Int32
    public var will: Will?
    /// Reconnect backoff, doubling from the first to the last (seconds).
    public var reconnectDelay: ClosedRange<UInt32>
    /// QoS 1/2 messages on the wire at once; more wait in libmosquitto's queue.
    public var maxInflight: UInt32
    /// `false` asks the broker to keep this client's subscriptions and queue its QoS ≥ 1
    /// messages while it is away (needs a fixed `clientID`).
    public var cleanSession = true
    /// Received messages that may wait for the event queue; beyond it new ones are dropped
    /// and counted (`shedMessages`). `nil` waits without bound.
    public var maxPendingMessages: Int?
    /// Payload bytes of received messages that may wait for the event queue; beyond it new
    /// ones are dropped and counted as `maxPendingMessages` is. `nil` waits without bound.
    /// A message bound alone lets memory follow message size (2,000 batches of 200 readings
    /// are 60 MB).
    public var maxPendingBytes: Int?
    /// Received messages waiting for the event queue at which the client stops reading its
    /// socket, so the broker holds what follows (its `max_queued_messages` per client, a QoS 1
    /// session's queue); reading resumes once half of them are handled. `nil` never pauses.
    /// Set below `maxPendingMessages`, that bound sheds nothing but what a broken reader would
    /// let through. A queue stuck for longer than about twice `keepalive` loses the connection
    /// (the broker's PINGRESP waits behind what was not read); the client reconnects, and a
    /// kept session resumes.
    public var pauseReadingAtMessages: Int?
    /// As `pauseReadingAtMessages`, in payload bytes waiting.
    public var pauseReadingAtBytes: Int?
    /// `false`: publishes done (written out at QoS 0, acknowledged by the broker at QoS ≥ 1)
    /// are not `.published` events (a block on the event queue each, which wakes it when idle)
    /// but gathered for `MQTTClient.takeAcknowledged(into:)`, for an owner that only counts them
    /// and takes them regularly (they are kept until taken).
    public var deliverAcknowledgements = true

    public init(broker: BrokerURL, clientID: String, username: String? = nil, password: PasswordSource? = nil,
                tls: TLSOptions = TLSOptions(), protocolVersion: ProtocolVersion = .v311, keepalive: Int32 = 30,
                will: Will? = nil, reconnectDelay: ClosedRange<UInt32> = 1...60, maxInflight: UInt32 = 20) {
        self.brokers = [broker]; self.clientID = clientID; self.username = username; self.password = password
        self.tls = tls; self.protocolVersion = protocolVersion; self.keepalive = keepalive; self.will = will
        self.reconnectDelay = reconnectDelay; self.maxInflight = maxInflight
    }
}

/// Reads a file of at most 64 KiB (passwords, small secrets).
func readSmallFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    guard ferror(file) == 0 else { return nil }
    return String(decoding: buffer[..<count], as: UTF8.self)
}
