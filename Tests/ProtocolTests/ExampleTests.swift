import Foundation
import Testing
import MQTT
import Wire
import SiteModel
import YAML
@testable import Positioning
@testable import Aggregator
@testable import Edge

/// Every example of docs/protocol.md, decoded by the product's own decoders or compared with
/// what its own writers produce. An example whose tag no check knows is a failure: nothing
/// goes into the document unchecked.
@Suite struct ProtocolExampleTests {
    let document: ProtocolDocument

    init() throws { document = try ProtocolDocument() }

    @Test func everyExampleIsChecked() throws {
        let examples = document.examples
        #expect(examples.count >= 20, "docs/protocol.md has \(examples.count) examples")
        for example in examples {
            do {
                try Self.check(example, in: document)
            } catch {
                Issue.record("\(example): \(error)")
            }
        }
    }

    /// The checks by kind; an unknown kind throws.
    static func check(_ e: ProtocolDocument.Example, in document: ProtocolDocument) throws {
        switch e.kind {
        case "batch": try checkBatch(e, document)
        case "node-status", "aggregator-status":
            try require(["online", "offline"].contains(e.body), "expects online or offline, got '\(e.body)'")
        case "device-room": try checkRoom(e, document)
        case "telemetry": try checkTelemetry(e, document)
        case "device-state": try checkState(e, document)
        case "zone-occupancy": try checkOccupancy(e, document)
        case "zone-event": try checkEvent(e, document)
        case "discovery-tracker", "discovery-occupancy": try checkDiscovery(e, document)
        case "espresense", "theengs": try checkDialect(e, document)
        case "site": try checkSite(e, document)
        case "edge-config": try checkEdgeConfig(e, document)
        case "usage": try checkUsage(e)
        case "api-devices": try checkDevicesAPI(e, document)
        case "api-site": try checkSiteAPI(e, document)
        case "api-calibration": try checkCalibrationAPI(e, document)
        default: throw DocError("no test checks examples tagged '\(e.kind)': tag it with a kind ProtocolTests knows, or add its check")
        }
    }

    // MARK: edge → aggregator

    static func checkBatch(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        var bad = 0
        let batch = try Batch.decode(Array(e.body.utf8), badReadings: &bad)
        try require(bad == 0, "\(bad) readings refused")
        let json = try object(e.body)
        try require(batch.node == json["node"] as? String && batch.seq == (json["seq"] as? NSNumber)?.uint64Value
                    && batch.t == (json["t"] as? NSNumber)?.doubleValue, "header decoded as \(batch)")
        let readings = json["readings"] as? [[String: Any]] ?? []
        try require(batch.readings.count == readings.count && !readings.isEmpty, "decoded \(batch.readings.count) of \(readings.count) readings")
        for (r, j) in zip(batch.readings, readings) {
            try require(r.id == j["id"] as? String && r.mac == j["mac"] as? String && r.rssi == (j["rssi"] as? NSNumber)?.intValue
                        && r.tx == (j["tx"] as? NSNumber)?.intValue && r.t == (j["t"] as? NSNumber)?.doubleValue
                        && r.kind.rawValue == j["kind"] as? String, "reading decoded as \(r)")
            try require(DeviceIDSyntax.problem(r.id) == nil, "the id \(r.id): \(DeviceIDSyntax.problem(r.id) ?? "")")
        }
        // What the decoder read, the edge's encoder writes back.
        var w = JSONWriter()
        batch.encode(into: &w)
        try require(JSONShape.equal(try JSONShape.parse(w.bytes), json), "the edge encodes it as \(w.string)")
        try checkTable(e, doc)
    }

    static func checkRoom(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let site = try documentSite(doc)
        let rooms = site.floors.flatMap { $0.rooms.map(\.id) }
        try require(e.body == "away" || rooms.contains(e.body), "'\(e.body)' is neither away nor a room of the site example")
    }

    static func checkTelemetry(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let telemetry = Telemetry(topic: "t", version: "0.1.0", adapter: "hci0", counters: EdgeCounters(), started: 0,
                                  sourceState: { "scanning" })
        let written = try JSONShape.parse(telemetry.payload(Telemetry.Counts()))
        try sameShape(try JSONShape.parse(e.body), written)
        try checkTable(e, doc)
    }

