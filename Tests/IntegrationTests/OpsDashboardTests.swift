import Foundation
import Testing
import Wire
import YAML

/// The datasources the provisioning file defines: uid → type.
private func provisionedDatasources() throws -> [String: String] {
    let path = packageRoot.appendingPathComponent("Grafana/provisioning/datasources/whereabouts.yaml").path
    let root = try YAML.parse(contentsOf: path)
    #expect(root["apiVersion"]?.text == "1")
    var out: [String: String] = [:]
    for item in root["datasources"]?.items ?? [] {
        guard let uid = item["uid"]?.text, let type = item["type"]?.text else {
            Issue.record("datasource at line \(item.line) lacks a uid or a type"); continue
        }
        #expect(out[uid] == nil, "uid \(uid) defined twice")
        out[uid] = type
    }
    return out
}

/// `$name` and `${name}` references of a query, Grafana's own `$__…` left out.
private func variableReferences(_ text: String) -> Set<String> {
    var names: Set<String> = []
    var rest = Substring(text)
    while let dollar = rest.firstIndex(of: "$") {
        rest = rest[rest.index(after: dollar)...]
        if rest.first == "{" { rest = rest.dropFirst() }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        if !name.isEmpty && !name.hasPrefix("__") { names.insert(String(name)) }
    }
    return names
}

@Test func theProvisioningDefinesAPrometheusAndASQLiteDatasource() throws {
    let datasources = try provisionedDatasources()
    #expect(Set(datasources.values) == ["prometheus", "frser-sqlite-datasource"])
    let providers = try YAML.parse(contentsOf: packageRoot.appendingPathComponent("Grafana/provisioning/dashboards/whereabouts.yaml").path)
    let provider = try #require(providers["providers"]?.items?.first)
    #expect(provider["type"]?.text == "file")
    #expect(provider["options"]?["path"]?.text?.hasPrefix("/") == true)
}

@Test func everyDashboardIsGrafanaJSONWithUniqueIdsAndKnownDatasources() throws {
    let datasources = try provisionedDatasources()
    let dashboards = try GrafanaDashboard.all()
    #expect(dashboards.map(\.file) == ["device-history.json", "node-health.json", "positioning-quality.json", "shards.json", "site-overview.json"])
    #expect(Set(dashboards.compactMap { $0.json["uid"] as? String }).count == dashboards.count, "dashboard uids must differ")
    for d in dashboards {
        let schema = try #require(d.json["schemaVersion"] as? Int, "\(d.file): schemaVersion")
        #expect(schema >= 36, "\(d.file): schemaVersion \(schema) predates datasource references by uid")
        #expect((d.json["title"] as? String)?.isEmpty == false, "\(d.file): title")
        #expect((d.json["uid"] as? String).map { !$0.isEmpty && $0.count <= 40 } == true, "\(d.file): uid")
        let ids = d.panels.compactMap { $0["id"] as? Int }
        #expect(ids.count == d.panels.count, "\(d.file): every panel needs an integer id")
        #expect(Set(ids).count == ids.count, "\(d.file): panel ids repeat: \(ids)")
        for panel in d.panels { checkLayout(panel, in: d.file) }
        for query in d.panelQueries + d.variableQueries {
            checkDatasource(query, datasources)
        }
        for panel in d.panels where panel["type"] as? String != "row" {
            let refs = (panel["targets"] as? [[String: Any]] ?? []).compactMap { $0["refId"] as? String }
            #expect(!refs.isEmpty && Set(refs).count == refs.count, "\(d.file): panel '\(panel["title"] ?? "?")' refIds \(refs)")
        }
        let defined = Set(d.variables.compactMap { $0["name"] as? String })
        for query in d.panelQueries + d.variableQueries {
            let used = variableReferences(query.promQL ?? query.sql ?? "")
            #expect(used.isSubset(of: defined), "\(query.owner) uses undefined \(used.subtracting(defined).sorted())")
        }
    }
}

/// The panel sits on Grafana's 24-column grid and has a type.
private func checkLayout(_ panel: [String: Any], in file: String) {
    let title = panel["title"] as? String ?? "?"
    #expect((panel["type"] as? String)?.isEmpty == false, "\(file): panel '\(title)' has no type")
    guard let grid = panel["gridPos"] as? [String: Any], let x = grid["x"] as? Int, let y = grid["y"] as? Int,
          let w = grid["w"] as? Int, let h = grid["h"] as? Int else {
        Issue.record("\(file): panel '\(title)' has no gridPos"); return
    }
    #expect(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24, "\(file): panel '\(title)' gridPos \(grid)")
}

/// The query names a provisioned datasource by uid, with the same type, and has the fields
/// that datasource reads.
private func checkDatasource(_ query: GrafanaDashboard.Query, _ datasources: [String: String]) {
    guard let ds = query.datasource, let uid = ds["uid"] as? String, let type = ds["type"] as? String else {
        Issue.record("\(query.owner): no datasource {type, uid}"); return
    }
    #expect(datasources[uid] == type, "\(query.owner): datasource \(uid) (\(type)) is not provisioned")
    switch type {
    case "prometheus":
        #expect(query.promQL?.isEmpty == false, "\(query.owner): a Prometheus query needs expr")
    case "frser-sqlite-datasource":
        #expect(query.sql?.isEmpty == false, "\(query.owner): an SQLite query needs rawQueryText")
        if query.target["queryText"] != nil || query.target["refId"] != nil {
            #expect(query.target["queryText"] as? String == query.sql, "\(query.owner): queryText differs from rawQueryText")
            #expect(["table", "time series"].contains(query.target["queryType"] as? String ?? ""), "\(query.owner): queryType")
            #expect(query.target["timeColumns"] is [String], "\(query.owner): timeColumns")
        }
    default:
        Issue.record("\(query.owner): unexpected datasource type \(type)")
    }
}

@Test func interpolationReplacesGrafanaMacrosAndLeavesUnknownsVisible() {
    let g = GrafanaInterpolation(from: 1_700_000_000, to: 1_700_000_600.5, intervalMilliseconds: 2000, variables: ["device": "mac:aa", "zone": "hall"])
    #expect(g.expand("t BETWEEN $__from / 1000.0 AND $__to / 1000.0 AND id = '$device' AND z = '${zone}'")
            == "t BETWEEN 1700000000000 / 1000.0 AND 1700000600500 / 1000.0 AND id = 'mac:aa' AND z = 'hall'")
    #expect(g.expand("SELECT $__unixEpochGroupSeconds(t, 60) AS time") == "SELECT cast((t / 60) as int) * 60 AS time")
    #expect(g.expand("MAX($__interval_ms / 1000.0, 1) $other") == "MAX(2000 / 1000.0, 1) $other")
}
