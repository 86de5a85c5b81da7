import Dispatch
import Foundation
import MQTT
import Synchronization

/// Subscribes with the MQTT module and keeps every message and connection event.
final class Collector: Sendable {
    let client: MQTTClient
    private let probeTopic: String
    private let log = Log()

    /// Written on the client's queue, read by the test.
    private final class Log: Sendable {
        let messages = Mutex<[MQTTMessage]>([])
        let events = Mutex<[MQTTEvent]>([])
    }

    /// - Parameter session: a client id for a persistent session (the broker queues what
    ///   arrives while this collector is disconnected); nil for a fresh clean session.
    /// - Parameter onMessage: called on the client's queue with each message once it is kept,
    ///   for a test that must act the moment something arrives.
    convenience init(broker: Broker, filters: [String], qos: QoS = .atLeastOnce, session: String? = nil,
                     onMessage: (@Sendable (MQTTMessage) -> Void)? = nil) throws {
        try self.init(url: broker.url, filters: filters, qos: qos, session: session, onMessage: onMessage)
    }

    /// As `init(broker:…)`, on the broker at `url` (a node of a NATS cluster).
    init(url: String, filters: [String], qos: QoS = .atLeastOnce, session: String? = nil,
         onMessage: (@Sendable (MQTTMessage) -> Void)? = nil) throws {
        let clientID = session ?? "collector-\(UInt32.random(in: 0...UInt32.max))"
        let log = self.log
        var options = MQTTOptions(broker: try BrokerURL(parsing: url), clientID: clientID,
                                  keepalive: 5, reconnectDelay: 1...2)
        options.cleanSession = session == nil
        client = try MQTTClient(options, queue: DispatchQueue(label: "collector")) { event in
            if case .message(let m) = event {
                log.messages.withLock { $0.append(m) }
                onMessage?(m)
            }
            log.events.withLock { $0.append(event) }
        }
        probeTopic = "probe/\(clientID)"
        for f in filters + [probeTopic] { try client.subscribe(f, qos: qos) }
        try client.start()
    }

    var messages: [MQTTMessage] { log.messages.withLock { $0 } }
    var eventLog: [MQTTEvent] { log.events.withLock { $0 } }

    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Waits until `condition` holds for the messages so far, or the timeout passes.
    @discardableResult
    func wait(timeout: Double = 10, until condition: ([MQTTMessage]) -> Bool) async -> Bool {
        await poll(timeout: timeout) { condition(self.messages) }
    }

    /// Waits until the subscriptions are in place: the broker handles a client's packets in
    /// order, so hearing our own probe (subscribed last) means every filter before it is live.
    func ready(timeout: Double = 30) async throws {
        let start = messages(on: probeTopic).count
        let heard = await poll(timeout: timeout) {
            if self.client.connection == .connected { _ = try? self.client.publish(self.probeTopic, [1]) }
            return self.messages(on: self.probeTopic).count > start
        }
        guard heard else { throw HarnessError("collector did not hear its probe") }
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass.
func poll(timeout: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// A value shared between a callback and the test.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
    var current: Value { value.withLock { $0 } }
}
