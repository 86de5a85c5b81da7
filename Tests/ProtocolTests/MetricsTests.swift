import Foundation
import Testing
import Metrics
import ProcessSupport
@testable import Aggregator

/// The metrics docs/protocol.md lists are the ones the aggregator serves.
@Suite struct ProtocolMetricsTests {
    /// The names of the Metrics section's table.
    static func documented() throws -> Set<String> {
        let lines = try ProtocolDocument().section("Metrics").filter { $0.hasPrefix("| `") }
        return Set(lines.compactMap { ProtocolDocument.backticked($0).first })
    }

    /// The families `# HELP` names in an exposition.
    static func served(_ exposition: String) -> Set<String> {
        Set(exposition.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map { String($0.split(separator: " ")[2]) })
    }

    /// Every family the aggregator registers at start (before its service adds the values it
    /// collects when scraped) is documented.
    @Test func everyRegisteredFamilyIsDocumented() throws {
        let registered = Self.served(AggregatorMetrics().registry.render())
        let documented = try Self.documented()
        #expect(registered.count > 20)
        #expect(registered.subtracting(documented).isEmpty, "not in docs/protocol.md: \(registered.subtracting(documented).sorted())")
    }

    /// A real aggregator, on a real broker with a database, serves exactly the documented
    /// families on /metrics.
    @Test func aRunningAggregatorServesExactlyTheDocumentedMetrics() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("protocol-metrics-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broker = try Broker(), httpPort = try freePort()
        defer { broker.stop() }
        try """
            floors:
              - id: ground
                bounds: [[0, 0, 0], [10, 4, 2.5]]
                rooms:
                  - { id: west, points: [[0,0],[5,0],[5,4],[0,4]] }
            nodes:
              - { name: a, point: [0.3, 0.3, 2] }
            """.write(to: dir.appendingPathComponent("site.yaml"), atomically: true, encoding: .utf8)
        let aggregator = Process()
        aggregator.executableURL = URL(fileURLWithPath: try Binaries.path("whereabouts-aggregator"))
        aggregator.arguments = ["--site", dir.appendingPathComponent("site.yaml").path, "--broker", broker.url,
                                "--db", dir.appendingPathComponent("tracks.db").path, "--http", "127.0.0.1:\(httpPort)"]
        let logFile = dir.appendingPathComponent("aggregator.log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        aggregator.standardOutput = FileHandle.nullDevice
        aggregator.standardError = try FileHandle(forWritingTo: logFile)
        try runUnmasked(aggregator)
        defer { aggregator.terminate(); aggregator.waitUntilExit() }
        var exposition: String?
        for _ in 0..<100 where exposition == nil {
            if let (status, body) = await httpGet("http://127.0.0.1:\(httpPort)/metrics"), status == 200 { exposition = String(decoding: body, as: UTF8.self); break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        let text = try #require(exposition, "the aggregator served no /metrics within 10 s: \(log)")
        let served = Self.served(text), documented = try Self.documented()
        #expect(served.count > 30)
        #expect(served.subtracting(documented).isEmpty, "served, not documented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented, not served: \(documented.subtracting(served).sorted())")
    }
}