    // MARK: aggregator → subscribers

    /// The state the product writes for the example's own values equals the example.
    static func checkState(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        let n = j["nearest"] as? [String: Any] ?? [:]
        let update = DeviceUpdate(id: try string(j, "id"), name: j["name"] as? String, t: try number(j, "t"),
                                  x: try number(j, "x"), y: try number(j, "y"), z: try number(j, "z"),
                                  floor: j["floor"] as? String, room: try string(j, "room"), zones: j["zones"] as? [String] ?? [],
                                  confidence: try number(j, "confidence"), fixes: Int(try number(j, "fixes")), since: try number(j, "since"),
                                  nearest: NodeRange(node: try string(n, "node"), distance: try number(n, "distance"),
                                                     proximity: Proximity(rawValue: try string(n, "proximity")) ?? .unknown))
        var publisher = Publisher(site: Site(), topics: Topics())
        var out: [MQTTMessage] = []
        publisher.update(update, into: &out)
        guard let state = out.first(where: { $0.topic.hasSuffix("/state") }) else { throw DocError("no state published") }
        try require(state.topic == Topics().deviceState(update.id) && state.retain && state.qos == .atLeastOnce, "published as \(state.topic)")
        try require(JSONShape.equal(try JSONShape.parse(state.payload), j), "the aggregator writes \(String(decoding: state.payload, as: UTF8.self))")
        try checkTable(e, doc)
    }

    static func checkOccupancy(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        let devices = j["devices"] as? [String] ?? []
        // The occupants as the aggregator keeps them: entered one by one.
        var occupancy = Occupancy(zones: ["kitchen"])
        for d in devices {
            _ = occupancy.apply(ZoneEvent(.enter, device: d, zone: "kitchen", floor: "ground", t: try number(j, "t"), confidence: 1,
                                          dwell: nil, isRoom: true))
        }
        try require(occupancy.count(of: "kitchen") == Int(try number(j, "count")), "count is not the number of devices")
        var publisher = Publisher(site: Site(), topics: Topics())
        let m = publisher.occupancy(zone: "kitchen", count: occupancy.count(of: "kitchen"), devices: occupancy.body(of: "kitchen"),
                                    t: try number(j, "t"))
        try require(m.retain && m.qos == .atLeastOnce, "occupancy not retained at QoS 1")
        try require(JSONShape.equal(try JSONShape.parse(m.payload), j), "the aggregator writes \(String(decoding: m.payload, as: UTF8.self))")
        try checkTable(e, doc)
    }

    static func checkEvent(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        guard let kind = ZoneEvent.Kind(rawValue: try string(j, "type")) else { throw DocError("type is not enter or exit") }
        let event = ZoneEvent(kind, device: try string(j, "device"), zone: try string(j, "zone"), floor: j["floor"] as? String,
                              t: try number(j, "t"), confidence: try number(j, "confidence"),
                              dwell: (j["dwell"] as? NSNumber)?.doubleValue, isRoom: true)
        var publisher = Publisher(site: Site(), topics: Topics())
        let m = publisher.event(event)
        try require(!m.retain && m.qos == .atLeastOnce && m.topic == Topics().zoneEvents(event.zone), "event published as \(m.topic)")
        try require(JSONShape.equal(try JSONShape.parse(m.payload), j), "the aggregator writes \(String(decoding: m.payload, as: UTF8.self))")
        try checkTable(e, doc)
    }

