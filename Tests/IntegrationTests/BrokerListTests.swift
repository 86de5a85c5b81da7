import Dispatch
import Foundation
import MQTT
import Testing

/// `--broker URL[,URL…]`: a cluster's nodes, tried in turn at the first connection and at
/// every reconnect, against real mosquittos (two unbridged brokers stand for two nodes: which
/// one a client is on is seen by where its messages land).
@Suite("Broker lists: tried in turn")
struct BrokerListTests {
    @Test func listsParseAndBadOnesSayWhy() throws {
        let two = try BrokerURL.list(parsing: "mqtt://a:1883, mqtt://b:1884")
        #expect(two == [BrokerURL(host: "a", port: 1883), BrokerURL(host: "b", port: 1884)])
        #expect(try BrokerURL.list(parsing: "mqtts://only") == [BrokerURL(host: "only", tls: true)])
        #expect(BrokerURL.listDescription(two) == "mqtt://a:1883,mqtt://b:1884")
        let cases: [(String, String)] = [
            ("mqtt://a,,mqtt://b", "entry 2 of 'mqtt://a,,mqtt://b' is empty"),
            ("mqtt://a,", "entry 2 of 'mqtt://a,' is empty"),
            ("mqtt://a:1883,mqtt://a", "mqtt://a:1883 is given twice"),
            ("mqtt://a,mqtts://b", "mixes mqtt:// and mqtts://"),
            ("mqtt://a,tcp://b", "'tcp://b' must start with mqtt:// or mqtts://"),
        ]
        for (text, message) in cases {
            let error = #expect(throws: MQTTError.self, "\(text)") { try BrokerURL.list(parsing: text) }
            #expect(error?.message.contains(message) == true, "\(text): \(error?.message ?? "")")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aClientMovesToTheNextBrokerWhenItsOwnDiesAndBack() async throws {
        let a = try Broker(), b = try Broker()
        defer { a.stop(); b.stop() }
        let onA = try Collector(broker: a, filters: ["t/#"]), onB = try Collector(broker: b, filters: ["t/#"])
        try await onA.ready()
        try await onB.ready()
        var options = MQTTOptions(broker: try BrokerURL(parsing: a.url), clientID: "list-\(getpid())", reconnectDelay: 1...2)
        options.brokers = try BrokerURL.list(parsing: "\(a.url),\(b.url)")
        let client = try MQTTClient(options, queue: DispatchQueue(label: "list")) { _ in }
        try client.start()
        #expect(await poll(timeout: 10) { client.connection == .connected })
        #expect(client.currentBroker.port == a.port)
        try client.publish("t/one", Array("a".utf8), qos: .atLeastOnce)
        #expect(await onA.wait { $0.contains { $0.topic == "t/one" } })

        a.stop()
        #expect(await poll(timeout: 10) { client.connection == .connected && client.currentBroker.port == b.port })
        try client.publish("t/two", Array("b".utf8), qos: .atLeastOnce)
        #expect(await onB.wait { $0.contains { $0.topic == "t/two" } })

        try a.start()
        b.stop()
        #expect(await poll(timeout: 10) { client.connection == .connected && client.currentBroker.port == a.port })
        let again = try Collector(broker: a, filters: ["t/#"])
        try await again.ready()
        try client.publish("t/three", Array("a".utf8), qos: .atLeastOnce)
        #expect(await again.wait { $0.contains { $0.topic == "t/three" } })
        client.disconnect()
    }

    /// The first node is down at start: the client goes on to the second at once (no backoff
    /// within a round), and the edge, a real process, publishes there.
    @Test(.timeLimit(.minutes(1)))
    func aDeadFirstNodeIsSkippedAtStart() async throws {
        let b = try Broker()
        defer { b.stop() }
        let dead = try freePort()
        let status = try Collector(broker: b, filters: ["whereabouts/nodes/+/status"])
        try await status.ready()
        let edge = try EdgeProcess(["--node", "hall", "--broker", "mqtt://127.0.0.1:\(dead),\(b.url)", "--stdin"])
        #expect(await status.wait { $0.contains { $0.topic == "whereabouts/nodes/hall/status" && payloadText($0) == "online" } },
                "\(edge.stderr)")
        #expect(edge.stderr.contains("connected to \(b.url)"), "\(edge.stderr)")
        edge.closeInput()
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
    }

    /// The aggregator, a real process, with two nodes: its broker stops, it is `online` on the
    /// other within seconds and goes on following the device there.
    @Test(.timeLimit(.minutes(2)))
    func anAggregatorFollowsTheLiveNode() async throws {
        let dir = try faultDirectory("broker-list")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Broker(), b = try Broker()
        defer { a.stop(); b.stop() }
        let statusOnB = try Collector(broker: b, filters: ["whereabouts/aggregator/status", "whereabouts/devices/+/room"])
        try await statusOnB.ready()
        let aggregator = try AggregatorProcess(broker: a, db: nil, directory: dir, brokers: "\(a.url),\(b.url)")
        #expect(await aggregator.waitForMetrics { _ in true } != nil, "\(aggregator.log)")
        a.stop()
        #expect(await statusOnB.wait(timeout: 15) { $0.contains { $0.topic == "whereabouts/aggregator/status" && payloadText($0) == "online" } },
                "\(aggregator.log)")
        let traffic = try Traffic(broker: b)
        let room = "whereabouts/devices/\(Reference.keys)/room"
        #expect(await statusOnB.wait(timeout: 20) { $0.contains { $0.topic == room && payloadText($0) == "west" } }, "\(aggregator.log)")
        #expect(aggregator.log.contains("connected to \(b.url)"), "\(aggregator.log)")
        await traffic.stop()
        #expect(await aggregator.stop() == 0, "\(aggregator.log)")
    }

    @Test func badListsAreUsageErrors() throws {
        let dir = try faultDirectory("broker-list-usage")
        defer { try? FileManager.default.removeItem(at: dir) }
        let aggregator = try runCommand(executable("whereabouts-aggregator").path,
                                        ["--site", Reference.site.path, "--broker", "mqtt://a,mqtt://a", "--db", "none", "--http", "none"])
        #expect(aggregator.status == 64, "\(aggregator)")
        #expect(aggregator.errors.contains("--broker: mqtt://a:1883 is given twice"), "\(aggregator)")
        let edge = try runCommand(executable("whereabouts-edge").path,
                                  ["--node", "n", "--broker", "mqtt://a,,mqtt://b", "--stdin", "--check-config"])
        #expect(edge.status != 0, "\(edge)")
        #expect(edge.errors.contains("entry 2 of 'mqtt://a,,mqtt://b' is empty"), "\(edge)")
    }
}
