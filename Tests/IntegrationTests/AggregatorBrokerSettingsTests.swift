import Foundation
import Testing

/// The aggregator checks its site's broker settings as the edge and `watch` check theirs: TLS
/// files with a plaintext `--broker` were ignored (the password then went in clear). It does
/// not start, names the site file, and exits 1 as for any other error in it.
@Test(.timeLimit(.minutes(1)))
func theAggregatorRefusesTLSFilesWithAPlaintextBroker() async throws {
    let reference = try String(contentsOf: packageRoot.appendingPathComponent("tools/sites/reference.yaml"), encoding: .utf8)
    let site = FileManager.default.temporaryDirectory.appendingPathComponent("agg-tls-\(getpid()).yaml")
    try (reference + "\nmqtt: { host: 127.0.0.1, port: 1, tls: { ca: /etc/hostname } }\n").write(to: site, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: site) }
    let run = try EdgeProcess(["--site", site.path, "--broker", "mqtt://127.0.0.1:1", "--db", "none", "--http", "none"],
                              tool: "whereabouts-aggregator")
    #expect(await run.exitStatus() == 1, "\(run.stderr)")
    #expect(run.stderr.contains("\(site.path): mqtt: tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not mqtt://127.0.0.1:1"),
            "\(run.stderr)")
}
