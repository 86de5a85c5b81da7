import Foundation
import Testing

/// `whereabouts check-site` checks the site's `mqtt` section as the aggregator does (one
/// mapping, `BrokerSettings(site:broker:)`): a TLS pair the aggregator refuses passed with
/// "0 error(s)".
@Suite(.timeLimit(.minutes(1)))
struct CheckSiteBrokerSettingsTests {
    /// The reference site with `mqtt` appended, its `tls` entry on the returned line.
    static func site(_ tls: String, name: String) throws -> (path: String, tlsLine: Int) {
        let reference = try String(contentsOf: packageRoot.appendingPathComponent("tools/sites/reference.yaml"), encoding: .utf8)
        let text = reference + (reference.hasSuffix("\n") ? "" : "\n") + "mqtt:\n  host: 127.0.0.1\n  tls: \(tls)\n"
        // Named apart: the arguments of one test run at once.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).yaml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return (url.path, text.split(separator: "\n", omittingEmptySubsequences: false).count - 1)
    }

    @Test(arguments: [("{ ca: /etc/hostname, cert: /etc/hostname }", "tls.cert and tls.key: give both or neither"),
                      ("{ cert: /etc/hostname, key: /etc/hostname }", "tls.cert and tls.key: need tls.ca too")])
    func checkSiteRefusesWhatTheAggregatorRefuses(tls: String, message: String) async throws {
        let (path, line) = try Self.site(tls, name: "check-site-tls")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let check = try EdgeProcess(["check-site", path], tool: "whereabouts")
        #expect(await check.exitStatus() == 1, "\(check.stdout)")
        #expect(check.stdout.contains("\(path):\(line): mqtt.tls: \(message)"), "\(check.stdout)")
        #expect(check.stdout.contains("1 error(s)"), "\(check.stdout)")
        let aggregator = try EdgeProcess(["--site", path, "--db", "none", "--http", "none"], tool: "whereabouts-aggregator")
        #expect(await aggregator.exitStatus() == 1, "\(aggregator.stderr)")
        #expect(aggregator.stderr.contains("\(path):\(line): mqtt.tls: \(message)"), "\(aggregator.stderr)")
    }

    @Test func aWholeTLSSectionPasses() async throws {
        let (path, _) = try Self.site("{ ca: /etc/hostname, cert: /etc/hostname, key: /etc/hostname }", name: "check-site-tls-ok")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let check = try EdgeProcess(["check-site", path], tool: "whereabouts")
        #expect(await check.exitStatus() == 0, "\(check.stdout)")
        #expect(check.stdout.contains("; 0 error(s)"), "\(check.stdout)")
    }
}
