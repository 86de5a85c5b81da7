import Foundation
import MQTT
import Testing
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// A device id full of MQTT wildcards and separators (anyone in radio range can advertise a
/// name or an address that ends up in an id): everything the aggregator publishes about it
/// stays under its own escaped `devices/<id>/` level, and nothing is published elsewhere.
@Test(.timeLimit(.minutes(2)))
func anIdWithWildcardsPublishesOnlyUnderItsOwnEscapedTopic() async throws {
    let dir = try faultDirectory("spoof-id")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["#"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir, extra: ["--no-discovery"])
    #expect(await collector.wait(timeout: 20) { $0.contains { $0.topic == "whereabouts/aggregator/status" } }, "\(aggregator.log)")

    let evil = "mac:x/+/#/../zones/west/events"
    for seq in 1...12 {
        let t = Date().timeIntervalSince1970
        for node in Reference.nodes {
            try collector.client.publish(Reference.readingsTopic(node.name),
                                         Reference.batch(node.name, seq: UInt64(seq), t: t, at: Reference.west, device: evil), qos: .atLeastOnce)
        }
        try await Task.sleep(for: .milliseconds(250))
    }
    let own = "whereabouts/devices/mac:x%2F%2B%2F%23%2F..%2Fzones%2Fwest%2Fevents/"
    #expect(await collector.wait { $0.contains { $0.topic == own + "state" } }, "\(collector.messages.map(\.topic))\n\(aggregator.log)")
    await aggregator.stop()

    // The aggregator's publications: everything but what the test itself sent.
    let published = collector.messages.filter { !$0.topic.hasPrefix("whereabouts/nodes/") && !$0.topic.hasPrefix("probe/") }
    let aboutEvil = published.filter { payloadText($0).contains("mac:x/") || $0.topic.contains("mac:x") }
    #expect(Set(aboutEvil.map(\.topic)).isSubset(of: [own + "room", own + "state", "whereabouts/zones/west/events",
                                                     "whereabouts/zones/west/occupancy"]), "\(aboutEvil.map(\.topic))")
    #expect(aboutEvil.contains { $0.topic == own + "room" && payloadText($0) == "west" })
    let state = try #require(aboutEvil.last { $0.topic == own + "state" }.map(jsonObject))
    #expect(state["id"] as? String == evil)
    // The west room's events are real ones, about the device, not something the id forged.
    for event in published.filter({ $0.topic == "whereabouts/zones/west/events" }).map(jsonObject) {
        #expect(event["device"] as? String == evil && event["zone"] as? String == "west")
    }
    let topics = Set(published.map(\.topic))
    #expect(topics.allSatisfy { !$0.contains("+") && !$0.contains("#") }, "\(topics)")
}

/// Anyone on the broker can publish on a node's status or telemetry topic: a name the site
/// does not know is refused and counted, and adds no metric series and no online node.
@Test(.timeLimit(.minutes(1)))
func aStatusFromANodeTheSiteDoesNotNameIsRefused() async throws {
    let dir = try faultDirectory("spoof-node")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/aggregator/status"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    #expect(await collector.wait(timeout: 20) { $0.contains { payloadText($0) == "online" } }, "\(aggregator.log)")
    for k in 0..<50 {
        try collector.client.publish("whereabouts/nodes/mallory\(k)/status", Array("online".utf8), qos: .atLeastOnce)
        try collector.client.publish("whereabouts/nodes/mallory\(k)/telemetry", Array(#"{"adverts":1}"#.utf8), qos: .atLeastOnce)
    }
    try collector.client.publish("whereabouts/nodes/sw/status", Array("online".utf8), qos: .atLeastOnce)
    let m = await aggregator.waitForMetrics { $0["whereabouts_node_up{node=\"sw\"}"] == 1 }
    #expect(m?.rejected("unknown_node") == 100, "\(m?.description ?? aggregator.log)")
    #expect(m?["whereabouts_nodes_online"] == 1)
    #expect(m.map { !$0.description.contains("mallory") } == true)
    #expect(await aggregator.stop() == 0)
}

/// The aggregator over TLS: a broker whose certificate another CA signed is refused (the
/// certificate is verified, not just used to encrypt); the right CA connects. The password
/// reaches neither the log nor /metrics, and the start warns about a key file others can
/// read and about HTTP served beyond this host without a token.
@Test(.timeLimit(.minutes(2)))
func tlsVerifiesTheBrokerAndTheStartWarnsAboutExposedSecrets() async throws {
    let broker = try TLSBroker()
    let rogue = broker.directory.appendingPathComponent("rogue")
    let made = try runCommand(packageRoot.appendingPathComponent("deploy/make-certs.sh").path,
                              ["--dir", rogue.path, "--broker", "localhost,127.0.0.1", "sw"])
    try #require(made.status == 0, "\(made)")
    let user = TLSBroker.aggregatorUser
    let password = try String(contentsOfFile: broker.passwordFile(user), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: broker.key(user))

    func site(ca: String, name: String) throws -> URL {
        let text = try String(contentsOf: Reference.site, encoding: .utf8) + """

            mqtt:
              host: 127.0.0.1
              port: \(broker.port)
              username: \(user)
              password_file: \(broker.passwordFile(user))
              tls: { ca: \(ca), cert: \(broker.certificate(user)), key: \(broker.key(user)) }
            """
        let file = broker.directory.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        return file
    }
    func start(_ site: URL, name: String) throws -> Daemon {
        try Daemon(executable("whereabouts-aggregator"), ["--site", site.path, "--db", "none", "--http", "0.0.0.0:\(try freePort())"],
                   log: broker.directory.appendingPathComponent("\(name).log"))
    }

    // The handshake fails on the client's side: it does not know the CA (the broker logs
    // "unknown ca"). The aggregator says so and keeps retrying; it never connects.
    let fooled = try start(try site(ca: rogue.appendingPathComponent("ca.crt").path, name: "rogue.yaml"), name: "rogue")
    #expect(await poll(timeout: 15) { broker.log.contains("unknown ca") }, "\(broker.log)")
    try await Task.sleep(for: .seconds(1))
    #expect(!fooled.log.contains("connected to"), "\(fooled.log)")
    #expect(fooled.log.contains("certificate verify failed") && fooled.process.isRunning, "\(fooled.log)")
    _ = await fooled.stop()

    let honest = try start(try site(ca: broker.ca, name: "site.yaml"), name: "honest")
    #expect(await poll(timeout: 15) { honest.log.contains("connected to") }, "\(honest.log)\n\(broker.log)")
    #expect(honest.log.contains("warning: TLS key \(broker.key(user)) is open to every user (mode 644)"), "\(honest.log)")
    #expect(honest.log.contains("warning: HTTP on 0.0.0.0:"), "\(honest.log)")
    #expect(!honest.log.contains("site file"), "the site file is 0600: \(honest.log)")
    #expect(await honest.stop() == 0, "\(honest.log)")
    #expect(!password.isEmpty && !honest.log.contains(password) && !fooled.log.contains(password))
}
