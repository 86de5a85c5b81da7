import Foundation

/// The dashboards of `Grafana/dashboards`, read as plain JSON the way Grafana reads them.
struct GrafanaDashboard {
    /// One query of a panel or a template variable, with the datasource it names.
    struct Query {
        var owner: String
        var datasource: [String: Any]?
        var target: [String: Any]
        var promQL: String? { target["expr"] as? String }
        var sql: String? { target["rawQueryText"] as? String }
    }

    let file: String
    let json: [String: Any]

    static let directory = packageRoot.appendingPathComponent("Grafana/dashboards")

    static func all() throws -> [GrafanaDashboard] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw HarnessError("\(name): not a JSON object")
            }
            return GrafanaDashboard(file: name, json: json)
        }
    }

    /// Every panel, those nested in collapsed rows included.
    var panels: [[String: Any]] {
        let top = json["panels"] as? [[String: Any]] ?? []
        return top.flatMap { [$0] + ($0["panels"] as? [[String: Any]] ?? []) }
    }

    var variables: [[String: Any]] {
        (json["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
    }

    /// Panel targets, each with its own datasource or else its panel's.
    var panelQueries: [Query] {
        panels.flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).map { target in
                Query(owner: "\(file): panel '\(panel["title"] ?? "?")'",
                      datasource: target["datasource"] as? [String: Any] ?? panel["datasource"] as? [String: Any], target: target)
            }
        }
    }

    /// Query variables: their query is a string (`label_values(...)`, SQL) or an object.
    var variableQueries: [Query] {
        variables.filter { $0["type"] as? String == "query" }.map { v in
            let query = v["query"]
            let datasource = v["datasource"] as? [String: Any]
            let isPrometheus = datasource?["type"] as? String == "prometheus"
            let text = (query as? String) ?? ((query as? [String: Any])?["query"] as? String) ?? ""
            return Query(owner: "\(file): variable '\(v["name"] ?? "?")'", datasource: datasource,
                         target: isPrometheus ? ["expr": text] : ["rawQueryText": text])
        }
    }
}

/// Grafana's interpolation of a query, for the variables and macros the dashboards use:
/// `$name` and `${name}` from `values`, and the SQLite plugin's `$__unixEpochGroupSeconds`.
/// Anything else is left as it is, so a test sees an unknown `$` and fails.
struct GrafanaInterpolation {
    var values: [String: String]

    /// Grafana's built-ins for a time range: `$__from` and `$__to` are epoch milliseconds.
    init(from: Double, to: Double, intervalMilliseconds: Int, variables: [String: String]) {
        values = variables
        values["__from"] = String(Int64(from * 1000))
        values["__to"] = String(Int64(to * 1000))
        values["__interval_ms"] = String(intervalMilliseconds)
    }

    func expand(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if let (replacement, after) = macro(rest) ?? variable(rest) {
                out += replacement
                rest = after
            } else {
                out += "$"
            }
        }
        return out + rest
    }

    private func variable(_ s: Substring) -> (String, Substring)? {
        if s.first == "{", let close = s.firstIndex(of: "}") {
            let name = s[s.index(after: s.startIndex)..<close]
            return values[String(name)].map { ($0, s[s.index(after: close)...]) }
        }
        let name = s.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return values[String(name)].map { ($0, s[name.endIndex...]) }
    }

    /// `$__unixEpochGroupSeconds(column, seconds)`, as the plugin's backend rewrites it.
    private func macro(_ s: Substring) -> (String, Substring)? {
        let name = "__unixEpochGroupSeconds("
        guard s.hasPrefix(name), let close = s.firstIndex(of: ")") else { return nil }
        let arguments = s[s.index(s.startIndex, offsetBy: name.count)..<close].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard arguments.count == 2, let seconds = Int(arguments[1]) else { return nil }
        return ("cast((\(expand(arguments[0])) / \(seconds)) as int) * \(seconds)", s[s.index(after: close)...])
    }
}
