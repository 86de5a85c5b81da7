import Foundation
import Storage
import Testing

/// Runs `sql` read-only with the sqlite3 CLI, as the Grafana plugin opens the file
/// (`mode=ro`, beside the running writer): the rows as JSON objects.
private func readOnlyQuery(_ database: URL, _ sql: String) throws -> [[String: Any]] {
    let result = try runCommand("/usr/bin/sqlite3", ["-readonly", "-json", "file:\(database.path)?mode=ro", sql])
    guard result.status == 0, result.errors.isEmpty else { throw HarnessError("sqlite3: \(result)\n\(sql)") }
    guard !result.output.isEmpty else { return [] }
    return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
}

/// Waits until the aggregator has committed what the dashboards show: track points, node
/// health, a closed visit and an open one.
private func waitForHistory(_ database: URL) async -> Bool {
    await poll(timeout: 20) {
        guard let db = try? Connection(path: database.path, mode: .readOnly) else { return false }
        let counts = ["SELECT COUNT(*) FROM track_points", "SELECT COUNT(*) FROM node_health",
                      "SELECT COUNT(*) FROM visits WHERE exit_t IS NOT NULL", "SELECT COUNT(*) FROM visits WHERE exit_t IS NULL"]
        return counts.allSatisfy { ((try? db.integer($0)) ?? 0) > 0 }
    }
}

@Test(.timeLimit(.minutes(2)))
func everyDashboardSQLQueryRunsOnADatabaseTheAggregatorWrote() async throws {
    let dir = try opsDirectory("sql")
    defer { try? FileManager.default.removeItem(at: dir) }
    // Not broker.stop(): see the Prometheus test; the Broker's deinit kills it.
    let broker = try Broker()
    let start = Date().timeIntervalSince1970
    let aggregator = try startAggregator(broker: broker.url, directory: dir, http: try freePort())
    let publisher = try Collector(broker: broker, filters: [])
    try await publisher.ready()
    var feed = ReferenceFeed()
    try feed.announce(publisher.client)
    // West, through the door, east: one visit closed, one open.
    try await feed.run(publisher.client, steps: 48)
    let database = dir.appendingPathComponent("tracks.db")
    #expect(await waitForHistory(database), "\(aggregator.log)")

    let grafana = GrafanaInterpolation(from: start - 60, to: Date().timeIntervalSince1970 + 60, intervalMilliseconds: 1000,
                                       variables: ["device": ReferenceFeed.device, "zone": "west"])
    var checked = 0
    for dashboard in try GrafanaDashboard.all() {
        for query in dashboard.panelQueries + dashboard.variableQueries {
            guard let raw = query.sql else { continue }
            let sql = grafana.expand(raw)
            #expect(!sql.contains("$"), "\(query.owner): an unknown variable or macro in\n\(sql)")
            let rows = try readOnlyQuery(database, sql)
            #expect(!rows.isEmpty, "\(query.owner) returned no rows:\n\(sql)")
            checkTimeColumns(query, rows)
            checked += 1
        }
    }
    #expect(checked >= 12, "only \(checked) SQL queries found in the dashboards")
    try checkKnownAnswers(database, grafana)
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}

/// Columns named as time columns hold Unix seconds (what the plugin turns into times), and a
/// time series query has its time column.
private func checkTimeColumns(_ query: GrafanaDashboard.Query, _ rows: [[String: Any]]) {
    let timeColumns = query.target["timeColumns"] as? [String] ?? []
    if query.target["queryType"] as? String == "time series" {
        #expect(timeColumns.first.map { rows.first?.keys.contains($0) } == true, "\(query.owner): no time column in \(rows.first ?? [:])")
    }
    for column in timeColumns {
        for row in rows {
            guard let value = row[column], !(value is NSNull) else { continue }
            let seconds = (value as? NSNumber)?.doubleValue ?? 0
            #expect(seconds > 1_600_000_000 && seconds < 4_000_000_000, "\(query.owner): \(column) = \(value) is not Unix seconds")
        }
    }
}

/// A few panels checked against what the feed did, not just for rows.
private func checkKnownAnswers(_ database: URL, _ grafana: GrafanaInterpolation) throws {
    let history = try #require(try GrafanaDashboard.all().first { $0.file == "device-history.json" })
    func rows(_ title: String) throws -> [[String: Any]] {
        let query = try #require(history.panelQueries.first { $0.owner.hasSuffix("'\(title)'") }?.sql, "panel \(title)")
        return try readOnlyQuery(database, grafana.expand(query))
    }
    let visits = try rows("Visits of $device")
    #expect(visits.compactMap { $0["zone"] as? String } == ["east", "west"], "newest first: \(visits)")
    #expect(visits.last?["exit"] is NSNumber && visits.first?["exit"] is NSNull)
    let perZone = try rows("Visits per zone")
    #expect(Set(perZone.compactMap { $0["zone"] as? String }) == ["west", "east"])
    // The occupancy of the west room is 1 while the beacon is in it and 0 after it left.
    let occupancy = try rows("Occupancy of $zone").compactMap { ($0["devices"] as? NSNumber)?.intValue }
    #expect(occupancy.contains(1) && occupancy.first == 0 && occupancy.last == 0, "\(occupancy)")
    let track = try rows("Track points of $device")
    #expect(!track.isEmpty && track.allSatisfy { ($0["room"] as? String).map { ["west", "east"].contains($0) } ?? true })
}
