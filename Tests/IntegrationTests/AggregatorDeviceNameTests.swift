import Foundation
import MQTT
import Storage
import Testing

/// The `devices` table names each device as the site does (Grafana's "latest visits" and
/// `whereabouts devices` show `devices.name`; before, it stayed empty), and follows the site
/// when it changes between two runs.
@Test(.timeLimit(.minutes(2)))
func theDatabaseNamesDevicesAsTheSiteDoesAndFollowsARename() async throws {
    let dir = try faultDirectory("names")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("tracks.db")
    let reference = try String(contentsOf: Reference.site, encoding: .utf8)
    func site(naming name: String) throws -> URL {
        let url = dir.appendingPathComponent("site.yaml")
        try (reference + "\ndevices:\n  - { id: \"\(Reference.keys)\", name: \"\(name)\" }\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }
    let broker = try Broker()
    defer { broker.stop() }
    let traffic = try Traffic(broker: broker)
    func run(naming name: String) async throws -> CommandResult {
        let aggregator = try AggregatorProcess(broker: broker, db: db, directory: dir, name: name, site: try site(naming: name))
        // A track point stored: the writer has opened the file and named the rows.
        #expect(await poll(timeout: 20) { ((try? TrackReader(path: db.path).devices()) ?? []).contains { $0.name == name } },
                "\(aggregator.log)")
        #expect(await aggregator.stop() == 0, "\(aggregator.log)")
        return try runCommand(executable("whereabouts").path, ["devices", "--db", db.path, "--format", "csv"])
    }
    let first = try await run(naming: "Keys")
    #expect(first.status == 0 && first.output.contains("\(Reference.keys),Keys,"), "\(first)")
    let renamed = try await run(naming: "Alex's keys")
    #expect(renamed.status == 0 && renamed.output.contains("\(Reference.keys),Alex's keys,"), "\(renamed)")
    await traffic.stop()
}
