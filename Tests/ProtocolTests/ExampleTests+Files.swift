import Foundation
import MQTT
import Wire
import SiteModel
import YAML
@testable import Positioning
@testable import Aggregator
@testable import Edge

/// Dialects, the site and edge config files, the HTTP API and command lines.
extension ProtocolExampleTests {
    // MARK: dialects

    static func checkDialect(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        guard let topic = e.argument, let dialect = Dialect(rawValue: e.kind) else { throw DocError("a dialect example needs its topic") }
        let j = try object(e.body)
        let (node, r) = try dialect.reading(topic: topic, payload: Array(e.body.utf8), arrival: 1764410000.25)
        let levels = topic.split(separator: "/").map(String.init)
        // The example carries every field the dialect reads, so each is checked.
        let read = dialect == .espresense ? ["id", "mac", "rssi", "rssi@1m"] : ["id", "rssi", "txpower", "uuid", "major", "minor"]
        try require(read.allSatisfy { j[$0] != nil }, "the example lacks \(read.filter { j[$0] == nil }) of the fields read")
        try require(r.rssi == (j["rssi"] as? NSNumber)?.intValue && r.t == 1764410000.25, "read as \(r)")
        try require(DeviceIDSyntax.problem(r.id) == nil, "made the id \(r.id)")
        switch dialect {
        case .espresense:
            try require(node == levels[3] && r.id == (j["id"] as? String ?? levels[2]) && r.tx == (j["rssi@1m"] as? NSNumber)?.intValue,
                        "read as node \(node), \(r)")
        case .theengs:
            let mac = (j["id"] as? String ?? levels[3]).lowercased()
            let id = (j["uuid"] as? String).map { "iBeacon:\($0.lowercased())-\(j["major"]!)-\(j["minor"]!)" } ?? "mac:\(mac)"
            try require(node == levels[1] && r.id == id && r.mac == mac && r.tx == (j["txpower"] as? NSNumber)?.intValue,
                        "read as node \(node), \(r)")
        }
        try require(topicMatches(dialect.subscription(), topic), "\(topic) is not under the aggregator's subscription \(dialect.subscription())")
    }

    static func topicMatches(_ filter: String, _ topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        return f.count == t.count && zip(f, t).allSatisfy { $0 == "+" || $0 == $1 }
    }

    // MARK: files

    static func checkSite(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let decoded = Site.load(yaml: e.body)
        try require(decoded.problems.isEmpty, "problems: \(decoded.problems.map(\.description))")
        try require(!decoded.site.floors.isEmpty && !decoded.site.nodes.isEmpty, "decoded no floors or nodes")
        // The Site file table and the example name the same keys (the decoder warns on any it
        // does not know, so both are keys it reads).
        let written = keyPaths(try YAML.parse(e.body), "")
        // A row for a list (`floors`) stands beside its entries' rows.
        let rows = Set(tableKeys(doc.section("Site file")))
        let documented = rows.filter { key in !rows.contains { $0.hasPrefix(key + "[") || $0.hasPrefix(key + ".") } }
        try require(written == documented, "documented, not in the example: \(documented.subtracting(written).sorted()); "
                    + "in the example, not documented: \(written.subtracting(documented).sorted())")
    }

