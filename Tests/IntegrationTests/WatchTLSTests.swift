import Foundation
import MQTT
import Testing

// Audit, 2026-11-30: `whereabouts watch` had no CA, certificate, user or password options, so
// it could not reach the documented production broker (TLS on 8883, a client certificate and
// a user with a password). It now takes the edge's broker options.

@Test(.timeLimit(.minutes(2)))
func watchReachesTheProductionBrokerWithTheEdgesOptions() async throws {
    let broker = try TLSBroker()
    let user = TLSBroker.aggregatorUser
    // The aggregator's user may write results; it publishes a room (retained) and an event.
    let publisher = try TLSClient(try broker.options(user: user, clientID: "results"), filters: [])
    #expect(await publisher.connected(), "\(broker.log)")
    _ = try publisher.client.publish("whereabouts/devices/mac:aa:bb:cc:dd:ee:ff/room", Array("kitchen".utf8), qos: .atLeastOnce, retain: true)

    let watch = try EdgeProcess(["watch", "--broker", broker.url, "--tls-ca", broker.ca, "--tls-cert", broker.certificate(user),
                                 "--tls-key", broker.key(user), "--username", user, "--password-file", broker.passwordFile(user),
                                 "--for", "6", "--table-every", "0"], tool: "whereabouts")
    #expect(await poll(timeout: 10) { watch.stdout.contains("connected; waiting for events") }, "\(watch.stdout)\(watch.stderr)\(broker.log)")
    try await Task.sleep(for: .milliseconds(500))
    let event = #"{"type":"enter","device":"mac:aa:bb:cc:dd:ee:ff","zone":"kitchen","floor":"g","t":1764410000.25,"confidence":0.9}"#
    _ = try publisher.client.publish("whereabouts/zones/kitchen/events", Array(event.utf8), qos: .atLeastOnce)
    #expect(await watch.exitStatus(timeout: 20) == 0, "\(watch.stderr)")
    let lines = watch.stdout.split(separator: "\n")
    #expect(lines.contains { $0.contains("enter") && $0.contains("kitchen") && $0.contains("mac:aa:bb:cc:dd:ee:ff") }, "\(watch.stdout)")
    #expect(lines.contains { $0.contains("kitchen") && $0.hasSuffix("mac:aa:bb:cc:dd:ee:ff") && !$0.contains("enter") }, "\(watch.stdout)")
    #expect(!watch.stderr.contains(try String(contentsOfFile: broker.passwordFile(user), encoding: .utf8)))
}

/// Without --tls-ca the broker's certificate does not verify and watch says so (it never
/// claims to be connected).
@Test(.timeLimit(.minutes(2)))
func watchWithoutTheCAIsRefused() async throws {
    let broker = try TLSBroker()
    let user = TLSBroker.aggregatorUser
    let watch = try EdgeProcess(["watch", "--broker", broker.url, "--username", user, "--password-file", broker.passwordFile(user),
                                 "--for", "3", "--table-every", "0"], tool: "whereabouts")
    // Review of edgecli: a watch that never connected exited 0.
    #expect(await watch.exitStatus(timeout: 20) == 1, "\(watch.stderr)")
    #expect(watch.stderr.contains("never connected to \(broker.url)"), "\(watch.stderr)")
    #expect(!watch.stdout.contains("connected;"), "\(watch.stdout)")
    #expect(watch.stdout.contains("certificate verify failed"), "\(watch.stdout)")
}
