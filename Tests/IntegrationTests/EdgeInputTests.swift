import Foundation
import MQTT
import Testing

@Suite("whereabouts-edge input errors")
struct EdgeInputTests {
    @Test func garbageCaptureIsRefusedWithExitOne() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-input-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = try Data(contentsOf: URL(fileURLWithPath: capture))
        let cases: [(String, Data)] = [
            ("garbage", Data("this is not a capture at all, just text\n".utf8)),
            ("empty", Data()),
            // Cut in the middle of a record: the header promises more bytes than there are.
            ("truncated", real.prefix(real.count - 7)),
        ]
        for (name, bytes) in cases {
            let file = dir.appendingPathComponent(name)
            try bytes.write(to: file)
            let edge = try EdgeProcess(["--node", "n", "--broker", "mqtt://127.0.0.1:1", "--replay", file.path, "--speed", "0"])
            #expect(await edge.exitStatus() == 1, "\(name)")
            #expect(edge.stderr.contains(file.path) && edge.stderr.contains("btsnoop"), "\(name): \(edge.stderr)")
        }
    }

    @Test func garbageStdinLineIsCountedAndSkipped() async throws {
        let packets = try goldenPackets().prefix(12)
        // The first 12 events end at 1612150087.4028; the 13th is at .434998.
        let expected = try goldenReadings().prefix { $0.t <= 1612150087.41 }
        let broker = try Broker()
        let topics = NodeTopics(node: "desk")
        let collector = try Collector(broker: broker, filters: [topics.all])
        try await collector.ready()
        let edge = try EdgeProcess(["--node", "desk", "--broker", broker.url, "--stdin", "--qos", "1"])
        var lines = packets.map { $0 + "\n" }
        lines.insert("04 3e zz not hex at all\n", at: 5)
        for line in lines { edge.write(line) }
        edge.closeInput()
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
        let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
        // stdin readings carry the time they were read, so compare everything else.
        let heard = readings.map { SeenReading(id: $0.id, mac: $0.mac, rssi: $0.rssi, tx: $0.tx, t: 0, kind: $0.kind) }
        let wanted = try goldenReadings().prefix(readings.count).map { SeenReading(id: $0.id, mac: $0.mac, rssi: $0.rssi, tx: $0.tx, t: 0, kind: $0.kind) }
        #expect(heard == wanted)
        #expect(readings.count == expected.count)
        let last = try #require(telemetry(collector.messages, topic: topics.telemetry).last)
        #expect(last["malformed"] as? Int == 1)
        #expect(last["adverts"] as? Int == 12)
        #expect(edge.stderr.contains("not H4 hex"))
    }

    /// The source and `print` come from the config file alone (the shipped unit passes only
    /// --config); --print gives each report the id and kind it is published under.
    @Test func theConfigFileChoosesStdinAndPrint() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try Broker()
        let topics = NodeTopics(node: "desk")
        let collector = try Collector(broker: broker, filters: [topics.readings])
        try await collector.ready()
        let config = dir.appendingPathComponent("edge.yaml")
        try "node: desk\nbroker: \(broker.url)\nstdin: true\nprint: true\nqos: 1\n".write(to: config, atomically: true, encoding: .utf8)
        let check = try EdgeProcess(["--config", config.path, "--check-config"])
        #expect(await check.exitStatus() == 0, "\(check.stderr)")
        #expect(check.stdout.contains("source stdin"), "\(check.stdout)")

        let edge = try EdgeProcess(["--config", config.path])
        for packet in try goldenPackets().prefix(12) { edge.write(packet + "\n") }
        edge.closeInput()
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        let printed = edge.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(printed.count == 12 && printed.allSatisfy { $0 != nil }, "\(edge.stdout)")
        let wanted = try goldenReadings().prefix { $0.t <= 1612150087.41 }
        // Every reading published was printed with its id and kind.
        let ids = Set(printed.compactMap { $0?["id"] as? String })
        #expect(wanted.allSatisfy { ids.contains($0.id) }, "\(ids)")
        #expect(printed.allSatisfy { ($0?["id"] is String) == ($0?["kind"] is String) })
        #expect(await collector.wait { !$0.isEmpty })
    }

    /// A broker that never answers: the edge says it cannot reach it, once, never that a
    /// connection it never had was lost; stopped, it exits without waiting for an `offline`
    /// acknowledgement that cannot come.
    @Test func anUnreachableBrokerIsSaidOnce() async throws {
        let port = try freePort()
        let edge = try EdgeProcess(["--node", "desk", "--broker", "mqtt://127.0.0.1:\(port)", "--stdin", "--reconnect-max", "1s"])
        // Two reconnect attempts at least (1 s apart) before stopping.
        try await Task.sleep(for: .seconds(3))
        edge.closeInput()
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        let log = edge.stderr.split(separator: "\n")
        #expect(log.filter { $0.contains("cannot reach the broker at mqtt://127.0.0.1:\(port)") }.count == 1, "\(edge.stderr)")
        #expect(!edge.stderr.contains("connection lost") && !edge.stderr.contains("connected to"), "\(edge.stderr)")
    }

    /// A config file that cannot be read is a failure (exit 1) like a missing capture; a bad
    /// value in it is a usage error (64), which the unit file does not restart.
    @Test func exitCodesOfConfigFiles() async throws {
        let missing = try EdgeProcess(["--config", "/nonexistent/edge.yaml", "--stdin"])
        #expect(await missing.exitStatus() == 1, "\(missing.stderr)")
        #expect(missing.stderr.contains("/nonexistent/edge.yaml: cannot open"), "\(missing.stderr)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("edge-bad-\(getpid()).yaml")
        try "node: a\nqos: 7\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let bad = try EdgeProcess(["--config", file.path, "--stdin"])
        #expect(await bad.exitStatus() == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("\(file.path):2: qos"), "\(bad.stderr)")
    }

    /// The aggregator's `--config` follows the same rule (it exited 64 on a missing file).
    @Test func exitCodesOfTheAggregatorsConfigFile() async throws {
        let site = packageRoot.appendingPathComponent("tools/sites/reference.yaml").path
        let missing = try EdgeProcess(["--site", site, "--config", "/nonexistent/agg.yaml"],
                                      tool: "whereabouts-aggregator")
        #expect(await missing.exitStatus() == 1, "\(missing.stderr)")
        #expect(missing.stderr.contains("/nonexistent/agg.yaml: cannot open"), "\(missing.stderr)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("agg-bad-\(getpid()).yaml")
        try "db: [\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let bad = try EdgeProcess(["--site", site, "--config", file.path], tool: "whereabouts-aggregator")
        #expect(await bad.exitStatus() == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("\(file.path):"), "\(bad.stderr)")
    }
}
