import Foundation
import Testing

/// The reference site with an `mqtt` section for the TLS broker: the aggregator's broker,
/// user, password file and certificates come from the site file (docs/protocol.md#site-file).
private func tlsSite(_ broker: TLSBroker) throws -> URL {
    let user = TLSBroker.aggregatorUser
    let site = try String(contentsOf: ReferenceFeed.site, encoding: .utf8) + """

        mqtt:
          host: 127.0.0.1
          port: \(broker.port)
          username: \(user)
          password_file: \(broker.passwordFile(user))
          tls: { ca: \(broker.ca), cert: \(broker.certificate(user)), key: \(broker.key(user)) }
        """
    let file = broker.directory.appendingPathComponent("site.yaml")
    try site.write(to: file, atomically: true, encoding: .utf8)
    return file
}

@Test(.timeLimit(.minutes(2)))
func edgeAndAggregatorConnectOverTLSWithTheirOwnCredentials() async throws {
    let broker = try TLSBroker()
    let observer = try TLSClient(try broker.options(user: TLSBroker.aggregatorUser, clientID: "observer"),
                                 filters: ["whereabouts/nodes/#", "whereabouts/aggregator/status"])
    #expect(await observer.ready(probe: "whereabouts/devices/probe/room"), "\(broker.log)")

    let httpPort = try freePort()
    let aggregator = try Daemon(executable("whereabouts-aggregator"),
                                ["--site", try tlsSite(broker).path, "--db", "none", "--http", "127.0.0.1:\(httpPort)"],
                                log: broker.directory.appendingPathComponent("aggregator.log"))
    #expect(await poll(timeout: 15) { observer.messages(on: "whereabouts/aggregator/status").last?.payload == Array("online".utf8) },
            "\(aggregator.log)\n\(broker.log)")

    let edge = try EdgeProcess([
        "--node", "sw", "--broker", broker.url, "--username", "sw", "--password-file", broker.passwordFile("sw"),
        "--tls-ca", broker.ca, "--tls-cert", broker.certificate("sw"), "--tls-key", broker.key("sw"),
        "--replay", fixtures.appendingPathComponent("horizon74_btsnoop_hci.log").path, "--speed", "0", "--retime", "--qos", "1",
    ])
    #expect(await edge.exitStatus(timeout: 60) == 0, "\(edge.stderr)\n\(broker.log)")
    let batches = observer.messages(on: "whereabouts/nodes/sw/readings")
    #expect(!batches.isEmpty, "no readings from the edge over TLS: \(edge.stderr)")
    #expect(observer.messages(on: "whereabouts/nodes/sw/status").map { String(decoding: $0.payload, as: UTF8.self) }.contains("online"))

    // The aggregator took them in: its counter for the node moved.
    var accepted = false
    for _ in 0..<50 where !accepted {
        let text = await httpGet("http://127.0.0.1:\(httpPort)/metrics").map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        accepted = text.split(separator: "\n").contains { $0.hasPrefix(#"whereabouts_readings_total{node="sw"}"#) && !$0.hasSuffix(" 0") }
        if !accepted { try await Task.sleep(for: .milliseconds(200)) }
    }
    #expect(accepted, "\(aggregator.log)")
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

@Test(.timeLimit(.minutes(1)))
func aNodeMayPublishOnlyUnderItsOwnTopic() async throws {
    let broker = try TLSBroker()
    let observer = try TLSClient(try broker.options(user: TLSBroker.aggregatorUser, clientID: "observer"),
                                 filters: ["whereabouts/#", "homeassistant/#"])
    #expect(await observer.ready(probe: "whereabouts/devices/probe/room"), "\(broker.log)")
    let node = try TLSClient(try broker.options(user: "sw", clientID: "whereabouts-edge-sw"), filters: [])
    #expect(await node.connected(), "\(broker.log)")

    let forbidden = ["whereabouts/nodes/se/readings", "whereabouts/nodes/se/status", "whereabouts/devices/mac:aa/room",
                     "whereabouts/zones/west/events", "whereabouts/aggregator/status", "homeassistant/sensor/x/config"]
    for topic in forbidden { try node.client.publish(topic, Array("forged".utf8), qos: .atLeastOnce) }
    // Its own topic last: once this arrives, anything allowed before it would have too.
    try node.client.publish("whereabouts/nodes/sw/status", Array("online".utf8), qos: .atLeastOnce)
    #expect(await poll(timeout: 10) { !observer.messages(on: "whereabouts/nodes/sw/status").isEmpty }, "\(broker.log)")
    let leaked = observer.messages.filter { forbidden.contains($0.topic) }.map(\.topic)
    #expect(leaked.isEmpty, "the broker let node sw publish on \(leaked)")
    #expect(broker.log.contains("Denied PUBLISH from whereabouts-edge-sw"), "\(broker.log)")

    // The aggregator's user may publish what nodes may not.
    try observer.client.publish("whereabouts/zones/west/events", Array("{}".utf8), qos: .atLeastOnce)
    #expect(await poll(timeout: 10) { !observer.messages(on: "whereabouts/zones/west/events").isEmpty })
}

@Test(.timeLimit(.minutes(1)))
func clientsWithoutCertificateOrPasswordAreRefused() throws {
    let broker = try TLSBroker()
    let password = try String(contentsOfFile: broker.passwordFile("sw"), encoding: .utf8)
    let tls = ["--cafile", broker.ca]
    let certificate = ["--cert", broker.certificate("sw"), "--key", broker.key("sw")]
    let login = ["-u", "sw", "-P", password]

    // The node with everything it should have gets in: the refusals below are the ACL's
    // and TLS's doing, not a broken setup.
    let allowed = try broker.publishWithCLI(tls + certificate + login)
    #expect(allowed.status == 0, "\(allowed)\n\(broker.log)")

    let refusals: [(what: String, arguments: [String])] = [
        ("no credentials at all", tls + certificate),
        ("a wrong password", tls + certificate + ["-u", "sw", "-P", "not-the-password"]),
        ("another user's password", tls + certificate + ["-u", "se", "-P", password]),
        ("no client certificate", tls + login),
        ("plain text, no TLS", login),
    ]
    for refusal in refusals {
        let result = try broker.publishWithCLI(refusal.arguments)
        #expect(result.status != 0, "\(refusal.what) was let in: \(result)")
    }
    #expect(broker.log.contains("not authorised") || broker.log.contains("not authorized"), "\(broker.log)")
}
