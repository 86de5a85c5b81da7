import Foundation
import MQTT
import Synchronization
import Testing
import YAML

private let hospital = packageRoot.appendingPathComponent("deploy/hospital")

/// The files of deploy/hospital run as shipped, only hosts, ports and paths adapted.
@Suite("deploy/hospital")
struct HospitalDeployFilesTests {
    /// The broker node's config, three copies with the three hosts made loopback ports, forms
    /// one cluster: a retained message published on the first node is read on the third.
    @Test(.timeLimit(.minutes(1)))
    func theNatsConfigFormsAThreeNodeClusterThatKeepsRetainedMessages() async throws {
        try NatsCluster.ensureInstalled()
        let dir = try opsDirectory("nats")
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try repositoryText("deploy/hospital/nats-server.conf")
        let ports = try (0..<3).map { _ in (client: try freePort(), route: try freePort(), mqtt: try freePort()) }
        var processes: [Process] = []
        defer { for p in processes where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        for (i, port) in ports.enumerated() {
            var replacements = [("0.0.0.0:4222", "127.0.0.1:\(port.client)"), ("0.0.0.0:6222", "127.0.0.1:\(port.route)"),
                                ("0.0.0.0:1883", "127.0.0.1:\(port.mqtt)"), ("127.0.0.1:8222", "127.0.0.1:\(try freePort())"),
                                ("/var/lib/nats/jetstream", dir.appendingPathComponent("js\(i)").path)]
            for (j, other) in ports.enumerated() { replacements.append(("nats-\(j + 1).example.lan:6222", "127.0.0.1:\(other.route)")) }
            let file = dir.appendingPathComponent("n\(i).conf")
            try adapted(text, replacements, file: "deploy/hospital/nats-server.conf").write(to: file, atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: NatsCluster.binary)
            p.arguments = ["-c", file.path, "-l", dir.appendingPathComponent("n\(i).log").path]
            p.environment = ["WHEREABOUTS_NATS_NAME": "nats-\(i + 1)"]
            try runUnmasked(p)
            processes.append(p)
        }
        #expect(await poll(timeout: 20) { ports.allSatisfy { canConnect(port: $0.mqtt) } })
        let publisher = try MQTTClient(MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: ports[0].mqtt), clientID: "pub"),
                                       queue: DispatchQueue(label: "pub")) { _ in }
        try publisher.start()
        #expect(await poll(timeout: 20) { publisher.connection == .connected })
        try publisher.publish("whereabouts/devices/d/room", Array("ward_3".utf8), qos: .atLeastOnce, retain: true)
        let heard = Mutex<[String]>([])
        let reader = try MQTTClient(MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: ports[2].mqtt), clientID: "sub"),
                                    queue: DispatchQueue(label: "sub")) { event in
            if case .message(let m) = event, m.retain { heard.withLock { $0.append(String(decoding: m.payload, as: UTF8.self)) } }
        }
        // Retried: the first subscription may come before the retained message is replicated.
        #expect(await poll(timeout: 20) {
            if heard.withLock({ $0.contains("ward_3") }) { return true }
            try? reader.start()
            try? reader.subscribe("whereabouts/devices/+/room", qos: .atLeastOnce)
            Thread.sleep(forTimeInterval: 0.5)
            return heard.withLock { $0.contains("ward_3") }
        }, "\((try? String(contentsOf: dir.appendingPathComponent("n2.log"), encoding: .utf8)) ?? "")")
        publisher.disconnect()
        reader.disconnect()
    }

    @Test(.enabled(if: prometheusInstalled, "needs promtool from Debian's prometheus package"))
    func theHospitalRulesAndScrapeConfigAreValid() throws {
        let rules = try runCommand("/usr/bin/promtool", ["check", "rules", "prometheus-rules.yml"], in: hospital)
        #expect(rules.status == 0 && rules.output.contains("SUCCESS"), "\(rules)")
        let config = try YAML.parse(contentsOf: hospital.appendingPathComponent("prometheus.yml").path)
        let jobs = try #require(config["scrape_configs"]?.items)
        let shards = try #require(jobs.first { $0["job_name"]?.text == "whereabouts-shards" })
        let groups = shards["static_configs"]?.items ?? []
        #expect(groups.compactMap { $0["labels"]?["shard"]?.text } == ["0/2", "1/2"])
        #expect(groups.allSatisfy { ($0["targets"]?.items?.count ?? 0) == 2 }, "each shard scraped on both of its hosts")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "needs systemd-analyze"))
    func theShardUnitVerifiesAndRestartsALeaseLoser() throws {
        let dir = try opsDirectory("shard-unit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let unit = try adapted(try repositoryText("deploy/hospital/whereabouts-aggregator@.service"),
                               [("/usr/local/bin/whereabouts-aggregator", executable("whereabouts-aggregator").path)],
                               file: "deploy/hospital/whereabouts-aggregator@.service")
        let file = dir.appendingPathComponent("whereabouts-aggregator@0-2.service")
        try unit.write(to: file, atomically: true, encoding: .utf8)
        let verify = try runCommand("/usr/bin/systemd-analyze", ["verify", file.path])
        #expect(verify.status == 0 && verify.output.isEmpty && verify.errors.isEmpty, "\(verify)")
        // An active that lost its lease exits 1: it must come back, as a standby.
        #expect(unit.contains("\nRestart=always\n") && unit.contains("\nRestartPreventExitStatus=64\n"))
        #expect(unit.contains("--config /etc/whereabouts/shard-%i.yaml"))
    }

    /// The shard file's keys are the aggregator's options, and it parses as the aggregator reads
    /// it: `--check`-free, so through the help's option list and the broker list's own parser.
    @Test func theExampleShardFileUsesOnlyRealOptions() throws {
        let help = try runCommand(executable("whereabouts-aggregator").path, ["--help"])
        let config = try YAML.parse(contentsOf: hospital.appendingPathComponent("shard.example.yaml").path)
        let entries = try #require(config.entries)
        for entry in entries {
            #expect(help.output.contains("--\(entry.key) "), "shard.example.yaml: \(entry.key) is not an option of whereabouts-aggregator")
        }
        #expect(config["standby"]?.text == "true" && config["shard"]?.text == "0/2")
        #expect((try? BrokerURL.list(parsing: config["broker"]?.text ?? ""))?.count == 3)
        #expect(config["db"]?.text?.hasPrefix("postgresql://") == true)
    }

    @Test func theComposeFileStartsEveryPartAndMountsFilesThatExist() throws {
        let compose = try YAML.parse(contentsOf: hospital.appendingPathComponent("compose.yaml").path)
        let services = try #require(compose["services"]?.entries)
        #expect(services.map(\.key) == ["nats-1", "nats-2", "nats-3", "postgres", "shard-0-a", "shard-0-b", "shard-1-a", "shard-1-b",
                                        "prometheus", "grafana"])
        for service in services {
            for volume in service.value["volumes"]?.items ?? [] {
                guard let source = volume.text?.split(separator: ":").first, source.hasPrefix(".") else { continue }
                let path = hospital.appendingPathComponent(String(source)).standardizedFileURL.path
                #expect(FileManager.default.fileExists(atPath: path), "\(service.key) mounts \(source), which is not in the repository")
            }
        }
        // Each shard's two instances run the same command, a standby each, on every broker node.
        for shard in ["0", "1"] {
            let a = services.first { $0.key == "shard-\(shard)-a" }?.value["command"]?.items?.compactMap(\.text)
            let b = services.first { $0.key == "shard-\(shard)-b" }?.value["command"]?.items?.compactMap(\.text)
            #expect(a != nil && a == b, "shard \(shard): \(a ?? []) vs \(b ?? [])")
            #expect(a?.contains("--standby") == true && a?.contains("\(shard)/2") == true)
            let brokers = a.flatMap { c in c.firstIndex(of: "--broker").map { c[$0 + 1] } } ?? ""
            #expect((try? BrokerURL.list(parsing: brokers))?.count == 3, "\(brokers)")
        }
    }
}
