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
        case "partition": try checkPartition(e)
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
