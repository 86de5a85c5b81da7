import Foundation
import Testing

/// The aggregator checks its site's broker settings as the edge and `watch` check theirs: TLS
/// files with a plaintext `--broker` were ignored (the password then went in clear). It does
/// not start, and exits 1 as for any other error in its site; the message blames the flag, as
/// the flag is what does not go with the site's `tls` (without it the site is mqtts://).
@Test(.timeLimit(.minutes(1)))
func theAggregatorRefusesTLSFilesWithAPlaintextBroker() async throws {
    let reference = try String(contentsOf: packageRoot.appendingPathComponent("tools/sites/reference.yaml"), encoding: .utf8)
    let site = FileManager.default.temporaryDirectory.appendingPathComponent("agg-tls-\(getpid()).yaml")
    try (reference + "\nmqtt: { host: 127.0.0.1, port: 1, tls: { ca: /etc/hostname } }\n").write(to: site, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: site) }
    let run = try EdgeProcess(["--site", site.path, "--broker", "mqtt://127.0.0.1:1", "--db", "none", "--http", "none"],
                              tool: "whereabouts-aggregator")
    #expect(await run.exitStatus() == 1, "\(run.stderr)")
    let line = reference.split(separator: "\n", omittingEmptySubsequences: false).count + 1
    #expect(run.stderr.contains("--broker mqtt://127.0.0.1:1: tls.ca, tls.cert, tls.key: only for an mqtts:// broker, not mqtt://127.0.0.1:1 "
                                + "(the site's mqtt.tls at \(site.path):\(line))"), "\(run.stderr)")
    #expect(run.stderr.contains("--broker does not go together with the site file's mqtt section"), "\(run.stderr)")
    #expect(!run.stderr.contains("the site file's mqtt section does not go together"), "\(run.stderr)")
}
