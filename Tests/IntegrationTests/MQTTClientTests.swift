import Dispatch
import Foundation
import MQTT
import Synchronization
import Testing

@Suite("MQTT client against a real mosquitto")
struct MQTTClientTests {
    @Test func brokerURLs() throws {
        #expect(try BrokerURL(parsing: "mqtt://broker.local") == BrokerURL(host: "broker.local", port: 1883, tls: false))
        #expect(try BrokerURL(parsing: "mqtts://10.0.0.2") == BrokerURL(host: "10.0.0.2", port: 8883, tls: true))
        #expect(try BrokerURL(parsing: "mqtt://[::1]:1884/") == BrokerURL(host: "::1", port: 1884, tls: false))
        for bad in ["tcp://x", "mqtt://", "mqtt://h:0", "mqtt://h:99999", "mqtt://user:pw@h", "mqtt://h:1:2"] {
            #expect(throws: MQTTError.self, "\(bad)") { try BrokerURL(parsing: bad) }
        }
    }

    @Test func passwordFromFileAndEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(getpid())")
        try "s3cret\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try PasswordSource.file(file.path).resolve() == "s3cret")
        setenv("WHEREABOUTS_TEST_PW", "from-env", 1)
        #expect(try PasswordSource.environment("WHEREABOUTS_TEST_PW").resolve() == "from-env")
        #expect(throws: MQTTError.self) { try PasswordSource.environment("WHEREABOUTS_TEST_UNSET_\(getpid())").resolve() }
        #expect(throws: MQTTError.self) { try PasswordSource.file("/nonexistent/pw").resolve() }
    }

    @Test(arguments: [ProtocolVersion.v311, .v5])
    func publishAndSubscribe(version: ProtocolVersion) async throws {
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["t/#"])
        try await collector.ready()
        let acks = Shared<[Int32]>([])
        let publisher = try MQTTClient(
            MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "pub", protocolVersion: version),
            queue: DispatchQueue(label: "pub")) { event in
                if case .published(let mid) = event { acks.update { $0.append(mid) } }
            }
        try publisher.start()
        #expect(await poll(timeout: 10) { publisher.connection == .connected })
        let mid = try publisher.publish("t/a", Array("hello".utf8), qos: .atLeastOnce)
        try publisher.publish("t/b", [0, 255, 7], qos: .atMostOnce, retain: false)
        #expect(await collector.wait { messages in messages.contains { $0.topic == "t/a" } && messages.contains { $0.topic == "t/b" } })
        #expect(collector.messages(on: "t/a").map(\.payload) == [Array("hello".utf8)])
        #expect(collector.messages(on: "t/b").map(\.payload) == [[0, 255, 7]])
        #expect(await poll(timeout: 5) { acks.current.contains(mid) })
    }

    /// With `deliverAcknowledgements` off, every publish done (a QoS 1 one acknowledged, a QoS 0
    /// one written out: what `.published` names) is taken from `takeAcknowledged` (the
    /// aggregator's way), once, and none comes as an event.
    @Test func acknowledgementsGatheredForTheOwner() async throws {
        let broker = try Broker()
        let events = Shared<[Int32]>([])
        var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "pub")
        options.deliverAcknowledgements = false
        let publisher = try MQTTClient(options, queue: DispatchQueue(label: "pub")) { event in
            if case .published(let mid) = event { events.update { $0.append(mid) } }
        }
        try publisher.start()
        #expect(await poll(timeout: 10) { publisher.connection == .connected })
        var sent: [Int32] = []
        for i in 0..<50 {
            sent.append(try publisher.publish("t/\(i)", [UInt8(i)], qos: .atLeastOnce))
            sent.append(try publisher.publish("t/zero", [UInt8(i)], qos: .atMostOnce))
        }
        let taken = Shared<[Int32]>([])
        #expect(await poll(timeout: 10) {
            var mids: [Int32] = []
            publisher.takeAcknowledged(into: &mids)
            taken.update { $0 += mids }
            return taken.current.count >= sent.count
        })
        #expect(Set(taken.current) == Set(sent) && taken.current.count == sent.count)
        #expect(events.current.isEmpty)
    }

    @Test func willFiresWhenClientVanishes() async throws {
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["node/status"])
        try await collector.ready()
        var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "mortal")
        options.will = Will(topic: "node/status", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
        var client: MQTTClient? = try MQTTClient(options, queue: DispatchQueue(label: "mortal")) { _ in }
        try client?.start()
        #expect(await poll(timeout: 10) { client?.connection == .connected })
        try client?.publish("node/status", Array("online".utf8), qos: .atLeastOnce, retain: true)
        #expect(await collector.wait { $0.contains { $0.topic == "node/status" } })
        // Destroying the handle closes the socket without DISCONNECT, as a crash would.
        client = nil
        #expect(await collector.wait { $0.filter { $0.topic == "node/status" }.count == 2 })
        #expect(collector.messages(on: "node/status").map { String(decoding: $0.payload, as: UTF8.self) } == ["online", "offline"])
    }

    @Test func cleanDisconnectDoesNotFireWill() async throws {
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["node/status"])
        try await collector.ready()
        var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "polite")
        options.will = Will(topic: "node/status", payload: Array("offline".utf8))
        let client = try MQTTClient(options, queue: DispatchQueue(label: "polite")) { _ in }
        try client.start()
        #expect(await poll(timeout: 10) { client.connection == .connected })
        client.disconnect()
        #expect(client.connection == .idle)
        try await collector.ready()
        #expect(collector.messages(on: "node/status").isEmpty)
    }

    @Test func startsAgainAfterDisconnect() async throws {
        let broker = try Broker()
        let heard = Shared<[String]>([])
        let client = try MQTTClient(MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "again"),
                                    queue: DispatchQueue(label: "again")) { event in
            if case .message(let m) = event { heard.update { $0.append(m.topic) } }
        }
        try client.subscribe("again/#", qos: .atLeastOnce)
        try client.start()
        #expect(await poll(timeout: 10) { client.connection == .connected })
        client.disconnect()
        #expect(client.connection == .idle)
        // Past the disconnect's 2 s for the DISCONNECT to go out, which a stop left set
        // would let a new start() run in.
        try await Task.sleep(for: .milliseconds(2500))
        try client.start()
        #expect(await poll(timeout: 10) { client.connection == .connected })
        // Its own subscription, restored on the new connection, hears it.
        #expect(await poll(timeout: 10) {
            _ = try? client.publish("again/x", [1], qos: .atLeastOnce)
            return heard.current.contains("again/x")
        })
        client.disconnect()
    }

    /// A start() that fails (libmosquitto rejects a keepalive under 5 s as invalid) leaves the
    /// client stopped: the next start() tries again and fails again, instead of doing nothing.
    @Test func aFailedStartCanBeRetried() throws {
        let client = try MQTTClient(
            MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: try freePort()), clientID: "hasty", keepalive: 1),
            queue: DispatchQueue(label: "hasty")) { _ in }
        #expect(throws: MQTTError.self) { try client.start() }
        #expect(client.connection == .idle)
        #expect(throws: MQTTError.self) { try client.start() }
    }

    /// The DISCONNECT closes the socket and the network thread's loop then fails (NO_CONN):
    /// that is the end asked for, reported as code 0 only, never as a lost connection.
    @Test func cleanDisconnectReportsNoFailure() async throws {
        let broker = try Broker()
        let events = Shared<[MQTTEvent]>([])
        let queue = DispatchQueue(label: "tidy")
        let client = try MQTTClient(MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "tidy"),
                                    queue: queue) { event in events.update { $0.append(event) } }
        let rounds = 60
        for _ in 0..<rounds {
            try client.start()
            #expect(await poll(timeout: 10) { client.connection == .connected })
            client.disconnect()
        }
        try await Task.sleep(for: .milliseconds(300))
        queue.sync {}
        let failures = events.current.filter { if case .disconnected(let code, _) = $0 { code != 0 } else { false } }
        #expect(failures.isEmpty, "\(failures)")
        #expect(events.current.filter { $0 == .connected }.count == rounds)
    }

    /// start() and disconnect() on two threads at once, round after round. Whichever comes
    /// first, once a last disconnect() has returned no socket of this process may still be
    /// connected to the broker: a disconnect() that landed while start() was opening the
    /// socket used to leave it open, with no network thread to close it, until the next start.
    @Test func racingStartAndDisconnectLeaveNoSocketOpen() async throws {
        let broker = try Broker()
        let client = try MQTTClient(MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "racer"),
                                    queue: DispatchQueue(label: "racer")) { _ in }
        var leaks: [Int] = []
        for round in 0..<150 {
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 { try? client.start() } else { client.disconnect() }
            }
            client.disconnect()
            if !socketsConnected(toPort: broker.port).isEmpty { leaks.append(round) }
        }
        #expect(leaks.isEmpty, "sockets left open after rounds \(leaks)")
        #expect(client.connection == .idle)
    }

    /// The client's last reference dropped inside its own `prepare`, on its network thread:
    /// it goes as it does anywhere else (no DISCONNECT, so the broker fires the will), instead
    /// of stopping the process on a precondition.
    @Test func releasedOnItsOwnNetworkThread() async throws {
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["node/status"])
        try await collector.ready()
        let holder = Shared<MQTTClient?>(nil)
        weak let released = try Self.clientDroppedByItsPrepare(broker: broker, holder: holder)
        #expect(await poll(timeout: 10) { holder.current?.connection == .connected })
        #expect(await collector.wait { $0.contains { $0.topic == "node/status" } })
        // The next message reaches `prepare`, which drops the only reference.
        try collector.client.publish("drop/now", [1], qos: .atLeastOnce)
        #expect(await poll(timeout: 10) { released == nil })
        #expect(await collector.wait { $0.filter { $0.topic == "node/status" }.count == 2 })
        #expect(collector.messages(on: "node/status").map { String(decoding: $0.payload, as: UTF8.self) } == ["online", "offline"])
    }

    /// A connected client whose only reference is in `holder`, which its `prepare` empties.
    private static func clientDroppedByItsPrepare(broker: Broker, holder: Shared<MQTTClient?>) throws -> MQTTClient? {
        var options = MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "self-releasing")
        options.will = Will(topic: "node/status", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
        let client = try MQTTClient(options, queue: DispatchQueue(label: "self-releasing"), prepare: { topic, _ in
            guard topic == "drop/now" else { return nil }
            var taken: MQTTClient?
            holder.update { swap(&taken, &$0) }
            _ = taken  // the last reference goes here, on the network thread
            return nil
        }) { _ in }
        holder.update { $0 = client }
        try client.subscribe("drop/#", qos: .atLeastOnce)
        try client.start()
        try client.publish("node/status", Array("online".utf8), qos: .atLeastOnce, retain: true)
        return client
    }

    @Test func resubscribesAfterBrokerRestart() async throws {
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["r/#"])
        try await collector.ready()
        broker.stop()
        #expect(await poll(timeout: 5) { collector.client.connection != .connected })
        try broker.start()
        // The fresh broker has no sessions: only a restored subscription can hear this.
        try await collector.ready(timeout: 20)
        let publisher = try MQTTClient(MQTTOptions(broker: try BrokerURL(parsing: broker.url), clientID: "pub2"),
                                       queue: DispatchQueue(label: "pub2")) { _ in }
        try publisher.start()
        #expect(await poll(timeout: 10) { publisher.connection == .connected })
        try publisher.publish("r/x", Array("after".utf8), qos: .atLeastOnce)
        #expect(await collector.wait { !$0.filter { $0.topic == "r/x" }.isEmpty })
        #expect(collector.eventLog.filter { $0 == .connected }.count == 2)
    }

    @Test func startsBeforeTheBrokerAndConnectsWhenItComes() async throws {
        let port = try freePort()
        let events = Shared<[MQTTEvent]>([])
        let client = try MQTTClient(
            MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: port), clientID: "early", reconnectDelay: 1...2),
            queue: DispatchQueue(label: "early")) { event in events.update { $0.append(event) } }
        try client.start()
        try await Task.sleep(for: .milliseconds(300))
        #expect(client.connection == .connecting)
        // MOSQ_ERR_ERRNO (14) with errno's text (strerror_r), as the failed connection left it.
        #expect(await poll(timeout: 5) { !events.current.isEmpty })
        #expect(events.current.first == .disconnected(code: 14, reason: "Connection refused"))
        #expect(throws: MQTTError.self) { try client.publish("x", [1], qos: .atMostOnce) }
    }
}

/// The inodes of this process's TCP sockets connected (or connecting) to 127.0.0.1:`port`.
/// Sockets closed by this process (TIME_WAIT and the like) are owned by no file descriptor.
func socketsConnected(toPort port: Int) -> [String] {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    let owned = Set(fds.compactMap { fd -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
              target.hasPrefix("socket:[") else { return nil }
        return String(target.dropFirst(8).dropLast())
    })
    let rows = ["/proc/self/net/tcp", "/proc/self/net/tcp6"].flatMap { path in
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
    }
    return rows.compactMap { row in
        let fields = row.split(separator: " ")
        guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
              remotePort == port else { return nil }
        let inode = String(fields[9])
        return owned.contains(inode) ? inode : nil
    }
}
