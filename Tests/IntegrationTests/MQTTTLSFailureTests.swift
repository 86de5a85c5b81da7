import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

// An aggregator told to use mqtts:// whose TLS handshake fails: a plain listener on the port,
// or a broker certificate from another CA. It must say why, keep retrying with backoff on one
// thread, connect once the broker is right, and stop cleanly on SIGTERM meanwhile.
@Suite("MQTT over TLS when the handshake fails", .serialized)
struct MQTTTLSFailureTests {
    @Test func aPlainListenerIsReportedAndRetriedUntilTheBrokerSpeaksTLS() async throws {
        let dir = try faultDirectory("tls-plain")
        defer { try? FileManager.default.removeItem(at: dir) }
        let certificates = try makeCertificates(in: dir, "ca")
        let plain = try Broker()
        let aggregator = try startAggregator(in: dir, port: plain.port, ca: certificates)
        let failure = "no connection to mqtts://127.0.0.1:\(plain.port): A TLS error occurred (OpenSSL"
        #expect(await poll(timeout: 10) { aggregator.log.contains(failure) }, "\(aggregator.log)")
        let threads = threadCount(aggregator)
        // Attempts go on, 1 s and then 2 s apart (the plain broker logs each, after the harness's
        // own probe), on the same threads, reported once.
        #expect(await poll(timeout: 10) { plain.log.components(separatedBy: "New connection from").count > 4 }, "\(plain.log)")
        #expect(threadCount(aggregator) == threads)
        #expect(aggregator.log.components(separatedBy: failure).count == 2, "\(aggregator.log)")
        #expect(aggregator.process.isRunning)

        // The broker is put right on the same port: the next attempt connects.
        plain.stop()
        let broker = try await startTLSBroker(in: dir, port: plain.port, certificates: certificates)
        #expect(await poll(timeout: 40) { aggregator.log.contains("connected to mqtts://127.0.0.1:\(plain.port)") },
                "\(aggregator.log)\n\(broker.log)")
        #expect(await aggregator.stop(timeout: 10) == 0, "\(aggregator.log)")
        _ = await broker.stop()
    }

    @Test func aBrokerCertificateFromAnotherCAIsReportedAndSIGTERMStillStops() async throws {
        let dir = try faultDirectory("tls-ca")
        defer { try? FileManager.default.removeItem(at: dir) }
        let brokerCertificates = try makeCertificates(in: dir, "broker-ca")
        let otherCertificates = try makeCertificates(in: dir, "other-ca")
        let port = try freePort()
        let broker = try await startTLSBroker(in: dir, port: port, certificates: brokerCertificates)
        let aggregator = try startAggregator(in: dir, port: port, ca: otherCertificates)
        // OpenSSL's own reason, not just "a TLS error".
        #expect(await poll(timeout: 10) { aggregator.log.contains("certificate verify failed") }, "\(aggregator.log)")
        let threads = threadCount(aggregator)
        try await Task.sleep(for: .seconds(4))
        #expect(aggregator.process.isRunning, "\(aggregator.log)")
        #expect(threadCount(aggregator) == threads)
        // SIGTERM while it waits to retry: a prompt, clean exit.
        let asked = Date()
        #expect(await aggregator.stop(timeout: 10) == 0, "\(aggregator.log)")
        #expect(Date().timeIntervalSince(asked) < 5)
        #expect(aggregator.log.contains("stopped"))
        _ = await broker.stop()
    }
}

/// A CA and a broker certificate for 127.0.0.1 it signed, from the shipped script.
private func makeCertificates(in dir: URL, _ name: String) throws -> URL {
    let certificates = dir.appendingPathComponent(name)
    let made = try runCommand(packageRoot.appendingPathComponent("deploy/make-certs.sh").path,
                              ["--dir", certificates.path, "--broker", "localhost,127.0.0.1"])
    guard made.status == 0 else { throw HarnessError("make-certs.sh: \(made)") }
    // As root, mosquitto drops to its own user, which must read the broker's key.
    if getuid() == 0 { try runCommand("/bin/chown", ["-R", "mosquitto", certificates.path]) }
    return certificates
}

/// mosquitto with one TLS listener on `port`: the broker certificate of `certificates`, anonymous clients.
private func startTLSBroker(in dir: URL, port: Int, certificates: URL) async throws -> Daemon {
    let config = dir.appendingPathComponent("tls-\(port).conf")
    try """
        listener \(port) 127.0.0.1
        cafile \(certificates.path)/ca.crt
        certfile \(certificates.path)/broker.crt
        keyfile \(certificates.path)/broker.key
        allow_anonymous true
        persistence false
        """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(URL(fileURLWithPath: "/usr/sbin/mosquitto"), ["-c", config.path],
                            log: dir.appendingPathComponent("tls-broker-\(port).log"))
    guard await poll(timeout: 10, { canConnect(port: port) }) else { throw HarnessError("TLS mosquitto did not start: \(daemon.log)") }
    return daemon
}

/// The aggregator on the reference site, its broker `mqtts://127.0.0.1:<port>` trusting `ca`'s CA.
private func startAggregator(in dir: URL, port: Int, ca: URL) throws -> Daemon {
    let site = dir.appendingPathComponent("site-\(ca.lastPathComponent).yaml")
    let reference = try String(contentsOf: Reference.site, encoding: .utf8)
    try (reference + "\nmqtt: { host: 127.0.0.1, port: \(port), tls: { ca: \(ca.path)/ca.crt } }\n")
        .write(to: site, atomically: true, encoding: .utf8)
    return try Daemon(executable("whereabouts-aggregator"), ["--site", site.path, "--db", "none", "--http", "none"],
                      log: dir.appendingPathComponent("aggregator-\(ca.lastPathComponent).log"))
}

private func threadCount(_ daemon: Daemon) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.processIdentifier)/task").count) ?? -1
}