    /// The keys a YAML document writes: `mqtt.tls.ca`, `floors[].rooms[].points`; a list of
    /// mappings adds `[]`, any other value ends the path.
    static func keyPaths(_ node: ConfigNode, _ path: String) -> Set<String> {
        if let entries = node.entries {
            return entries.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1.value, path.isEmpty ? $1.key : path + "." + $1.key)) }
        }
        if let items = node.items, !items.isEmpty, items.allSatisfy({ $0.entries != nil }) {
            return items.reduce(into: Set<String>()) { $0.formUnion(keyPaths($1, path + "[]")) }
        }
        return [path]
    }

    static func checkEdgeConfig(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let root = try YAML.parse(e.body)
        let config = try EdgeConfig.load(flags: [:], file: root, fileName: "edge.yaml")
        try require(config.source != nil, "the example chooses no source")
        // The table and the settings agree both ways.
        let documented = Set(tableKeys(doc.section("Edge config file")))
        let settings = Set(EdgeSetting.all.map(\.key))
        try require(documented == settings, "documented but not a setting: \(documented.subtracting(settings).sorted()); "
                    + "a setting not documented: \(settings.subtracting(documented).sorted())")
        // Every key the example writes is documented.
        let written = Set((root.entries ?? []).flatMap { entry in
            entry.key == "tls" ? (entry.value.entries ?? []).map { "tls." + $0.key } : [entry.key]
        })
        try require(written.isSubset(of: documented), "the example writes undocumented keys \(written.subtracting(documented).sorted())")
    }

    /// The backticked keys of a section's `| key |` table's first column (`tls.ca`, `tls.cert`, …).
    static func tableKeys(_ lines: [String]) -> [String] {
        var out: [String] = []
        for line in lines where line.hasPrefix("| `") {
            let cell = line.split(separator: "|").first.map(String.init) ?? ""
            out += ProtocolDocument.backticked(cell)
        }
        return out
    }

    // MARK: HTTP

    static func checkDevicesAPI(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        guard let items = try JSONShape.parse(e.body) as? [[String: Any]], !items.isEmpty else { throw DocError("expects a non-empty array") }
        var states: [String: DeviceUpdate] = [:]
        for j in items {
            let id = try string(j, "id")
            states[id] = DeviceUpdate(id: id, name: j["name"] as? String, t: try number(j, "t"), x: try number(j, "x"), y: try number(j, "y"),
                                      z: try number(j, "z"), floor: j["floor"] as? String, room: try string(j, "room"),
                                      zones: j["zones"] as? [String] ?? [], confidence: try number(j, "confidence"),
                                      fixes: j["fixes"] as? Int ?? 1, since: j["since"] as? Double ?? 0, nearest: nearest(j["nearest"]))
        }
        let written = try JSONShape.parse(HTTPEndpoints.devicesJSON(states))
        try require(JSONShape.equal(written, items), "the aggregator writes \(String(decoding: HTTPEndpoints.devicesJSON(states), as: UTF8.self))")
    }

    /// `{"node","distance","proximity"}` of `/api/devices`, nil without a node.
    static func nearest(_ any: Any?) -> NodeRange? {
        guard let j = any as? [String: Any], let node = j["node"] as? String, let d = j["distance"] as? Double,
              let p = (j["proximity"] as? String).flatMap(Proximity.init(rawValue:)) else { return nil }
        return NodeRange(node: node, distance: d, proximity: p)
    }

    static func checkSiteAPI(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let written = try JSONShape.parse(HTTPEndpoints.siteJSON(try documentSite(doc)))
        try sameShape(try JSONShape.parse(e.body), written)
    }

    static func checkCalibrationAPI(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let site = try documentSite(doc)
        let bytes = HTTPEndpoints.calibrationJSON(site: site, links: NodeBeaconLinks(nodeCount: site.nodes.count),
                                                  learned: Engine(site: site).calibrationSnapshot())
        try sameShape(try JSONShape.parse(e.body), try JSONShape.parse(bytes))
    }

    // MARK: command lines

    /// Each synopsis of a usage block is the one the binary it names makes from its option
    /// table (`Binaries.synopsis`), white space and line wrapping aside: a synopsis starts at a
    /// line beginning with the binary's name; for the operator's tool its command is the word
    /// after it. An optional flag shown required, a flag twice or a wrong placeholder differs.
    static func checkUsage(_ e: ProtocolDocument.Example) throws {
        guard let binary = e.argument else { throw DocError("a usage example names its binary") }
        var synopses: [String] = []
        for line in e.body.split(separator: "\n") {
            if line.hasPrefix(binary + " ") || line == binary { synopses.append(String(line)) }
            else if !synopses.isEmpty { synopses[synopses.count - 1] += " " + line }
            else { throw DocError("usage line before any `\(binary)`: \(line)") }
        }
        try require(!synopses.isEmpty, "shows no synopsis")
        // A command with several usage lines (calibrate's two modes) is compared as a whole: its
        // lines in the doc, in order, against the binary's usage lines, in order.
        var commands: [[String]] = [], shown: [[String]: [String]] = [:]
        for synopsis in synopses.map(folded) {
            let words = synopsis.split(separator: " ").map(String.init)
            let command = binary == "whereabouts" && words.count > 1 ? [words[1]] : []
            if shown[command] == nil { commands.append(command) }
            shown[command, default: []].append(synopsis)
        }
        var differences: [String] = []
        for command in commands {
            let synopsis = shown[command, default: []].joined(separator: " ")
            let made = folded(try Binaries.synopsis(try Binaries.help(binary, command)))
            if synopsis != made {
                differences.append("the doc shows\n  \(synopsis)\nbut `\(([binary] + command).joined(separator: " ")) --help` makes\n  \(made)")
            }
        }
        try require(differences.isEmpty, differences.joined(separator: "\n"))
    }

    /// Runs of white space as one space, none at either end.
    static func folded(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