    /// The discovery message the product publishes for the document's site example, on the
    /// topic the example's `state_topic` leads to, equals the example.
    static func checkDiscovery(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let j = try object(e.body)
        let site = try documentSite(doc)
        var publisher = Publisher(site: site, topics: Topics(prefix: site.mqtt.prefix))
        let messages = publisher.discovery(site: site)
        let uniqueID = try string(j, "unique_id")
        let match = try messages.first { try string(object(String(decoding: $0.payload, as: UTF8.self)), "unique_id") == uniqueID }
        guard let m = match else { throw DocError("the aggregator publishes no discovery with unique_id \(uniqueID) for the site example") }
        let expectedPrefix = e.kind == "discovery-tracker" ? "homeassistant/device_tracker/whereabouts_" : "homeassistant/sensor/whereabouts_"
        try require(m.topic.hasPrefix(expectedPrefix) && m.topic.hasSuffix("/config") && m.retain && m.qos == .atLeastOnce,
                    "published on \(m.topic)")
        try require(JSONShape.equal(try JSONShape.parse(m.payload), j), "the aggregator writes \(String(decoding: m.payload, as: UTF8.self))")
    }

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
                                      zones: j["zones"] as? [String] ?? [], confidence: try number(j, "confidence"), fixes: 1, since: 0,
                                      nearest: nil)
        }
        let written = try JSONShape.parse(HTTPEndpoints.devicesJSON(states))
        try require(JSONShape.equal(written, items), "the aggregator writes \(String(decoding: HTTPEndpoints.devicesJSON(states), as: UTF8.self))")
    }

    static func checkSiteAPI(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let written = try JSONShape.parse(HTTPEndpoints.siteJSON(try documentSite(doc)))
        try sameShape(try JSONShape.parse(e.body), written)
    }

    static func checkCalibrationAPI(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let site = try documentSite(doc)
        let bytes = HTTPEndpoints.calibrationJSON(site: site, links: NodeBeaconLinks(nodeCount: site.nodes.count))
        try sameShape(try JSONShape.parse(e.body), try JSONShape.parse(bytes))
    }

    // MARK: command lines

    /// The flags of a usage block are those of the binary it names (its `--help`).
    static func checkUsage(_ e: ProtocolDocument.Example) throws {
        guard let binary = e.argument else { throw DocError("a usage example names its binary") }
        let flags = Set(e.body.split(whereSeparator: { " []|()\n".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        try require(!flags.isEmpty, "lists no flags")
        // The operator's tool has one help per command: the first word after `whereabouts`.
        var helps: [String: String] = [:]
        for line in e.body.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            let command = binary == "whereabouts" && words.count > 1 ? [words[1]] : []
            let lineFlags = Set(words.flatMap { $0.split(whereSeparator: { "[]|()".contains($0) }) }.filter { $0.hasPrefix("--") }.map(String.init))
            guard !lineFlags.isEmpty || !command.isEmpty else { continue }
            let key = command.first ?? ""
            if helps[key] == nil { helps[key] = try Binaries.help(binary, command) }
            for flag in lineFlags where !Binaries.mentions(helps[key]!, flag) {
                throw DocError("`\(binary) \(key)` --help has no \(flag)")
            }
        }
    }

    // MARK: helpers

    /// Every field the section's table lists is in the example, and every key of the example is in the table.
    static func checkTable(_ e: ProtocolDocument.Example, _ doc: ProtocolDocument) throws {
        let listed = Set(doc.tableFields(under: e.section))
        try require(!listed.isEmpty, "section '\(e.section)' has no field table")
        let keys = JSONShape.paths(try JSONShape.parse(e.body)).filter { !$0.hasSuffix("[]") }
        // `readings` and `readings[].id`: a container is listed with its own row.
        try require(listed == keys, "table lists \(listed.subtracting(keys).sorted()) not in the example; "
                    + "the example has \(keys.subtracting(listed).sorted()) not in the table")
    }

    static func sameShape(_ documented: Any, _ written: Any) throws {
        let a = JSONShape.types(documented), b = JSONShape.types(written)
        try require(a == b, "documented only: \(a.subtracting(b).sorted()); written only: \(b.subtracting(a).sorted())")
    }

    /// The site file example of the document, decoded.
    static func documentSite(_ doc: ProtocolDocument) throws -> Site {
        guard let e = doc.examples.first(where: { $0.kind == "site" }) else { throw DocError("the document has no site example") }
        return Site.load(yaml: e.body).site
    }

    static func object(_ text: String) throws -> [String: Any] {
        guard let o = try JSONShape.parse(text) as? [String: Any] else { throw DocError("not a JSON object") }
        return o
    }

    static func string(_ j: [String: Any], _ key: String) throws -> String {
        guard let s = j[key] as? String else { throw DocError("no string \"\(key)\"") }
        return s
    }

    static func number(_ j: [String: Any], _ key: String) throws -> Double {
        guard let n = j[key] as? NSNumber else { throw DocError("no number \"\(key)\"") }
        return n.doubleValue
    }
}

struct DocError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw DocError(message()) }
}
